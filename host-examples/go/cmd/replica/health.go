package main

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/endpointhealth"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Format 3 in the replica (docs/health-dispatch.md sections 2, 3 and 6):
// a class with a health section runs the gated send loop; one without
// runs exactly as before. Every rule is the component's.

// healthRun is the replica's format-3 state.
type healthRun struct {
	class   *rp.HealthClass // --class of the document when it has health at start (nil: format 2)
	version string
	// follow: no --policy, the artifact's embedded document is current
	// (docs/artifact.md step 6), and a swapped-in artifact's document is
	// what new events are admitted under (classNow)
	follow bool
	table  *endpointhealth.Table
	calls  rp.CallStore // timed, failures counted

	mu       sync.Mutex
	compiled map[string]*rp.Compiled // per (policy, health) of the records stepped

	holds      [5]atomic.Uint64 // by rp.HoldReason
	held       atomic.Uint64    // events still held when the run ended
	probeCalls atomic.Uint64
	wakeCalls  atomic.Uint64
}

// newHealthRun reads text (the --policy document, nil: the artifact's,
// whose health sections count as its own) with load-health-document and
// finds class's section.
func newHealthRun(ctx context.Context, engine *rp.Engine, text []byte, class string) (*healthRun, error) {
	h := &healthRun{table: endpointhealth.New(endpointhealth.Max), compiled: map[string]*rp.Compiled{}}
	var doc rp.HealthDocument
	if text == nil {
		h.follow = true
		var ok bool
		if doc, _, ok = engine.ArtifactHealthDocument(); !ok {
			return h, nil
		}
	} else {
		var err error
		if doc, err = engine.LoadHealthDocument(ctx, text); err != nil {
			return nil, err
		}
	}
	h.class, h.version = sectionOf(doc, class)
	return h, nil
}

func (h *healthRun) compile(ctx context.Context, e *rp.Engine, p rp.Policy, hs *rp.Health) (*rp.Compiled, error) {
	k, err := json.Marshal(struct {
		P rp.Policy
		H *rp.Health
	}{p, hs})
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if c, ok := h.compiled[string(k)]; ok {
		return c, nil
	}
	c, err := e.Compile(ctx, p, hs)
	if err != nil {
		return nil, err
	}
	if len(h.compiled) < 64 { // a run steps a handful of policies; past that, compile per event
		h.compiled[string(k)] = c
	}
	return c, nil
}

// holdCounts is the summary's "holds": every reason, zeros included.
func (h *healthRun) holdCounts() map[string]uint64 {
	out := map[string]uint64{}
	for _, reason := range rp.HoldReasonValues() {
		out[reason.String()] = h.holds[reason].Load()
	}
	return out
}

// countedCalls counts the failed calls of a store (the summary's store_errors).
type countedCalls struct {
	inner  rp.CallStore
	failed *atomic.Uint64
}

func (c countedCalls) Call(ctx context.Context, call rp.StoreCall, nowMs uint64) (rp.CallReply, error) {
	reply, err := c.inner.Call(ctx, call, nowMs)
	if err != nil {
		c.failed.Add(1)
	}
	return reply, err
}

func (r *replica) steps() endpointhealth.Steps {
	return endpointhealth.Steps{Engine: r.engine, Calls: r.fmt3.calls,
		OnProbe: func(granted bool, err error) { r.fmt3.probeCalls.Add(1); r.metrics.ProbeCalled(granted, err) },
		OnWake:  func() { r.fmt3.wakeCalls.Add(1); r.metrics.WakeCalled() }}
}

// deliverHealth admits a new event under the class's section (cl, of
// the document version) and runs it.
func (r *replica) deliverHealth(ctx context.Context, eventID string, cl *rp.HealthClass, version string) {
	c, err := r.fmt3.compile(ctx, r.engine, cl.Policy, cl.Health)
	var adm rp.Admission
	if err == nil {
		adm, err = c.Admit(ctx, cl.Name, version, r.nowMs())
	}
	if err != nil {
		r.logf("admit %s: class %q: %v", eventID, cl.Name, err)
		r.stop(rp.StopReasonBudgetUnavailable)
		return
	}
	rec := journal.Admission(eventID, r.cfg.EndpointID, r.cfg.Target, cl.Policy, adm)
	rec.Health = cl.Health
	r.fmt3.table.Admit(rec.EndpointID, adm.FirstAttemptedAtMs, cl.Policy.Budget.WindowMs)
	r.persist(&rec)
	r.attemptsHealth(ctx, &rec, false)
}

// resumeHealth continues a journaled record with health (or a held one):
// due at its hold's end (or its next attempt), then resume and the loop.
func (r *replica) resumeHealth(ctx context.Context, rec journal.Record) {
	due := rec.NextAttemptAtMs
	if rec.Status == journal.StatusHeld {
		due = rec.HeldUntilMs
		r.metrics.HeldNow(1)
	}
	if !r.waitUntil(ctx, due) {
		r.leftPending(&rec)
		return
	}
	r.attemptsHealth(ctx, &rec, true)
}

