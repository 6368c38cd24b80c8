package vectors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// HealthFormat is the format label of the format-3 vector files
// (tests/vectors/format3-*.json, docs/health.md section 7).
const HealthFormat = "webhook-retry-policy/health-vectors 1"

// HealthOps lists the format-3 ops this runner knows.
var HealthOps = []string{"parse_document", "apply", "gate", "after_probe", "settle", "settle_wake", "health_outcome", "pause_until", "pace", "normal_per_s"}

type jsonRaw = json.RawMessage

// healthKeys are each op's input keys (all required).
var healthKeys = map[string][]string{
	"parse_document": {"document"},
	"apply":          {"section", "budget", "held", "calls"},
	"gate":           {"policy", "health", "event", "view", "pacer", "now_ms"},
	"after_probe":    {"policy", "health", "event", "granted", "view", "pacer", "now_ms"},
	"settle":         {"policy", "health", "state", "outcome", "now_ms", "reply"},
	"settle_wake":    {"policy", "wake", "reply", "now_ms"},
	"health_outcome": {"outcome"},
	"pause_until":    {"health", "outcome", "now_ms"},
	"pace":           {"release", "pacer", "calls"},
	"normal_per_s":   {"budget", "now_ms", "current", "previous"},
}

// EvaluateHealth runs one format-3 case input through the component and
// returns the result in the vectors' shape, or {"error", "field"} for a
// refused input. The ops run the component's functions: parse_document
// load-health-document; apply apply-call, call by call; gate, after_probe,
// settle (finish) and settle_wake on a policy compiled for the case (and
// closed after it); the rest their own functions. A *BrokenError is a case
// that does not follow the format; any other error a host failure.
func EvaluateHealth(ctx context.Context, e *rp.Engine, op string, input json.RawMessage) (any, error) {
	keys, ok := healthKeys[op]
	if !ok {
		return nil, broken("unknown op %q", op)
	}
	d := &decoder{}
	in, err := d.object("", input, keys, nil)
	if err != nil {
		return nil, err
	}
	h := healthCase{ctx: ctx, e: e, in: in}
	call, err := h.prepare(op)
	if err != nil {
		return nil, err
	}
	if d.first != nil {
		return healthRefused(d.first)
	}
	out, err := call()
	if err != nil {
		return healthRefused(err)
	}
	return out, nil
}

// healthRefused is a *PolicyError as {"error": CODE, "field": PATH}.
func healthRefused(err error) (any, error) {
	var pe *rp.PolicyError
	if errors.As(err, &pe) {
		return map[string]any{"error": pe.Code.String(), "field": pe.Field}, nil
	}
	return nil, err
}

type healthCase struct {
	ctx context.Context
	e   *rp.Engine
	in  *obj
}

type healthThunk = func() (any, error)

// prepare decodes the input and returns the call to make.
func (h healthCase) prepare(op string) (healthThunk, error) {
	ctx, e, in := h.ctx, h.e, h.in
	switch op {
	case "parse_document":
		raw := in.raw("document")
		return func() (any, error) {
			doc, err := e.LoadHealthDocument(ctx, raw)
			if err != nil {
				return nil, err
			}
			return healthDocumentJSON(doc), nil
		}, nil
	case "apply":
		return h.apply()
	case "gate", "after_probe":
		return h.gate(op == "after_probe")
	case "settle":
		return h.settle()
	case "settle_wake":
		return h.settleWake()
	case "health_outcome":
		o, err := in.outcome("outcome")
		return func() (any, error) {
			class, err := e.HealthOutcomeOf(ctx, o)
			return map[string]any{"outcome": class.String()}, err
		}, err
	case "pause_until":
		section, err := in.section(ctx, e, "health")
		if err != nil {
			return nil, err
		}
		o, err := in.outcome("outcome")
		now := in.u64("now_ms")
		return func() (any, error) {
			if section == nil {
				return nil, broken("pause_until needs a section")
			}
			until, err := e.PauseUntil(ctx, *section, o, now)
			return map[string]any{"pause_until_ms": until}, err
		}, err
	case "pace":
		return h.pace()
	default: // normal_per_s
		b, err := in.budget("budget")
		now, cur, prev := in.u64("now_ms"), in.u64("current"), in.u64("previous")
		return func() (any, error) {
			rate, err := e.NormalPerS(ctx, b, now, cur, prev)
			return map[string]any{"normal_per_s": rate}, err
		}, err
	}
}

