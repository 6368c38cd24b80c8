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
	granted, view := false, rp.HealthView{}
	if given != nil {
		view = *given // no call, or a store that did not answer: never granted, after-probe sees the gate's view
	}
	if nowMs >= e.ProbeBusyUntilMs { // else another event's probe call had this window: no call
		call, err := c.CallFor(ctx, rp.CallOpProbe, ev.EndpointID, nowMs)
		if err != nil {
			return rp.GateVerdict{}, err
		}
		reply, callErr := s.Calls.Call(ctx, call, nowMs)
		if callErr == nil && (reply.Granted == nil || reply.View == nil) {
			callErr = fmt.Errorf("endpointhealth: a probe reply without granted or a view: %+v", reply)
		}
		if callErr == nil {
			granted, view = *reply.Granted, *reply.View
			e.KeepView(reply.View)
			// the busy window: after-probe's hold, refused, on the reply's view
			busy, err := c.AfterProbe(ctx, ev, false, view, e.Pacer, nowMs)
			if err != nil {
				return rp.GateVerdict{}, err
			}
			e.ProbeBusyUntilMs = 0
			if h := busy.Verdict.Hold; h != nil {
				e.ProbeBusyUntilMs = h.UntilMs
			}
		}
		if s.OnProbe != nil {
			s.OnProbe(granted, callErr)
		}
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

// Wake is step 3: a budget-held event's reserve call and settle-wake,
// and the reply's view (nil when the call failed).
func (t *Table) Wake(ctx context.Context, s Steps, c *rp.Compiled, w rp.Wake, nowMs uint64) (rp.WakeVerdict, *rp.HealthView, error) {
	call, err := c.CallFor(ctx, rp.CallOpReserve, w.EndpointID, nowMs)
	if err != nil {
		return rp.WakeVerdict{}, nil, err
	}
	reply, callErr := t.Call(ctx, s, w.EndpointID, call, nowMs)
	if s.OnWake != nil {
		s.OnWake()
	}
	v, err := c.SettleWake(ctx, w, StoreReplyOf(reply, callErr), nowMs)
	if callErr != nil {
		return v, nil, err
	}
	return v, reply.View, err
}

// Regate is step 3's second gate after a granted wake (draft 3 item 2):
// gate on the reserve reply's view with held false (the release token was
// spent at step 2), keeping the pacer it returns. Only its hold counts:
// hold keeping the reservation; anything else goes on to the send.
func (t *Table) Regate(ctx context.Context, s Steps, c *rp.Compiled, ev rp.GateEvent, view *rp.HealthView, budget rp.Budget, nowMs uint64) (*rp.Hold, error) {
	e := t.Entry(ev.EndpointID)
	e.Lock()
	defer e.Unlock()
	cur, prev := e.Admissions(nowMs, budget.WindowMs)
	rate, err := s.Engine.NormalPerS(ctx, budget, nowMs, cur, prev)
	if err != nil {
		return nil, err
	}
	e.Pacer.NormalPerS = rate
	if view == nil {
		view = e.View
	}
	ev.Held = false
	answer, err := c.Gate(ctx, ev, view, e.Pacer, nowMs)
	if err != nil {
		return nil, err
	}
	e.Pacer = answer.Pacer
	return answer.Verdict.Hold, nil
}

// Admit counts a new event (first attempt; not a replay) for endpoint.
func (t *Table) Admit(endpoint string, nowMs, windowMs uint64) {
	e := t.Entry(endpoint)
	e.Lock()
	e.Admit(nowMs, windowMs)
	e.Unlock()
}
