package vectors

import (
	"context"
	"errors"
	"strings"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Decoders of the format-3 inputs (docs/health.md section 7), strict like
// the format-2 ones: unknown and missing keys are broken vectors.

// sectionClass is the class the section decoder wraps a section with.
const sectionClass = `{"window_ms": 60000, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 8000}}`

// section reads a health section (null: none) by the document reader's
// rules, defaults included, through the component: it is handed to
// load-health-document as a document's top-level section, whose only
// class takes it. An invalid section is the reader's invalid_document at
// name's path.
func (o *obj) section(ctx context.Context, e *rp.Engine, name string) (*rp.Health, error) {
	if o.m == nil || o.isNull(name) {
		return nil, nil
	}
	doc := `{"version": "vectors", "health": ` + string(o.raw(name)) + `, "classes": {"c": ` + sectionClass + `}}`
	d, err := e.LoadHealthDocument(ctx, []byte(doc))
	var pe *rp.PolicyError
	switch {
	case errors.As(err, &pe):
		at := *pe
		if rest, ok := strings.CutPrefix(at.Field, "health"); ok {
			at.Field = o.field(name) + rest
		}
		o.d.fail(&at)
		return nil, nil
	case err != nil:
		return nil, err
	case len(d.Classes) != 1 || d.Classes[0].Health == nil:
		return nil, broken("the section %s did not reach its class", o.field(name))
	}
	return d.Classes[0].Health, nil
}

func (o *obj) view(name string) (rp.HealthView, error) {
	v, err := o.child(name, []string{"paused_until_ms", "opened_at_ms", "cooldown_ms", "closed_at_ms", "as_of_ms"}, nil)
	if err != nil {
		return rp.HealthView{}, err
	}
	return rp.HealthView{
		PausedUntilMs: v.u64("paused_until_ms"),
		OpenedAtMs:    v.u64("opened_at_ms"),
		CooldownMs:    v.u64("cooldown_ms"),
		ClosedAtMs:    v.u64("closed_at_ms"),
		AsOfMs:        v.u64("as_of_ms"),
	}, nil
}

func (o *obj) pacer(name string) (rp.Pacer, error) {
	p, err := o.child(name, []string{"tokens", "updated_ms", "normal_per_s"}, nil)
	if err != nil {
		return rp.Pacer{}, err
	}
	return rp.Pacer{Tokens: p.f64("tokens"), UpdatedMs: p.u64("updated_ms"), NormalPerS: p.f64("normal_per_s")}, nil
}

func (o *obj) release(name string) (rp.Release, error) {
	r, err := o.child(name, []string{"multiple", "floor_per_s"}, nil)
	if err != nil {
		return rp.Release{}, err
	}
	return rp.Release{Multiple: r.f64("multiple"), FloorPerS: r.f64("floor_per_s")}, nil
}

func (o *obj) gateEvent(name string) (rp.GateEvent, error) {
	g, err := o.child(name, []string{"event_id", "endpoint_id", "attempts", "first_attempted_at_ms", "held", "held_ms"}, nil)
	if err != nil {
		return rp.GateEvent{}, err
	}
	return rp.GateEvent{
		EventID:            g.str("event_id"),
		EndpointID:         g.str("endpoint_id"),
		Attempts:           g.u32("attempts"),
		FirstAttemptedAtMs: g.u64("first_attempted_at_ms"),
		Held:               g.boolean("held"),
		HeldMs:             g.u64("held_ms"),
	}, nil
}

func (o *obj) wake(name string) (rp.Wake, error) {
	w, err := o.child(name, []string{"event_id", "endpoint_id", "attempts", "first_attempted_at_ms", "refusals"}, nil)
	if err != nil {
		return rp.Wake{}, err
	}
	return rp.Wake{
		EventID:            w.str("event_id"),
		EndpointID:         w.str("endpoint_id"),
		Attempts:           w.u32("attempts"),
		FirstAttemptedAtMs: w.u64("first_attempted_at_ms"),
		Refusals:           w.u32("refusals"),
	}, nil
}

func (o *obj) held(name string) (rp.HeldHealth, error) {
	h, err := o.child(name, []string{"buckets", "health"}, nil)
	if err != nil {
		return rp.HeldHealth{}, err
	}
	b, err := h.child("buckets", []string{"bucket", "current", "previous"}, nil)
	if err != nil {
		return rp.HeldHealth{}, err
	}
	out := rp.HeldHealth{Buckets: rp.HeldBuckets{Bucket: b.u64("bucket")}}
	if out.Buckets.Current, err = b.bucket("current"); err != nil {
		return out, err
	}
	if out.Buckets.Previous, err = b.bucket("previous"); err != nil {
		return out, err
	}
	keys := []string{"failures", "paused_until_ms", "opened_at_ms", "cooldown_ms", "probe_window", "probes_granted", "closed_at_ms"}
	s, err := h.child("health", keys, nil)
	if err != nil {
		return out, err
	}
	f, err := s.child("failures", []string{"bucket", "current", "previous"}, nil)
	if err != nil {
		return out, err
	}
	out.Health = rp.HealthState{
		Failures:      rp.FailureBuckets{Bucket: f.u64("bucket"), Current: f.u64("current"), Previous: f.u64("previous")},
		PausedUntilMs: s.u64("paused_until_ms"),
		OpenedAtMs:    s.u64("opened_at_ms"),
		CooldownMs:    s.u64("cooldown_ms"),
		ProbeWindow:   s.u64("probe_window"),
		ProbesGranted: s.u32("probes_granted"),
		ClosedAtMs:    s.u64("closed_at_ms"),
	}
	return out, nil
}

// storeCall is an apply case's request {op, bucket, outcome,
// pause_until_ms, probe} as the complete call apply-call takes: the
// section's circuit and the budget travel with it (key and endpoint are
// not read by apply-call).
func (o *obj) storeCall(name string, section *rp.Health, b rp.Budget) (rp.StoreCall, error) {
	r, err := o.child(name, []string{"op", "bucket", "outcome", "pause_until_ms", "probe"}, nil)
	if err != nil {
		return rp.StoreCall{}, err
	}
	call := rp.StoreCall{Bucket: r.u64("bucket"), Budget: b}
	hc := &rp.HealthCall{PauseUntilMs: r.u64("pause_until_ms"), Probe: r.boolean("probe"), Circuit: section.Circuit}
	call.Health = hc
	if r.m != nil {
		op, ok := rp.ParseCallOp(r.str("op"))
		if !ok {
			r.bad("op", "expected one of: record, reserve, record_reserve, report, probe")
		}
		call.Op = op
		outcome, ok := rp.ParseHealthOutcome(r.str("outcome"))
		if !ok {
			r.bad("outcome", "expected success, failure or none")
		}
		hc.Outcome = outcome
	}
	return call, nil
}

// calls is a list field's raw items.
func (o *obj) list(name string) ([]jsonRaw, error) {
	var items []jsonRaw
	if err := jsonUnmarshal(o.raw(name), &items); err != nil {
		return nil, broken("%s must be a list", o.field(name))
	}
	return items, nil
}
