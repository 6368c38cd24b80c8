package main

import (
	"context"
	"fmt"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/redact"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The replica's --store FILE and --resume FILE (journal format 2,
// docs/journal.md), as the Rust and Python replicas have them:
//
//   - --store FILE journals the run: each event's record is written (and
//     fdatasynced) when it is admitted, after each retry decision and when
//     it stops; the file's own pending events are continued first (a
//     restart after a crash: the lock of a killed writer is stale and
//     removed). A drain leaves pending events in it, resumable.
//   - --resume FILE continues the pending events of another replica's
//     journal, in any language, each under the policy recorded with it
//     (checked against its policy_hash), never under --policy: it waits for
//     its next_attempt_at_ms, goes through the component's resume (stopped
//     ones are dead-lettered without a request), and keeps its first-attempt
//     instant, deadline and schedule. With --events 0 the run only resumes.

// openJournals opens --store (locked, its torn tail cut) and reads
// --resume; it returns the pending events to continue, the newest record
// of each. A journal refused (locked, corrupt, unsupported, a policy that
// does not hash) is a setup error.
func (r *replica) openJournals(ctx context.Context) error {
	hash := journal.ComponentHasher(ctx, r.engine)
	var resumed []journal.Record
	fromResume := map[string]bool{}
	if r.cfg.StorePath != "" {
		j, err := journal.Open(r.cfg.StorePath, hash)
		if err != nil {
			return usageErrorf("--store %s: %v", r.cfg.StorePath, err)
		}
		if n := j.TornBytes(); n > 0 {
			fmt.Fprintf(r.stderr, "replica: --store %s: cut a torn last record (%d bytes; never acknowledged)\n", r.cfg.StorePath, n)
		}
		r.journal = j
		resumed = j.Recovered()
	}
	if r.cfg.ResumePath != "" && r.cfg.ResumePath != r.cfg.StorePath {
		recs, err := journal.ReadFile(r.cfg.ResumePath, hash)
		if err != nil {
			r.closeJournal()
			return usageErrorf("--resume %s: %v", r.cfg.ResumePath, err)
		}
		at := map[string]int{}
		for i, rec := range resumed {
			at[rec.EventID] = i
		}
		for _, rec := range recs { // the other journal's record wins (as Python's)
			fromResume[rec.EventID] = true
			if i, ok := at[rec.EventID]; ok {
				resumed[i] = rec
			} else {
				resumed = append(resumed, rec)
			}
		}
	}
	for _, rec := range resumed {
		if rec.Status != journal.StatusPending && rec.Status != journal.StatusHeld {
			continue
		}
		if fromResume[rec.EventID] {
			r.persist(&rec) // this journal knows every event it continues
		}
		r.resumed = append(r.resumed, rec)
	}
	return nil
}

// closeJournal closes --store's journal and removes its lock (a clean
// exit, a drain included: the pending events stay in it).
func (r *replica) closeJournal() {
	if r.journal != nil {
		if err := r.journal.Close(); err != nil {
			fmt.Fprintf(r.stderr, "replica: --store: %v\n", err)
		}
		r.journal = nil
	}
}

// persist journals rec (fdatasynced before it returns). A failed write
// (journal_io, a full disk) is logged and the run goes on, as the Rust and
// Python replicas do; the line was cut back, the journal stays whole.
func (r *replica) persist(rec *journal.Record) {
	if r.journal == nil {
		return
	}
	if err := r.journal.Append(*rec); err != nil {
		r.journalErrors.Add(1)
		r.logf("event %s: journal: %v", rec.EventID, err)
	}
}

// finish records an event's stop (journaled: status, stop reason, dead
// letter, the 410 signal; the target without user info, query or fragment,
// since it is never sent again) and counts it.
func (r *replica) finish(rec *journal.Record, stop rp.Stop) {
	now := r.nowMs()
	rec.Status = journal.StatusDeadLettered
	if stop.Reason == rp.StopReasonDelivered {
		rec.Status = journal.StatusDelivered
	}
	reason := stop.Reason
	rec.StopReason, rec.DisableEndpoint, rec.FinishedAtMs = &reason, stop.DisableEndpoint, now
	rec.DeadLetter = stop.DeadLetter
	if rec.DeadLetter == nil && stop.Reason != rp.StopReasonDelivered { // the window's edge and a failed step are the replica's
		rec.DeadLetter = &rp.DeadLetter{EventID: rec.EventID, EndpointID: rec.EndpointID, Attempts: rec.Attempts,
			ElapsedMs: now - min(now, rec.FirstAttemptedAtMs), StopReason: stop.Reason}
	}
	rec.Target = redact.URL(rec.Target)
	r.persist(rec)
	r.stop(stop.Reason)
}
