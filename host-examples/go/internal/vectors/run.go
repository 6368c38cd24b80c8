// Package vectors runs the SPEC's conformance vectors (formats 1 and 2, and the format-3 files of docs/health.md section 7) through
// the Go host: strict decoding of case inputs, one call per case, and the
// result in the contract's JSON shape compared with the case's expect.
package vectors

import (
	"context"
	"encoding/json"
	"errors"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var jsonUnmarshal = json.Unmarshal

// Ops lists the vector ops this runner knows.
var Ops = []string{"plan", "delay", "classify_status", "classify_error", "budget", "decide", "evaluate", "settle", "resume", "retry_after"}

// Evaluate runs one case input through the engine and returns the result
// in the contract's JSON shape: the op's result object, or
// {"error": CODE} for a refused input. A *BrokenError means the case
// does not follow the vector format; any other error is a host failure
// (a trap).
func Evaluate(ctx context.Context, e *rp.Engine, op string, input json.RawMessage) (map[string]any, error) {
	d := &decoder{}
	var call func() (map[string]any, error)
	var err error
	switch op {
	case "plan":
		call, err = d.plan(ctx, e, input)
	case "delay":
		call, err = d.delay(ctx, e, input)
	case "classify_status":
		call, err = d.classifyStatus(ctx, e, input)
	case "classify_error":
		call, err = d.classifyError(ctx, e, input)
	case "budget":
		call, err = d.budget(ctx, e, input)
	case "decide":
		call, err = d.decide(ctx, e, input)
	case "evaluate":
		call, err = d.evaluate(ctx, e, input)
	case "settle":
		call, err = d.settle(ctx, e, input)
	case "resume":
		call, err = d.resume(ctx, e, input)
	case "retry_after":
		call, err = d.retryAfter(ctx, e, input)
	default:
		return nil, broken("unknown op %q", op)
	}
	if err != nil {
		return nil, err
	}
	if d.first != nil {
		return refused(d.first)
	}
	out, err := call()
	if err != nil {
		return refused(err)
	}
	return out, nil
}

// refused turns a *PolicyError into {"error": CODE}; anything else stays an error.
func refused(err error) (map[string]any, error) {
	var pe *rp.PolicyError
	if errors.As(err, &pe) {
		return map[string]any{"error": pe.Code.String()}, nil
	}
	return nil, err
}

type thunk = func() (map[string]any, error)

func (d *decoder) plan(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, err := d.object("", input, []string{"backoff", "window_ms", "hard_cap"}, nil)
	if err != nil {
		return nil, err
	}
	b, err := in.backoff("backoff")
	if err != nil {
		return nil, err
	}
	window, hardCap := in.u64("window_ms"), in.u32("hard_cap")
	return func() (map[string]any, error) {
		s, err := e.Plan(ctx, b, window, hardCap)
		if err != nil {
			return nil, err
		}
		return scheduleJSON(s), nil
	}, nil
}

func (d *decoder) delay(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, err := d.object("", input, []string{"backoff", "event_id", "retry_index"}, nil)
	if err != nil {
		return nil, err
	}
	b, err := in.backoff("backoff")
	if err != nil {
		return nil, err
	}
	eventID, index := in.str("event_id"), in.u32("retry_index")
	return func() (map[string]any, error) {
		ms, err := e.Delay(ctx, b, eventID, index)
		return map[string]any{"delay_ms": ms}, err
	}, nil
}

func (d *decoder) classifyStatus(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, err := d.object("", input, []string{"status"}, nil)
	if err != nil {
		return nil, err
	}
	status := in.status("status")
	return func() (map[string]any, error) {
		c, err := e.ClassifyStatus(ctx, status)
		return map[string]any{"outcome": c.String()}, err
	}, nil
}

func (d *decoder) classifyError(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, err := d.object("", input, []string{"error_kind"}, nil)
	if err != nil {
		return nil, err
	}
	kind := in.str("error_kind")
	return func() (map[string]any, error) {
		c, err := e.ClassifyError(ctx, kind)
		return map[string]any{"outcome": c.String()}, err
	}, nil
}

func (d *decoder) budget(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, err := d.object("", input, []string{"budget", "now_ms", "current", "previous"}, nil)
	if err != nil {
		return nil, err
	}
	b, err := in.budget("budget")
	if err != nil {
		return nil, err
	}
	now := in.u64("now_ms")
	var counts rp.BudgetCounts
	if counts.Current, err = in.bucket("current"); err != nil {
		return nil, err
	}
	if counts.Previous, err = in.bucket("previous"); err != nil {
		return nil, err
	}
	return func() (map[string]any, error) {
		ok, err := e.BudgetAllows(ctx, b, now, counts)
		return map[string]any{"allows_retry": ok}, err
	}, nil
}

func (d *decoder) decide(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, p, s, o, err := d.stepInput(input, "budget_counts")
	if err != nil {
		return nil, err
	}
	now := in.u64("now_ms")
	counts, err := in.counts("budget_counts")
	if err != nil {
		return nil, err
	}
	return func() (map[string]any, error) {
		dec, err := e.DecideWith(ctx, p, s, o, now, counts)
		var out map[string]any
		if err != nil {
			if out, err = refused(err); err != nil {
				return nil, err
			}
		} else {
			out = decisionJSON(dec)
		}
		if im := importsFrom(ctx); im != nil {
			in := DecideInput{Policy: p, State: s, Outcome: o, NowMs: now, Counts: counts}
			if err := im.decideThroughImports(ctx, e, in, out); err != nil {
				return nil, err
			}
		}
		return out, nil
	}, nil
}

func scheduleJSON(s rp.Schedule) map[string]any {
	return map[string]any{
		"max_attempts":       s.MaxAttempts,
		"expected_span_ms":   s.ExpectedSpanMs,
		"offsets_ms":         s.OffsetsMs,
		"worst_case_span_ms": s.WorstCaseSpanMs,
		"limited_by":         s.LimitedBy.String(),
	}
}

// decisionJSON is the SPEC's decide result shape.
func decisionJSON(d rp.Decision) map[string]any {
	if d.Retry != nil {
		return map[string]any{
			"stop_reason":      nil,
			"disable_endpoint": false,
			"retry":            map[string]any{"delay_ms": d.Retry.DelayMs, "refresh_credentials": d.Retry.RefreshCredentials},
		}
	}
	out := map[string]any{"stop_reason": d.Stop.Reason.String(), "disable_endpoint": d.Stop.DisableEndpoint}
	if dl := d.Stop.DeadLetter; dl != nil {
		out["dead_letter"] = map[string]any{
			"event_id":    dl.EventID,
			"endpoint_id": dl.EndpointID,
			"attempts":    dl.Attempts,
			"elapsed_ms":  dl.ElapsedMs,
			"stop_reason": dl.StopReason.String(),
		}
	}
	return out
}

// DecideInput is a decoded decide case input.
type DecideInput struct {
	Policy  rp.Policy
	State   rp.DeliveryState
	Outcome rp.AttemptOutcome
	NowMs   uint64
	Counts  *rp.BudgetCounts
}

// DecodeDecide decodes a decide input (for the baseline's test): a
// *BrokenError, or the first *PolicyError of a value of the wrong shape.
func DecodeDecide(input json.RawMessage) (DecideInput, error) {
	d := &decoder{}
	var out DecideInput
	in, err := d.object("", input, []string{"policy", "state", "outcome", "now_ms", "budget_counts"}, nil)
	if err != nil {
		return out, err
	}
	if out.Policy, err = in.policy("policy"); err != nil {
		return out, err
	}
	if out.State, err = in.state("state"); err != nil {
		return out, err
	}
	if out.Outcome, err = in.outcome("outcome"); err != nil {
		return out, err
	}
	out.NowMs = in.u64("now_ms")
	if out.Counts, err = in.counts("budget_counts"); err != nil {
		return out, err
	}
	return out, d.first
}

// DecisionJSON is a decision in the SPEC's decide result shape.
func DecisionJSON(d rp.Decision) map[string]any { return decisionJSON(d) }

// BudgetInput is a decoded budget case input.
type BudgetInput struct {
	Budget rp.Budget
	NowMs  uint64
	Counts rp.BudgetCounts
}

// DecodeBudget decodes a budget input (for the Redis script's test).
func DecodeBudget(input json.RawMessage) (BudgetInput, error) {
	d := &decoder{}
	var out BudgetInput
	in, err := d.object("", input, []string{"budget", "now_ms", "current", "previous"}, nil)
	if err != nil {
		return out, err
	}
	if out.Budget, err = in.budget("budget"); err != nil {
		return out, err
	}
	out.NowMs = in.u64("now_ms")
	if out.Counts.Current, err = in.bucket("current"); err != nil {
		return out, err
	}
	if out.Counts.Previous, err = in.bucket("previous"); err != nil {
		return out, err
	}
	return out, d.first
}