// waitUntil sleeps until atMs of the replica's clock: false when a drain
// or the context stopped it first.
func (r *replica) waitUntil(ctx context.Context, atMs uint64) bool {
	if now := r.nowMs(); atMs > now {
		select {
		case <-time.After(time.Duration(atMs-now) * time.Millisecond):
		case <-r.drain.stopping:
		case <-ctx.Done():
		}
	}
	return !r.drain.stopped() && ctx.Err() == nil
}

// leftPending counts an event the run leaves unfinished (held ones too).
func (r *replica) leftPending(rec *journal.Record) {
	r.pending.Add(1)
	if rec.Status == journal.StatusHeld {
		r.fmt3.held.Add(1)
	}
}

// hold journals rec as held until untilMs (before it counts as held),
// then waits for it: false when the run stopped first (it stays held).
func (r *replica) hold(ctx context.Context, rec *journal.Record, untilMs uint64, reason rp.HoldReason) bool {
	name := reason.String()
	rec.Status, rec.HoldReason, rec.HeldUntilMs, rec.HeldSinceMs, rec.NextAttemptAtMs = journal.StatusHeld, &name, untilMs, r.nowMs(), untilMs
	r.persist(rec)
	r.fmt3.holds[reason].Add(1)
	r.metrics.HoldStarted(reason)
	r.metrics.HeldNow(1)
	if !r.waitUntil(ctx, untilMs) {
		r.leftPending(rec)
		return false
	}
	return true
}

// failed stops rec closed after a step that is not a policy answer.
func (r *replica) failed(rec *journal.Record, what string, err error) {
	r.stepErrors.Add(1)
	r.logf("%s %s: %v", what, rec.EventID, err)
	r.finish(rec, rp.Stop{Reason: rp.StopReasonBudgetUnavailable})
}

// attemptsHealth is the send loop of docs/health-dispatch.md section 2.
func (r *replica) attemptsHealth(ctx context.Context, rec *journal.Record, resumed bool) {
	c, err := r.fmt3.compile(ctx, r.engine, rec.Policy, rec.Health)
	if err != nil {
		r.failed(rec, "compile", err)
		return
	}
	edge := mayStartBy(windowEdge(rec.State(0), rec.Policy), r.nowMs)
	deadline := rec.FirstAttemptedAtMs + rec.Policy.WindowMs
	held := rec.Status == journal.StatusHeld || (rec.ReplayOf != nil && rec.Attempts == 0)
	for {
		if r.drain.stopped() || ctx.Err() != nil {
			r.leftPending(rec)
			return
		}
		now := r.nowMs()
		if rec.Status == journal.StatusHeld { // leaving the hold: its span joins held_ms
			rec.HeldMs += now - min(now, rec.HeldSinceMs)
			rec.Status, rec.HoldReason, rec.HeldSinceMs, rec.HeldUntilMs = journal.StatusPending, nil, 0, 0
			r.metrics.HeldNow(-1)
			held = true
		}
		if resumed { // section 3: a resumed record meets resume first
			resumed = false
			res, err := r.engine.Resume(ctx, rec.Policy, rec.State(rec.Attempts), now)
			if err != nil {
				r.failed(rec, "resume", err)
				return
			}
			if res.Stop != nil {
				r.finish(rec, *res.Stop)
				return
			}
		}
		ev := rp.GateEvent{EventID: rec.EventID, EndpointID: rec.EndpointID, Attempts: rec.Attempts,
			FirstAttemptedAtMs: rec.FirstAttemptedAtMs, Held: held, HeldMs: rec.HeldMs}
		v, err := r.fmt3.table.Gate(ctx, r.steps(), c, ev, rec.Policy.Budget, deadline, now)
		if err != nil {
			r.failed(rec, "gate", err)
			return
		}
		switch {
		case v.Stop != nil:
			rec.HeldMs = v.Stop.HeldMs
			dl := v.Stop.DeadLetter
			r.finish(rec, rp.Stop{Reason: dl.StopReason, DeadLetter: &dl})
			return
		case v.Hold != nil:
			if !r.hold(ctx, rec, v.Hold.UntilMs, v.Hold.Reason) {
				return
			}
			continue
		}
		if rec.NeedsReserve { // step 3: the budget-held wake's reserve
			w := rp.Wake{EventID: rec.EventID, EndpointID: rec.EndpointID, Attempts: rec.Attempts,
				FirstAttemptedAtMs: rec.FirstAttemptedAtMs, Refusals: rec.WakeRefusals}
			wv, view, err := r.fmt3.table.Wake(ctx, r.steps(), c, w, now)
			switch {
			case err != nil:
				r.failed(rec, "settle-wake", err)
				return
			case wv.Hold != nil:
				rec.WakeRefusals = wv.Hold.Refusals
				if !r.hold(ctx, rec, wv.Hold.UntilMs, rp.HoldReasonBudgetRefused) {
					return
				}
				continue
			case wv.Stop != nil:
				r.finish(rec, rp.Stop{Reason: wv.Stop.StopReason, DeadLetter: wv.Stop})
				return
			}
			rec.NeedsReserve, rec.WakeRefusals = false, 0 // the reservation stands
			if !v.SendProbe {                             // the second gate, on the reserve reply's view (draft 3 item 2)
				h, err := r.fmt3.table.Regate(ctx, r.steps(), c, ev, view, rec.Policy.Budget, now)
				if err != nil {
					r.failed(rec, "gate", err)
					return
				}
				if h != nil {
					if !r.hold(ctx, rec, h.UntilMs, h.Reason) {
						return
					}
					continue
				}
			}
		}
		if !edge() {
			r.finish(rec, rp.Stop{Reason: rp.StopReasonRetryWindowElapsed})
			return
		}
		outcome, sent := r.send(rec, edge)
		if !sent {
			return
		}
		held = false
		verdict, err := r.advance(ctx, c, rec, outcome, v.SendProbe)
		if err != nil {
			r.failed(rec, "advance", err)
			return
		}
		switch {
		case verdict.Retry != nil:
			rec.CredentialsRefreshed = rec.CredentialsRefreshed || verdict.Retry.RefreshCredentials
			rec.NextAttemptAtMs = r.nowMs() + verdict.Retry.DelayMs
			r.persist(rec)
			if !r.waitUntil(ctx, rec.NextAttemptAtMs) {
				r.leftPending(rec)
				return
			}
		case verdict.Hold != nil:
			rec.CredentialsRefreshed = rec.CredentialsRefreshed || verdict.Hold.RefreshCredentials
			rec.NeedsReserve, rec.WakeRefusals = true, 0
			if !r.hold(ctx, rec, verdict.Hold.UntilMs, rp.HoldReasonBudgetRefused) {
				return
			}
		case verdict.Stop != nil:
			r.finish(rec, *verdict.Stop)
			return
		default:
			r.failed(rec, "advance", errNoVerdict)
			return
		}
	}
}

