package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Replay of dead letters (docs/health-dispatch.md section 4).

// DefaultReplayLimit is the most dead letters one replay chooses.
const DefaultReplayLimit = 10_000

// ReplayFilter chooses dead letters; a zero field does not filter.
type ReplayFilter struct {
	EndpointID string         // exact
	StopReason *rp.StopReason // the dead letter's stop reason
	FromMs     *uint64        // finished_at_ms >= FromMs
	ToMs       *uint64        // finished_at_ms < ToMs
	Limit      int            // at most this many replays (< 1: DefaultReplayLimit)
}

// ReplayResult is the command's output line.
type ReplayResult struct {
	Replayed        int      `json:"replayed"`
	AlreadyReplayed int      `json:"already_replayed"`
	SkippedNoClass  int      `json:"skipped_no_class"`
	IDs             []string `json:"ids"`
}

// replayCommitted, when set (tests), runs between a replay's commit record
// and its dead letter's replayed_as record: an error there is a crash.
var replayCommitted func() error

// NextReplayID is the id of a replay of id: "<id>~r1", or one more than
// the ~r<n> suffix id already ends with.
func NextReplayID(id string) string {
	if i := strings.LastIndex(id, "~r"); i >= 0 {
		if n, err := strconv.ParseUint(id[i+2:], 10, 32); err == nil && id[i+2] != '+' && strconv.FormatUint(n, 10) == id[i+2:] {
			return id[:i] + "~r" + strconv.FormatUint(n+1, 10)
		}
	}
	return id + "~r1"
}

func (f ReplayFilter) matches(j *journal.Record) bool {
	if f.EndpointID != "" && j.EndpointID != f.EndpointID {
		return false
	}
	if f.StopReason != nil && (j.StopReason == nil || *j.StopReason != *f.StopReason) {
		return false
	}
	if f.FromMs != nil && j.FinishedAtMs < *f.FromMs {
		return false
	}
	return f.ToMs == nil || j.FinishedAtMs < *f.ToMs
}

// currentClasses are the classes new events are admitted under now.
func (d *Dispatcher) currentClasses() (string, []rp.HealthClass) {
	if d.cfg.HealthDocument != nil {
		return d.cfg.HealthDocument.Version, d.cfg.HealthDocument.Classes
	}
	doc := d.cfg.Document
	if d.cfg.Documents != nil {
		doc = d.cfg.Documents.Current()
	}
	out := make([]rp.HealthClass, 0, len(doc.Classes))
	for _, c := range doc.Classes {
		out = append(out, rp.HealthClass{Name: c.Name, Policy: c.Policy})
	}
	return doc.Version, out
}

// Replay re-admits the chosen dead letters as new events under the
// current document's policy for their class, in journal order. Each
// replay's own record (replay_of) is the commit; the dead letter's
// replayed_as record follows. A dead letter already replayed (either
// way) is never chosen again.
func (d *Dispatcher) Replay(ctx context.Context, f ReplayFilter) (ReplayResult, error) {
	if f.Limit < 1 {
		f.Limit = DefaultReplayLimit
	}
	version, classes := d.currentClasses()
	out := ReplayResult{IDs: []string{}}
	for _, c := range d.cfg.Store.deadLetterRecords() {
		if out.Replayed >= f.Limit {
			break
		}
		dead := c.record
		if !f.matches(&dead) {
			continue
		}
		if c.replayed {
			out.AlreadyReplayed++
			continue
		}
		var cl *rp.HealthClass
		for i := range classes {
			if classes[i].Name == dead.Class {
				cl = &classes[i]
			}
		}
		if cl == nil {
			out.SkippedNoClass++
			continue
		}
		id, err := d.replayOne(ctx, &dead, *cl, version)
		if err != nil {
			return out, err
		}
		out.Replayed++
		out.IDs = append(out.IDs, id)
		d.cfg.Metrics.Replayed(1)
	}
	return out, nil
}

// replayOne writes the replay of dead (the commit), then dead's
// replayed_as record.
func (d *Dispatcher) replayOne(ctx context.Context, dead *journal.Record, cl rp.HealthClass, version string) (string, error) {
	now := d.cfg.Clock.NowMs()
	comp, err := d.compiled(ctx, cl.Policy, cl.Health)
	if err != nil {
		return "", err
	}
	adm, err := comp.Admit(ctx, cl.Name, version, now)
	if err != nil {
		return "", err
	}
	body, _, err := dead.Body()
	if err != nil {
		return "", err
	}
	id := NextReplayID(dead.EventID)
	var letter *rp.DeadLetter
	if dead.DeadLetter != nil {
		l := *dead.DeadLetter
		letter = &l
	}
	r := &Record{Event: Event{ID: id, EndpointID: dead.EndpointID, URL: dead.Target, Class: cl.Name, Payload: body},
		Admission: adm, Policy: cl.Policy, Health: cl.Health, NextAttemptAtMs: now, State: StatePending,
		ReplayOf: dead.EventID, ReplayedDeadLetter: letter}
	if err := d.cfg.Store.Save(r); err != nil {
		return "", err
	}
	if replayCommitted != nil {
		if err := replayCommitted(); err != nil {
			return "", err
		}
	}
	return id, d.cfg.Store.markReplayed(dead.EventID, id)
}

// deadLetterCandidate is a dead letter's journal record and whether it
// was replayed already.
type deadLetterCandidate struct {
	record   journal.Record
	replayed bool
}

// deadLetterRecords are the dead letters in journal (first-seen) order.
func (s *FileStore) deadLetterRecords() []deadLetterCandidate {
	s.mu.Lock()
	defer s.mu.Unlock()
	replays := map[string]bool{}
	for _, r := range s.records {
		if r.ReplayOf != "" {
			replays[r.ReplayOf] = true
		}
	}
	var out []deadLetterCandidate
	for _, id := range s.order {
		r := s.records[id]
		jr, ok := s.deadRecs[id]
		if r == nil || r.State != StateDeadLettered || !ok {
			continue
		}
		out = append(out, deadLetterCandidate{record: jr.Clone(), replayed: r.ReplayedAs != "" || replays[id]})
	}
	return out
}

// markReplayed appends the dead letter id's record with replayed_as.
func (s *FileStore) markReplayed(id, as string) error {
	s.mu.Lock()
	jr, ok := s.deadRecs[id]
	r := s.records[id]
	s.mu.Unlock()
	if !ok || r == nil {
		return fmt.Errorf("store: no dead letter %s", id)
	}
	j := jr.Clone()
	j.ReplayedAs = &as
	c := *r
	c.ReplayedAs = as
	return s.put(&c, j, nil)
}
