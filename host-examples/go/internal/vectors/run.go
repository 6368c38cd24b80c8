// Package vectors runs the SPEC's conformance vectors (formats 1 and 2,
// the format-3 files of docs/health.md section 7, and the engine traces of
// docs/engine.md section 14) through the Go host. The ops whose function
// ABI 1.0 still exports (Ops, and format 3's parse_document) are decoded
// strictly here and called through the glue, the result compared in the
// contract's JSON shape with the case's expect; every other op of the
// contract (CaseOps) runs inside the artifact through the test-only
// vector-case, with the case's own JSON text (numbers as in the file).
package vectors

import (
	"context"
	"encoding/json"
	"errors"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var jsonUnmarshal = json.Unmarshal

// Ops lists the format-1/2 ops this runner calls through the glue.
var Ops = []string{"plan", "classify_status", "classify_error", "evaluate", "settle", "retry_after"}

// CaseOps lists, per kind of file (health: format 3), the ops that run
// through vector-case: their functions are no longer exported.
var CaseOps = map[bool][]string{
	false: {"delay", "budget", "decide", "resume"},
	true:  {"apply", "gate", "after_probe", "settle", "health_outcome", "pause_until", "pace", "normal_per_s"},
}

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
	case "classify_status":
		call, err = d.classifyStatus(ctx, e, input)
	case "classify_error":
		call, err = d.classifyError(ctx, e, input)
	case "evaluate":
		call, err = d.evaluate(ctx, e, input)
	case "settle":
		call, err = d.settle(ctx, e, input)
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