// advance is step 4 after an attempt: advance, its call (kept view),
// finish when the decision needs the store.
func (r *replica) advance(ctx context.Context, c *rp.Compiled, rec *journal.Record, outcome rp.AttemptOutcome, probe bool) (rp.Verdict, error) {
	now := r.nowMs()
	state := rec.State(rec.Attempts)
	adv, err := c.Advance(ctx, state, outcome, probe, now)
	if err != nil {
		return rp.Verdict{}, err
	}
	if d := adv.Decided; d != nil {
		if d.Call != nil { // record or report: its reply moves only the view
			_, _ = r.fmt3.table.Call(ctx, r.steps(), rec.EndpointID, *d.Call, now)
		}
		return rp.Verdict{Retry: d.Decision.Retry, Stop: d.Decision.Stop}, nil
	}
	if adv.NeedsStore == nil {
		return rp.Verdict{}, errNoVerdict
	}
	reply, callErr := r.fmt3.table.Call(ctx, r.steps(), rec.EndpointID, *adv.NeedsStore, now)
	if callErr != nil {
		r.logf("budget store %s for %s: %v", adv.NeedsStore.Op, rec.EventID, callErr)
	}
	fin, err := c.Finish(ctx, state, outcome, now, endpointhealth.StoreReplyOf(reply, callErr))
	if err != nil {
		return rp.Verdict{}, err
	}
	if fin.BudgetDisagreement {
		r.disagreements.Add(1)
		r.metrics.Stepped(rp.StepResult{BudgetDisagreement: true})
	}
	return fin.Verdict, nil
}

// formatTwoText is text itself, or for a document with health sections
// its format-2 projection (the same classes without them): what the
// format-2 machinery (admit, the document's version, reloads) reads.
func formatTwoText(ctx context.Context, engine *rp.Engine, text []byte) []byte {
	if text == nil {
		return nil
	}
	doc, err := engine.LoadHealthDocument(ctx, text)
	if err != nil {
		return text // refused by load-document too, with its own error
	}
	classes := map[string]rp.Policy{}
	health := false
	for _, c := range doc.Classes {
		classes[c.Name] = c.Policy
		health = health || c.Health != nil
	}
	if !health {
		return text
	}
	out, err := json.Marshal(struct {
		Version string               `json:"version"`
		Classes map[string]rp.Policy `json:"classes"`
	}{doc.Version, classes})
	if err != nil {
		return text
	}
	return out
}
