package endpointhealth

import (
	"context"
	"fmt"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The steps of docs/health-dispatch.md section 2 that read or write the
// table, shared by the dispatcher and the fleet replica: every decision
// is the component's (normal-per-s, gate, call-for, after-probe,
// settle-wake); these functions move values between it, the store and
// the table.

// Steps is what those steps need besides the table.
type Steps struct {
	Engine *rp.Engine
	Calls  rp.CallStore
	// OnProbe counts a probe call (granted, or its error); OnWake a wake's
	// reserve call. Either may be nil.
	OnProbe func(granted bool, err error)
	OnWake  func()
}

// Call makes a store call for endpoint and keeps its reply's view.
func (t *Table) Call(ctx context.Context, s Steps, endpoint string, call rp.StoreCall, nowMs uint64) (rp.CallReply, error) {
	reply, err := s.Calls.Call(ctx, call, nowMs)
	if err == nil && reply.View != nil {
		e := t.Entry(endpoint)
		e.Lock()
		e.KeepView(reply.View)
		e.Unlock()
	}
	return reply, err
}

// StoreReplyOf is what finish and settle-wake take for a call's result:
// unavailable when it failed (or carried no reservation).
func StoreReplyOf(reply rp.CallReply, err error) rp.StoreReply {
	if err != nil || reply.Reservation == nil {
		return rp.StoreReply{Unavailable: true}
	}
	res := *reply.Reservation
	return rp.StoreReply{Answered: &res}
}

// Gate is steps 1-2 under the endpoint's lock: the pacer's rate
// (normal-per-s of the admissions in budget's buckets), gate, and when it
// asks, the probe call and after-probe. The verdict is never probe: a
// second probe is read as refused, held until nowMs + probe_interval_ms
// capped by deadlineMs.
func (t *Table) Gate(ctx context.Context, s Steps, c *rp.Compiled, ev rp.GateEvent, budget rp.Budget, deadlineMs, nowMs uint64) (rp.GateVerdict, error) {
	e := t.Entry(ev.EndpointID)
	e.Lock()
	defer e.Unlock()
	cur, prev := e.Admissions(nowMs, budget.WindowMs)
	rate, err := s.Engine.NormalPerS(ctx, budget, nowMs, cur, prev)
	if err != nil {
		return rp.GateVerdict{}, err
	}
	e.Pacer.NormalPerS = rate
	given := e.View
	answer, err := c.Gate(ctx, ev, given, e.Pacer, nowMs)
	if err != nil {
		return rp.GateVerdict{}, err
	}
	e.Pacer = answer.Pacer
	if !answer.Verdict.Probe {
		return answer.Verdict, nil
	}
	call, err := c.CallFor(ctx, rp.CallOpProbe, ev.EndpointID, nowMs)
	if err != nil {
		return rp.GateVerdict{}, err
	}
	reply, callErr := s.Calls.Call(ctx, call, nowMs)
	granted, view := false, rp.HealthView{}
	if given != nil {
		view = *given // a store that did not answer never grants: after-probe sees the gate's view
	}
	if callErr == nil && reply.Granted != nil && reply.View != nil {
		granted, view = *reply.Granted, *reply.View
		e.KeepView(reply.View)
	} else if callErr == nil {
		callErr = fmt.Errorf("endpointhealth: a probe reply without granted or a view: %+v", reply)
	}
	if s.OnProbe != nil {
		s.OnProbe(granted, callErr)
	}
	answer, err = c.AfterProbe(ctx, ev, granted, view, e.Pacer, nowMs)
	if err != nil {
		return rp.GateVerdict{}, err
	}
	e.Pacer = answer.Pacer
	if answer.Verdict.Probe { // cannot happen (section 2): refused
		until := nowMs + 1
		if ci := c.Health(); ci != nil && ci.Circuit != nil {
			until = nowMs + ci.Circuit.ProbeIntervalMs
		}
		return rp.GateVerdict{Hold: &rp.Hold{UntilMs: min(until, deadlineMs), Reason: rp.HoldReasonProbeRefused}}, nil
	}
	return answer.Verdict, nil
}

// Wake is step 3: a budget-held event's reserve call and settle-wake.
func (t *Table) Wake(ctx context.Context, s Steps, c *rp.Compiled, w rp.Wake, nowMs uint64) (rp.WakeVerdict, error) {
	call, err := c.CallFor(ctx, rp.CallOpReserve, w.EndpointID, nowMs)
	if err != nil {
		return rp.WakeVerdict{}, err
	}
	reply, callErr := t.Call(ctx, s, w.EndpointID, call, nowMs)
	if s.OnWake != nil {
		s.OnWake()
	}
	return c.SettleWake(ctx, w, StoreReplyOf(reply, callErr), nowMs)
}

// Admit counts a new event (first attempt; not a replay) for endpoint.
func (t *Table) Admit(endpoint string, nowMs, windowMs uint64) {
	e := t.Entry(endpoint)
	e.Lock()
	e.Admit(nowMs, windowMs)
	e.Unlock()
}
