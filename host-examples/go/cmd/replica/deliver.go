package main

import (
	"context"
	"errors"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// windowEdge is the first instant (ms, the replica's clock) at which no
// attempt of an event may start: first_attempt_ms + window_ms.
func windowEdge(state rp.DeliveryState, policy rp.Policy) uint64 {
	return state.FirstAttemptedAtMs + policy.WindowMs
}

// mayStartBy reports whether an attempt may still be written at nowMs: the
// window's edge is re-checked immediately before the request is written
// (after the wait, the store call and the DNS lookup; docs/replica.md).
func mayStartBy(edgeMs uint64, nowMs func() uint64) func() bool {
	return func() bool { return nowMs() < edgeMs }
}

// deliver makes the attempts of one admitted event until the policy stops
// it or the drain leaves it pending: after each attempt one step
// (evaluate, at most one store call, settle).
func (r *replica) deliver(ctx context.Context, eventID string) {
	r.events.Add(1)
	// the event keeps the document (and class policy) it was admitted
	// under, whatever a later artifact swap brings
	doc := r.docs.Current()
	policy, ok := classPolicy(doc, r.cfg.Class)
	admission, err := r.engine.Admit(ctx, doc, r.cfg.Class, r.nowMs())
	if err != nil || !ok { // the class was admitted at start; a trap, or a swapped-in document without it
		r.logf("admit %s: class %q: %v", eventID, r.cfg.Class, err)
		r.stop(rp.StopReasonBudgetUnavailable)
		return
	}
	state := rp.DeliveryState{EventID: eventID, EndpointID: r.cfg.EndpointID,
		MaxAttempts: admission.Schedule.MaxAttempts, FirstAttemptedAtMs: admission.FirstAttemptedAtMs}
	edge := mayStartBy(windowEdge(state, policy), r.nowMs)
	for {
		if r.drain.stopped() { // no new attempt once the drain began
			r.pending.Add(1)
			return
		}
		if !edge() {
			r.stop(rp.StopReasonRetryWindowElapsed)
			return
		}
		inFlight := r.metrics.InFlight()
		outcome, err := post(safehttp.WithSendGate(r.drain.attempts, edge), r.engine, r.client, r.cfg.Target,
			eventID, state.Attempt+1, r.nowMs)
		inFlight()
		if errors.Is(err, safehttp.ErrNotSent) { // past the window's edge when it was to be written
			r.stop(rp.StopReasonRetryWindowElapsed)
			return
		}
		state.Attempt++
		if state.Attempt == 1 {
			r.firstAttempts.Add(1)
		} else {
			r.retries.Add(1)
		}
		r.metrics.AttemptStarted(state.Attempt)
		if r.drain.abandoned() { // still running at the drain deadline: made, not settled
			r.pending.Add(1)
			return
		}
		if err != nil { // a trap reading the Retry-After: the outcome without it
			r.logf("retry-after %s: %v", eventID, err)
			outcome = httpoutcome.Failed(httpoutcome.RemoteProtocolError)
		}
		r.metrics.AttemptEnded(outcome)
		if k, ok := httpoutcome.KindOf(outcome); ok {
			r.transport.add(k)
			if k == httpoutcome.DestinationRefused {
				r.refused.Add(1)
			}
		}
		res, err := r.engine.Step(ctx, r.budget.store, policy, state, outcome, r.nowMs())
		if err != nil { // not a policy answer (a trap, a cancelled context): stop, closed
			r.stepErrors.Add(1)
			r.logf("step %s: %v", eventID, err)
			r.stop(rp.StopReasonBudgetUnavailable)
			return
		}
		r.metrics.Stepped(res)
		if res.StoreErr != nil {
			r.storeErrors.Add(1)
			r.logf("budget store %s for %s: %v", res.Store.Op, eventID, res.StoreErr)
		}
		if res.BudgetDisagreement {
			r.disagreements.Add(1)
		}
		d := res.Decision
		if d.Retry == nil {
			r.stop(d.Stop.Reason)
			return
		}
		state.CredentialsRefreshed = state.CredentialsRefreshed || d.Retry.RefreshCredentials
		select {
		case <-time.After(d.Retry.Delay()):
		case <-r.drain.stopping: // the loop's check leaves it pending
		case <-ctx.Done():
			r.pending.Add(1)
			return
		}
	}
}

// stop counts an event's stop reason.
func (r *replica) stop(reason rp.StopReason) {
	r.stops[reason].Add(1)
	r.metrics.Stopped(reason)
}
