package main

import (
	"context"
	"fmt"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/endpointhealth"
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
	deadline := r.Admission.FirstAttemptedAtMs + r.Policy.WindowMs
	verdict, err := d.health.Gate(ctx, d.steps(), c, ev, r.Policy.Budget, deadline, now)
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
		if done, err := d.wake(ctx, c, r, ev, probe, now); done || err != nil {
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

// steps are the shared gate/wake steps with this dispatcher's store and metrics.
func (d *Dispatcher) steps() endpointhealth.Steps {
	return endpointhealth.Steps{Engine: d.cfg.Engine, Calls: d.calls, OnWake: d.cfg.Metrics.WakeCalled,
		OnProbe: func(granted bool, err error) {
			d.cfg.Metrics.ProbeCalled(granted, err)
			if err != nil {
				d.cfg.Metrics.log.Printf("probe call failed: %v", err)
			}
		}}
}

// wake is step 3: the reserve call and settle-wake, and after a granted
// one (not for the granted probe) the second gate on the reply's view.
// done: r was held again or dead-lettered.
func (d *Dispatcher) wake(ctx context.Context, c *rp.Compiled, r *Record, ev rp.GateEvent, probe bool, now uint64) (done bool, err error) {
	w := rp.Wake{EventID: r.Event.ID, EndpointID: r.Event.EndpointID, Attempts: r.Attempts,
		FirstAttemptedAtMs: r.Admission.FirstAttemptedAtMs, Refusals: r.WakeRefusals}
	v, view, err := d.health.Wake(ctx, d.steps(), c, w, now)
	if err != nil {
		return true, err
	}
	switch {
	case v.Send:
		r.NeedsReserve, r.WakeRefusals = false, 0 // the reservation stands
		if probe {
			return false, nil
		}
		h, err := d.health.Regate(ctx, d.steps(), c, ev, view, r.Policy.Budget, now)
		if err != nil || h == nil {
			return err != nil, err
		}
		return true, d.hold(r, h.UntilMs, h.Reason, now)
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
			_, _ = d.health.Call(ctx, d.steps(), r.Event.EndpointID, *call, now)
		}
		verdict = rp.Verdict{Retry: adv.Decided.Decision.Retry, Stop: adv.Decided.Decision.Stop}
	case adv.NeedsStore != nil:
		reply, callErr := d.health.Call(ctx, d.steps(), r.Event.EndpointID, *adv.NeedsStore, now)
		if callErr != nil {
			d.cfg.Metrics.log.Printf("budget store %s failed for endpoint %s: %v", adv.NeedsStore.Op, r.Event.EndpointID, callErr)
		}
		fin, err := c.Finish(ctx, state, outcome, now, endpointhealth.StoreReplyOf(reply, callErr))
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
	d.health.Admit(r.Event.EndpointID, r.Admission.FirstAttemptedAtMs, r.Policy.Budget.WindowMs)
}
