package main

import (
	"context"
	"fmt"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/replay"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Replay of dead letters (docs/health-dispatch.md section 4), through
// internal/replay.

// ReplayFilter chooses dead letters (endpoint, stop reason, finished_at_ms
// in [FromMs, ToMs), at most Limit); ReplayResult is the command's line.
type (
	ReplayFilter = replay.Filter
	ReplayResult = replay.Result
)

// DefaultReplayLimit is the most dead letters one replay chooses.
const DefaultReplayLimit = replay.DefaultLimit

// NextReplayID is the id of a replay of id ("<id>~r1", or ~r<n+1>).
func NextReplayID(id string) string { return replay.NextID(id) }

// replayCommitted, when set (tests), runs between a replay's commit record
// and its dead letter's replayed_as record: an error there is a crash.
var replayCommitted func() error

// currentClasses are the classes new events are admitted under now.
func (d *Dispatcher) currentClasses() rp.HealthDocument {
	if d.cfg.HealthDocument != nil {
		return *d.cfg.HealthDocument
	}
	if d.cfg.Documents != nil {
		return d.cfg.Documents.CurrentHealth() // the artifact's sections while it follows the artifact
	}
	doc := d.cfg.Document
	out := rp.HealthDocument{Version: doc.Version}
	for _, c := range doc.Classes {
		out.Classes = append(out.Classes, rp.HealthClass{Name: c.Name, Policy: c.Policy})
	}
	return out
}

// Replay re-admits the chosen dead letters as new events under the
// current document's policy for their class, in journal order. Each
// replay's own record (replay_of) is the commit; the dead letter's
// replayed_as record follows. A dead letter already replayed (either
// way) is never chosen again.
func (d *Dispatcher) Replay(ctx context.Context, f ReplayFilter) (ReplayResult, error) {
	classes := d.currentClasses()
	for _, c := range classes.Classes {
		if c.Health != nil && d.calls == nil {
			return ReplayResult{}, fmt.Errorf("dispatcher: replay: class %q has a health section (document %s) and Calls is not set: the format-3 send loop needs the format-3 store", c.Name, classes.Version)
		}
	}
	res, err := replay.Journal(ctx, d.cfg.Engine, storeWriter{d.cfg.Store}, d.cfg.Store.journal.Records(), classes,
		f, d.cfg.Clock.NowMs(), replayCommitted)
	d.cfg.Metrics.Replayed(res.Replayed)
	return res, err
}

// storeWriter appends journal records through the store (its memory follows).
type storeWriter struct{ s *FileStore }

func (w storeWriter) Append(j journal.Record) error { return w.s.put(fromJournal(&j), j, nil) }
