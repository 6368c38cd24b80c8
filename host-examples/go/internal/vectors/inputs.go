package vectors

import (
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Decoders of the SPEC's input objects (section "Vector files").

var (
	backoffKeys = []string{"base_ms", "factor", "cap_ms", "jitter"}
	budgetKeys  = []string{"ratio", "window_ms", "min_sample", "sliding"}
	policyKeys  = []string{"backoff", "window_ms", "hard_cap", "budget"}
	stateKeys   = []string{"event_id", "endpoint_id", "attempt", "max_attempts", "first_attempted_at_ms", "credentials_refreshed"}
	countKeys   = []string{"total", "retries"}
)

func (o *obj) backoff(name string) (rp.Backoff, error) {
	b, err := o.child(name, backoffKeys, nil)
	if err != nil {
		return rp.Backoff{}, err
	}
	out := rp.Backoff{BaseMs: b.u64("base_ms"), Factor: b.f64("factor"), CapMs: b.u64("cap_ms")}
	if b.m != nil {
		name := b.str("jitter")
		var ok bool
		if out.Jitter, ok = rp.ParseJitter(name); !ok {
			// the SPEC's code for an unknown jitter, with this input's path
			b.d.fail(&rp.PolicyError{Code: rp.ErrorCodeInvalidBackoff, Field: b.field("jitter"), Message: "unknown jitter " + name})
		}
	}
	return out, nil
}

func (o *obj) budget(name string) (rp.Budget, error) {
	b, err := o.child(name, budgetKeys, nil)
	if err != nil {
		return rp.Budget{}, err
	}
	return rp.Budget{Ratio: b.f64("ratio"), WindowMs: b.u64("window_ms"), MinSample: b.u64("min_sample"), Sliding: b.boolean("sliding")}, nil
}

func (o *obj) policy(name string) (rp.Policy, error) {
	p, err := o.child(name, policyKeys, nil)
	if err != nil {
		return rp.Policy{}, err
	}
	backoff, err := p.backoff("backoff")
	if err != nil {
		return rp.Policy{}, err
	}
	out := rp.Policy{Backoff: backoff, WindowMs: p.u64("window_ms"), HardCap: p.u32("hard_cap")}
	out.Budget, err = p.budget("budget")
	return out, err
}

func (o *obj) state(name string) (rp.DeliveryState, error) {
	s, err := o.child(name, stateKeys, nil)
	if err != nil {
		return rp.DeliveryState{}, err
	}
	return rp.DeliveryState{
		EventID:              s.str("event_id"),
		EndpointID:           s.str("endpoint_id"),
		Attempt:              s.u32("attempt"),
		MaxAttempts:          s.u32("max_attempts"),
		FirstAttemptedAtMs:   s.u64("first_attempted_at_ms"),
		CredentialsRefreshed: s.boolean("credentials_refreshed"),
	}, nil
}

// outcome: exactly one of status (with optional retry_after_ms) or error_kind.
func (o *obj) outcome(name string) (rp.AttemptOutcome, error) {
	var probe map[string]any
	_ = jsonUnmarshal(o.raw(name), &probe)
	if _, isStatus := probe["status"]; isStatus {
		r, err := o.child(name, []string{"status"}, []string{"retry_after_ms"})
		if err != nil {
			return rp.AttemptOutcome{}, err
		}
		resp := &rp.HTTPResponse{Status: r.status("status")}
		if r.has("retry_after_ms") && !r.isNull("retry_after_ms") { // null: absent, as in every host
			v := r.u64("retry_after_ms")
			resp.RetryAfterMs = &v
		}
		return rp.AttemptOutcome{Response: resp}, nil
	}
	e, err := o.child(name, []string{"error_kind"}, nil)
	if err != nil {
		return rp.AttemptOutcome{}, err
	}
	return rp.TransportErrorOutcome(e.str("error_kind")), nil
}

func (o *obj) bucket(name string) (rp.BucketCounts, error) {
	c, err := o.child(name, countKeys, nil)
	if err != nil {
		return rp.BucketCounts{}, err
	}
	return rp.BucketCounts{Total: c.u64("total"), Retries: c.u64("retries")}, nil
}

// counts: {current, previous}, or null (the store could not be read).
func (o *obj) counts(name string) (*rp.BudgetCounts, error) {
	if o.isNull(name) {
		return nil, nil
	}
	c, err := o.child(name, []string{"current", "previous"}, nil)
	if err != nil {
		return nil, err
	}
	var out rp.BudgetCounts
	if out.Current, err = c.bucket("current"); err != nil {
		return nil, err
	}
	out.Previous, err = c.bucket("previous")
	return &out, err
}

// reply: {"unavailable": true} or {"reserved": bool, "counts": {current, previous}}.
func (o *obj) reply(name string) (rp.StoreReply, error) {
	var probe map[string]any
	_ = jsonUnmarshal(o.raw(name), &probe)
	if _, ok := probe["unavailable"]; ok {
		r, err := o.child(name, []string{"unavailable"}, nil)
		if err != nil {
			return rp.StoreReply{}, err
		}
		if !r.boolean("unavailable") {
			r.bad("unavailable", "must be true")
		}
		return rp.StoreReply{Unavailable: true}, nil
	}
	r, err := o.child(name, []string{"reserved", "counts"}, nil)
	if err != nil {
		return rp.StoreReply{}, err
	}
	res := rp.Reservation{Reserved: r.boolean("reserved")}
	counts, err := r.counts("counts")
	if err != nil {
		return rp.StoreReply{}, err
	}
	if counts == nil {
		r.bad("counts", "expected an object")
	} else {
		res.Counts = *counts
	}
	return rp.StoreReply{Answered: &res}, nil
}
