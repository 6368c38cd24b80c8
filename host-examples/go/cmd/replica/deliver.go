package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
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

// deliver admits a new event under the current document and makes its
// attempts (journaled with --store: the admission before the first attempt).
func (r *replica) deliver(ctx context.Context, eventID string) {
	r.events.Add(1)
	if cl, version := r.fmt3.classNow(r.engine, r.cfg.Class); cl != nil {
		r.deliverHealth(ctx, eventID, cl, version)
		return
	}
	// the event keeps the document (and class policy) it was admitted
	// under, whatever a later artifact swap brings
	doc := r.docs.Current()
	policy, ok := classPolicy(doc, r.cfg.Class)
	admission, err := r.engine.AdmitClass(ctx, doc, r.cfg.Class, r.nowMs())
	if err != nil || !ok { // the class was admitted at start; a trap, or a swapped-in document without it
		r.logf("admit %s: class %q: %v", eventID, r.cfg.Class, err)
		r.stop(rp.StopReasonBudgetUnavailable)
		return
	}
	rec := journal.Admission(eventID, r.cfg.EndpointID, r.cfg.Target, policy, admission)
	r.persist(&rec)
	r.attempts(ctx, &rec)
}

// resume continues a journaled pending event under the policy it was
// admitted with: it waits for its next_attempt_at_ms (a drain leaves it
// pending), the component's resume judges it (a stop is dead-lettered
// without a request), then its attempts go on.
func (r *replica) resume(ctx context.Context, rec journal.Record) {
	r.events.Add(1)
	if rec.Health != nil || rec.Status == journal.StatusHeld {
		r.resumeHealth(ctx, rec)
		return
	}
	if now := r.nowMs(); rec.NextAttemptAtMs > now {
		select {
		case <-time.After(time.Duration(rec.NextAttemptAtMs-now) * time.Millisecond):
		case <-r.drain.stopping:
		case <-ctx.Done():
		}
	}
	if r.drain.stopped() || ctx.Err() != nil {
		r.pending.Add(1)
		return
	}
	res, err := r.engine.Resume(ctx, rec.Policy, rec.State(rec.Attempts), r.nowMs())
	if err != nil { // not a policy answer (a trap): stop, closed
		r.stepErrors.Add(1)
		r.logf("resume %s: %v", rec.EventID, err)
		r.finish(&rec, rp.Stop{Reason: rp.StopReasonBudgetUnavailable})
		return
	}
	if res.Stop != nil {
		r.finish(&rec, *res.Stop)
		return
	}
	r.attempts(ctx, &rec)
}

// body is the payload of the record's attempt n: its body_b64 when it has
// one, else derived from the event.
func body(rec *journal.Record, n uint32) []byte {
	if b, ok, _ := rec.Body(); ok { // checked when read
		return b
	}
	return fmt.Appendf(nil, `{"event_id":%q,"attempt":%d}`, rec.EventID, n)
}

// attempts makes the attempts of an admitted event under its own policy
// until the policy stops it or the drain leaves it pending: after each
// attempt one step (evaluate, at most one store call, settle), the
// decision journaled before the wait.
func (r *replica) attempts(ctx context.Context, rec *journal.Record) {
	edge := mayStartBy(windowEdge(rec.State(0), rec.Policy), r.nowMs)
	for {
		if r.drain.stopped() { // no new attempt once the drain began: pending (its record says so)
			r.pending.Add(1)
			return
		}
		if !edge() {
			r.finish(rec, rp.Stop{Reason: rp.StopReasonRetryWindowElapsed})
			return
		}
		outcome, sent := r.send(rec, edge)
		if !sent {
			return
		}
		n := rec.Attempts
		res, err := r.engine.Step(ctx, r.budget.store, rec.Policy, rec.State(n), outcome, r.nowMs())
		if err != nil { // not a policy answer (a trap, a cancelled context): stop, closed
			r.stepErrors.Add(1)
			r.logf("step %s: %v", rec.EventID, err)
			r.finish(rec, rp.Stop{Reason: rp.StopReasonBudgetUnavailable})
			return
		}
		r.metrics.Stepped(res)
		if res.StoreErr != nil {
			r.storeErrors.Add(1)
			r.logf("budget store %s for %s: %v", res.Store.Op, rec.EventID, res.StoreErr)
		}
		if res.BudgetDisagreement {
			r.disagreements.Add(1)
		}
		d := res.Decision
		if d.Retry == nil {
			r.finish(rec, *d.Stop)
			return
		}
		rec.CredentialsRefreshed = rec.CredentialsRefreshed || d.Retry.RefreshCredentials
		rec.NextAttemptAtMs = r.nowMs() + d.Retry.DelayMs
		r.persist(rec)
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
// send makes attempt rec.Attempts+1 and counts it: false when rec is
// already finished (past the window's edge) or left pending (a drain's
// deadline); else rec.Attempts and rec.LastOutcome are updated.
func (r *replica) send(rec *journal.Record, edge func() bool) (rp.AttemptOutcome, bool) {
	n := rec.Attempts + 1
	inFlight := r.metrics.InFlight()
	outcome, err := post(safehttp.WithSendGate(r.drain.attempts, edge), r.engine, r.client, rec.Target,
		rec.EventID, n, body(rec, n), r.nowMs)
	inFlight()
	if errors.Is(err, safehttp.ErrNotSent) { // past the window's edge when it was to be written
		r.finish(rec, rp.Stop{Reason: rp.StopReasonRetryWindowElapsed})
		return outcome, false
	}
	rec.Attempts = n
	if n == 1 {
		r.firstAttempts.Add(1)
	} else {
		r.retries.Add(1)
	}
	r.metrics.AttemptStarted(n)
	if r.drain.abandoned() { // still running at the drain deadline: made, not settled, no response in time
		rec.LastOutcome, rec.NextAttemptAtMs = string(httpoutcome.ReadTimeout), r.nowMs()
		r.persist(rec)
		r.pending.Add(1)
		return outcome, false
	}
	if err != nil { // a trap reading the Retry-After: the outcome without it
		r.logf("retry-after %s: %v", rec.EventID, err)
		outcome = httpoutcome.Failed(httpoutcome.RemoteProtocolError)
	}
	rec.LastOutcome = journal.LastOutcome(outcome)
	r.metrics.AttemptEnded(outcome)
	if k, ok := httpoutcome.KindOf(outcome); ok {
		r.transport.add(k)
		if k == httpoutcome.DestinationRefused {
			r.refused.Add(1)
		}
	}
	return outcome, true
}

func (r *replica) stop(reason rp.StopReason) {
	r.stops[reason].Add(1)
	r.metrics.Stopped(reason)
}
