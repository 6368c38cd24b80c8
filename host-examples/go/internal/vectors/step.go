package vectors

import (
	"context"
	"encoding/json"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The format-2 ops (SPEC "Format 2") the glue still binds: evaluate, settle, retry_after,
// each through the public package.

// stepInput decodes {policy, state, outcome, now_ms} plus extra required keys.
func (d *decoder) stepInput(input json.RawMessage, extra ...string) (*obj, rp.Policy, rp.DeliveryState, rp.AttemptOutcome, error) {
	in, err := d.object("", input, append([]string{"policy", "state", "outcome", "now_ms"}, extra...), nil)
	if err != nil {
		return nil, rp.Policy{}, rp.DeliveryState{}, rp.AttemptOutcome{}, err
	}
	p, err := in.policy("policy")
	if err != nil {
		return nil, p, rp.DeliveryState{}, rp.AttemptOutcome{}, err
	}
	s, err := in.state("state")
	if err != nil {
		return nil, p, s, rp.AttemptOutcome{}, err
	}
	o, err := in.outcome("outcome")
	return in, p, s, o, err
}

func (d *decoder) evaluate(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, p, s, o, err := d.stepInput(input)
	if err != nil {
		return nil, err
	}
	now := in.u64("now_ms")
	return func() (map[string]any, error) {
		st, err := e.Evaluate(ctx, p, s, o, now)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"decision": nil, "store": nil}
		if st.Decision != nil {
			out["decision"] = decisionJSON(*st.Decision)
		}
		if r := st.Store; r != nil {
			out["store"] = map[string]any{"op": r.Op.String(), "endpoint_id": r.EndpointID, "window_ms": r.WindowMs, "bucket": r.Bucket}
		}
		return out, nil
	}, nil
}

func (d *decoder) settle(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, p, s, o, err := d.stepInput(input, "reply")
	if err != nil {
		return nil, err
	}
	now := in.u64("now_ms")
	reply, err := in.reply("reply")
	if err != nil {
		return nil, err
	}
	return func() (map[string]any, error) {
		st, err := e.Settle(ctx, p, s, o, now, reply)
		if err != nil {
			return nil, err
		}
		return map[string]any{"decision": decisionJSON(st.Decision), "budget_disagreement": st.BudgetDisagreement}, nil
	}, nil
}

func (d *decoder) retryAfter(ctx context.Context, e *rp.Engine, input json.RawMessage) (thunk, error) {
	in, err := d.object("", input, []string{"header", "now_ms"}, nil)
	if err != nil {
		return nil, err
	}
	header, now := in.str("header"), in.u64("now_ms")
	return func() (map[string]any, error) {
		ms, ok, err := e.ParseRetryAfter(ctx, header, now)
		if err != nil || !ok {
			return map[string]any{"retry_after_ms": nil}, err
		}
		return map[string]any{"retry_after_ms": ms}, nil
	}, nil
}