func (h healthCase) apply() (healthThunk, error) {
	ctx, e, in := h.ctx, h.e, h.in
	section, err := in.section(ctx, e, "section")
	if err != nil {
		return nil, err
	}
	if section == nil && in.d.first == nil {
		return nil, broken("an apply case has a section")
	}
	b, err := in.budget("budget")
	if err != nil {
		return nil, err
	}
	held, err := in.held("held")
	if err != nil {
		return nil, err
	}
	items, err := in.list("calls")
	if err != nil {
		return nil, err
	}
	type step struct {
		nowMs uint64
		call  rp.StoreCall
	}
	steps := make([]step, len(items))
	for i, raw := range items {
		c, err := in.d.object(fmt.Sprintf("calls[%d]", i), raw, []string{"now_ms", "request"}, nil)
		if err != nil {
			return nil, err
		}
		steps[i].nowMs = c.u64("now_ms")
		if section != nil {
			if steps[i].call, err = c.storeCall("request", section, b); err != nil {
				return nil, err
			}
		}
	}
	return func() (any, error) {
		replies := make([]any, 0, len(steps))
		for _, s := range steps {
			a, err := e.ApplyCall(ctx, s.call, s.nowMs, held)
			if err != nil {
				return nil, err
			}
			replies = append(replies, callReplyJSON(a.Reply))
			held = a.Held
		}
		return map[string]any{"replies": replies, "held": heldJSON(held)}, nil
	}, nil
}

// compiled runs fn on policy+section compiled for this case, closed after.
func (h healthCase) compiled(p rp.Policy, section *rp.Health, fn func(*rp.Compiled) (any, error)) (any, error) {
	c, err := h.e.Compile(h.ctx, p, section)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return fn(c)
}

func (h healthCase) gate(afterProbe bool) (healthThunk, error) {
	ctx, e, in := h.ctx, h.e, h.in
	p, err := in.policy("policy")
	if err != nil {
		return nil, err
	}
	section, err := in.section(ctx, e, "health")
	if err != nil {
		return nil, err
	}
	ev, err := in.gateEvent("event")
	if err != nil {
		return nil, err
	}
	var view *rp.HealthView
	if !in.isNull("view") {
		v, err := in.view("view")
		if err != nil {
			return nil, err
		}
		view = &v
	}
	pacer, err := in.pacer("pacer")
	if err != nil {
		return nil, err
	}
	now := in.u64("now_ms")
	var granted bool
	if afterProbe {
		granted = in.boolean("granted")
		if view == nil {
			return nil, broken("after_probe has the reply's view")
		}
	}
	return func() (any, error) {
		return h.compiled(p, section, func(c *rp.Compiled) (any, error) {
			var a rp.GateAnswer
			var err error
			if afterProbe {
				a, err = c.AfterProbe(ctx, ev, granted, *view, pacer, now)
			} else {
				a, err = c.Gate(ctx, ev, view, pacer, now)
			}
			if err != nil {
				return nil, err
			}
			return map[string]any{"decision": gateVerdictJSON(a.Verdict), "pacer": pacerJSON(a.Pacer)}, nil
		})
	}, nil
}

func (h healthCase) settle() (healthThunk, error) {
	ctx, e, in := h.ctx, h.e, h.in
	p, err := in.policy("policy")
	if err != nil {
		return nil, err
	}
	section, err := in.section(ctx, e, "health")
	if err != nil {
		return nil, err
	}
	s, err := in.state("state")
	if err != nil {
		return nil, err
	}
	o, err := in.outcome("outcome")
	if err != nil {
		return nil, err
	}
	now := in.u64("now_ms")
	reply, err := in.reply("reply")
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		return h.compiled(p, section, func(c *rp.Compiled) (any, error) {
			f, err := c.Finish(ctx, s, o, now, reply)
			if err != nil {
				return nil, err
			}
			return map[string]any{"decision": verdictJSON(f.Verdict), "budget_disagreement": f.BudgetDisagreement}, nil
		})
	}, nil
}

func (h healthCase) settleWake() (healthThunk, error) {
	in := h.in
	p, err := in.policy("policy")
	if err != nil {
		return nil, err
	}
	w, err := in.wake("wake")
	if err != nil {
		return nil, err
	}
	reply, err := in.reply("reply")
	if err != nil {
		return nil, err
	}
	now := in.u64("now_ms")
	return func() (any, error) {
		return h.compiled(p, nil, func(c *rp.Compiled) (any, error) {
			v, err := c.SettleWake(h.ctx, w, reply, now)
			if err != nil {
				return nil, err
			}
			return wakeVerdictJSON(v), nil
		})
	}, nil
}

func (h healthCase) pace() (healthThunk, error) {
	in := h.in
	r, err := in.release("release")
	if err != nil {
		return nil, err
	}
	pacer, err := in.pacer("pacer")
	if err != nil {
		return nil, err
	}
	items, err := in.list("calls")
	if err != nil {
		return nil, err
	}
	nows := make([]uint64, len(items))
	for i, raw := range items {
		at := &obj{d: in.d, path: in.field("calls"), m: map[string]json.RawMessage{fmt.Sprint(i): raw}}
		nows[i] = at.u64(fmt.Sprint(i))
	}
	return func() (any, error) {
		results := make([]any, 0, len(nows))
		for _, now := range nows {
			p, err := h.e.Pace(h.ctx, r, pacer, now)
			if err != nil {
				return nil, err
			}
			results = append(results, paceJSON(p.Verdict))
			pacer = p.Pacer
		}
		return map[string]any{"results": results, "pacer": pacerJSON(pacer)}, nil
	}, nil
}
