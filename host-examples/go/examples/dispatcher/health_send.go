package main

import (
	"context"
	"fmt"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The send loop of a class with health (docs/health-dispatch.md section
// 2). Every rule is the component's (gate, after-probe, call-for,
// settle-wake, advance, finish, normal-per-s); this file moves values
// between them, the endpoint table and the journal.

// attemptHealth runs r at one due instant: leave its hold, resume, gate
// (probe), the wake's reserve, send, advance/finish.
func (d *Dispatcher) attemptHealth(ctx context.Context, r *Record, state rp.DeliveryState) error {
	c, err := d.compiled(ctx, r.Policy, r.Health)
	if err != nil {
		return err
	}
	now := d.cfg.Clock.NowMs()
	held := r.State == StateHeld || (r.ReplayOf != "" && r.Attempts == 0)
	if r.State == StateHeld { // leaving the hold: its span joins held_ms (section 3)
		r.HeldMs += now - min(now, r.HeldSinceMs)
		r.State, r.HoldReason, r.HeldSinceMs, r.HeldUntilMs = StatePending, "", 0, 0
	}
	resumed, err := d.cfg.Engine.Resume(ctx, r.Policy, state, now)
	if err != nil {
		return err
	}
	if resumed.Stop != nil {
		return d.deadLetter(r, resumed.Stop)
	}
	ev := rp.GateEvent{EventID: r.Event.ID, EndpointID: r.Event.EndpointID, Attempts: r.Attempts,
		FirstAttemptedAtMs: r.Admission.FirstAttemptedAtMs, Held: held, HeldMs: r.HeldMs}
	verdict, err := d.gate(ctx, c, r, ev, now)
	if err != nil {
		return err
	}
	switch {
	case verdict.Stop != nil:
		dl := verdict.Stop.DeadLetter
		r.HeldMs = verdict.Stop.HeldMs
		return d.deadLetter(r, &rp.Stop{Reason: dl.StopReason, DeadLetter: &dl})
	case verdict.Hold != nil:
		return d.hold(r, verdict.Hold.UntilMs, verdict.Hold.Reason, now)
	}
	probe := verdict.SendProbe
	if r.NeedsReserve { // step 3: a budget-held event's wake makes its reserve first
		if done, err := d.wake(ctx, c, r, now); done || err != nil {
			return err
		}
	}
	outcome, finished, err := d.send(ctx, r)
	if finished || err != nil {
		return err
	}
	state.Attempt = r.Attempts
	return d.advance(ctx, c, r, state, outcome, probe)
}

// gate is steps 1-2 under the endpoint's lock: the pacer's rate set,
// gate, and for probe the probe call and after-probe. The answer's
// verdict is never probe.
func (d *Dispatcher) gate(ctx context.Context, c *rp.Compiled, r *Record, ev rp.GateEvent, now uint64) (rp.GateVerdict, error) {
	e := d.health.Entry(r.Event.EndpointID)
	e.Lock()
	defer e.Unlock()
	budget := r.Policy.Budget
	cur, prev := e.Admissions(now, budget.WindowMs)
	rate, err := d.cfg.Engine.NormalPerS(ctx, budget, now, cur, prev)
	if err != nil {
		return rp.GateVerdict{}, err
	}
	e.Pacer.NormalPerS = rate
	given := e.View
	answer, err := c.Gate(ctx, ev, given, e.Pacer, now)
	if err != nil {
		return rp.GateVerdict{}, err
	}
	e.Pacer = answer.Pacer
	if !answer.Verdict.Probe {
		return answer.Verdict, nil
	}
	call, err := c.CallFor(ctx, rp.CallOpProbe, r.Event.EndpointID, now)
	if err != nil {
		return rp.GateVerdict{}, err
	}
	reply, callErr := d.calls.Call(ctx, call, now)
	granted, view := false, rp.HealthView{}
	if given != nil {
		view = *given // a store that did not answer never grants: after-probe sees the gate's view
	}
	if callErr == nil && reply.Granted != nil && reply.View != nil {
		granted, view = *reply.Granted, *reply.View
		e.KeepView(reply.View)
	} else if callErr == nil {
		callErr = fmt.Errorf("a probe reply without granted or a view: %+v", reply)
	}
	d.cfg.Metrics.ProbeCalled(granted, callErr)
	if callErr != nil {
		d.cfg.Metrics.log.Printf("probe call for endpoint %s failed: %v", r.Event.EndpointID, callErr)
	}
	answer, err = c.AfterProbe(ctx, ev, granted, view, e.Pacer, now)
	if err != nil {
		return rp.GateVerdict{}, err
	}
	e.Pacer = answer.Pacer
	if answer.Verdict.Probe { // cannot happen: treated as refused (section 2)
		until := now + 1
		if ci := c.Health().Circuit; ci != nil {
			until = now + ci.ProbeIntervalMs
		}
		deadline := r.Admission.FirstAttemptedAtMs + r.Policy.WindowMs
		return rp.GateVerdict{Hold: &rp.Hold{UntilMs: min(until, deadline), Reason: rp.HoldReasonProbeRefused}}, nil
	}
	return answer.Verdict, nil
}

// keepView keeps a store reply's view for its endpoint.
func (d *Dispatcher) keepView(endpoint string, reply rp.CallReply, err error) {
	if err != nil || reply.View == nil {
		return
	}
	e := d.health.Entry(endpoint)
	e.Lock()
	e.KeepView(reply.View)
	e.Unlock()
}

// storeReply is what finish and settle-wake take for a call's result.
func storeReply(reply rp.CallReply, err error) rp.StoreReply {
	if err != nil || reply.Reservation == nil {
		return rp.StoreReply{Unavailable: true}
	}
	res := *reply.Reservation
	return rp.StoreReply{Answered: &res}
}

// wake is step 3: the reserve call and settle-wake. done: r was held
// again or dead-lettered.
func (d *Dispatcher) wake(ctx context.Context, c *rp.Compiled, r *Record, now uint64) (done bool, err error) {
	call, err := c.CallFor(ctx, rp.CallOpReserve, r.Event.EndpointID, now)
	if err != nil {
		return true, err
	}
	reply, callErr := d.calls.Call(ctx, call, now)
	d.cfg.Metrics.WakeCalled()
	d.keepView(r.Event.EndpointID, reply, callErr)
	w := rp.Wake{EventID: r.Event.ID, EndpointID: r.Event.EndpointID, Attempts: r.Attempts,
		FirstAttemptedAtMs: r.Admission.FirstAttemptedAtMs, Refusals: r.WakeRefusals}
	v, err := c.SettleWake(ctx, w, storeReply(reply, callErr), now)
	if err != nil {
		return true, err
	}
	switch {
	case v.Send:
		r.NeedsReserve, r.WakeRefusals = false, 0
		return false, nil
	case v.Hold != nil:
		r.WakeRefusals = v.Hold.Refusals
		return true, d.hold(r, v.Hold.UntilMs, rp.HoldReasonBudgetRefused, now)
	case v.Stop != nil:
		dl := *v.Stop
		return true, d.deadLetter(r, &rp.Stop{Reason: dl.StopReason, DeadLetter: &dl})
	}
	return true, fmt.Errorf("settle-wake answered no case: %+v", v)
}

// advance is step 4 after the attempt: advance, its call, finish.
func (d *Dispatcher) advance(ctx context.Context, c *rp.Compiled, r *Record, state rp.DeliveryState, outcome rp.AttemptOutcome, probe bool) error {
	now := d.cfg.Clock.NowMs()
	adv, err := c.Advance(ctx, state, outcome, probe, now)
	if err != nil {
		return err // not saved: the attempt is made again on the next step
	}
	var verdict rp.Verdict
	switch {
	case adv.Decided != nil:
		if call := adv.Decided.Call; call != nil { // record or report: its reply changes no decision, only the view
			reply, err := d.calls.Call(ctx, *call, now)
			d.keepView(r.Event.EndpointID, reply, err)
		}
		verdict = rp.Verdict{Retry: adv.Decided.Decision.Retry, Stop: adv.Decided.Decision.Stop}
	case adv.NeedsStore != nil:
		reply, callErr := d.calls.Call(ctx, *adv.NeedsStore, now)
		d.keepView(r.Event.EndpointID, reply, callErr)
		if callErr != nil {
			d.cfg.Metrics.log.Printf("budget store %s failed for endpoint %s: %v", adv.NeedsStore.Op, r.Event.EndpointID, callErr)
		}
		fin, err := c.Finish(ctx, state, outcome, now, storeReply(reply, callErr))
		if err != nil {
			return err
		}
		if fin.BudgetDisagreement {
			d.cfg.Metrics.Stepped(rp.StepResult{BudgetDisagreement: true})
		}
		verdict = fin.Verdict
	default:
		return fmt.Errorf("advance answered no case: %+v", adv)
	}
	switch {
	case verdict.Retry != nil:
		r.NextAttemptAtMs = now + verdict.Retry.DelayMs
		r.CredentialsRefreshed = r.CredentialsRefreshed || verdict.Retry.RefreshCredentials
		r.ReloadSecrets = verdict.Retry.RefreshCredentials
		return d.cfg.Store.Save(r)
	case verdict.Hold != nil:
		r.CredentialsRefreshed = r.CredentialsRefreshed || verdict.Hold.RefreshCredentials
		r.ReloadSecrets = verdict.Hold.RefreshCredentials
		r.NeedsReserve, r.WakeRefusals = true, 0
		return d.hold(r, verdict.Hold.UntilMs, rp.HoldReasonBudgetRefused, now)
	case verdict.Stop != nil && verdict.Stop.Reason == rp.StopReasonDelivered:
		r.State, r.FinishedAtMs = StateDelivered, now
		d.cfg.Metrics.Stopped(rp.StopReasonDelivered)
		return d.cfg.Store.Save(r)
	case verdict.Stop != nil:
		return d.deadLetter(r, verdict.Stop)
	}
	return fmt.Errorf("no verdict: %+v", verdict)
}

// hold journals r as held until untilMs (before it counts as held:
// section 3), then counts the hold.
func (d *Dispatcher) hold(r *Record, untilMs uint64, reason rp.HoldReason, now uint64) error {
	r.State, r.HoldReason, r.HeldUntilMs, r.HeldSinceMs, r.NextAttemptAtMs = StateHeld, reason.String(), untilMs, now, untilMs
	if err := d.cfg.Store.Save(r); err != nil {
		return err
	}
	d.cfg.Metrics.HoldStarted(reason)
	return nil
}

// admitted counts a new event (not a replay) for its endpoint's pacer.
func (d *Dispatcher) admitted(r *Record) {
	if r.Health == nil || r.ReplayOf != "" {
		return
	}
	e := d.health.Entry(r.Event.EndpointID)
	e.Lock()
	e.Admit(r.Admission.FirstAttemptedAtMs, r.Policy.Budget.WindowMs)
	e.Unlock()
}
