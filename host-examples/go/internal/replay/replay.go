// Package replay is docs/health-dispatch.md section 4 shared by the Go
// dispatcher and the fleet replica: the filter, the ~r<n> ids, the
// command's flags and output line, and the replay of a journal's dead
// letters (the replay's own record is the commit; the dead letter's
// replayed_as record follows, so a crash between them replays nothing
// twice).
package replay

import (
	"context"
	"strconv"
	"strings"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// DefaultLimit is the most dead letters one replay chooses.
const DefaultLimit = 10_000

// Filter chooses dead letters; a nil or empty field does not filter.
type Filter struct {
	EndpointID string         // exact
	StopReason *rp.StopReason // the dead letter's stop reason
	FromMs     *uint64        // finished_at_ms >= FromMs
	ToMs       *uint64        // finished_at_ms < ToMs
	Limit      int            // at most this many replays (< 1: DefaultLimit)
}

// Result is the command's output line.
type Result struct {
	Replayed        int      `json:"replayed"`
	AlreadyReplayed int      `json:"already_replayed"`
	SkippedNoClass  int      `json:"skipped_no_class"`
	IDs             []string `json:"ids"`
}

// NextID is the id of a replay of id: "<id>~r1", or one more than the
// ~r<n> suffix id already ends with.
func NextID(id string) string {
	if i := strings.LastIndex(id, "~r"); i >= 0 {
		digits := id[i+2:]
		if n, err := strconv.ParseUint(digits, 10, 32); err == nil && strconv.FormatUint(n, 10) == digits {
			return id[:i] + "~r" + strconv.FormatUint(n+1, 10)
		}
	}
	return id + "~r1"
}

// Matches: j is a dead letter the filter chooses (replayed or not).
func (f Filter) Matches(j *journal.Record) bool {
	if j.Status != journal.StatusDeadLettered {
		return false
	}
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

// Limited is f's limit (DefaultLimit when unset).
func (f Filter) Limited() int {
	if f.Limit < 1 {
		return DefaultLimit
	}
	return f.Limit
}

// Record is the replay of dead letter dead, admitted as adm under
// (policy, health): id NextID(dead's), the same endpoint, target, class
// and body, attempts 0, pending and due at the admission, replay_of and
// the dead letter kept.
func Record(dead *journal.Record, policy rp.Policy, health *rp.Health, adm rp.Admission) journal.Record {
	r := journal.Admission(NextID(dead.EventID), dead.EndpointID, dead.Target, policy, adm)
	r.Health = health
	of := dead.EventID
	r.ReplayOf = &of
	if dead.DeadLetter != nil {
		d := *dead.DeadLetter
		r.ReplayedDeadLetter = &d
	}
	if dead.BodyB64 != nil {
		b := *dead.BodyB64
		r.BodyB64 = &b
	}
	return r
}

// Writer is where a replay writes (a journal, or a store over one).
type Writer interface {
	Append(r journal.Record) error
}

// Journal replays the chosen dead letters of records (the journal's
// newest record of each event, first-seen order) under doc's classes,
// admitting each with admit-compiled at nowMs and writing to w: the
// replay's record, then committed (tests: a crash there), then the dead
// letter's record with replayed_as.
func Journal(ctx context.Context, e *rp.Engine, w Writer, records []journal.Record, doc rp.HealthDocument, f Filter,
	nowMs uint64, committed func() error) (Result, error) {
	out := Result{IDs: []string{}}
	replays := map[string]bool{}
	for _, r := range records {
		if r.ReplayOf != nil {
			replays[*r.ReplayOf] = true
		}
	}
	for i := range records {
		if out.Replayed >= f.Limited() {
			break
		}
		dead := &records[i]
		if !f.Matches(dead) {
			continue
		}
		if dead.ReplayedAs != nil || replays[dead.EventID] {
			out.AlreadyReplayed++
			continue
		}
		var cl *rp.HealthClass
		for j := range doc.Classes {
			if doc.Classes[j].Name == dead.Class {
				cl = &doc.Classes[j]
			}
		}
		if cl == nil {
			out.SkippedNoClass++
			continue
		}
		c, err := e.Compile(ctx, cl.Policy, cl.Health)
		if err != nil {
			return out, err
		}
		adm, err := c.Admit(ctx, cl.Name, doc.Version, nowMs)
		_ = c.Close()
		if err != nil {
			return out, err
		}
		r := Record(dead, cl.Policy, cl.Health, adm)
		if err := w.Append(r); err != nil {
			return out, err
		}
		if committed != nil {
			if err := committed(); err != nil {
				return out, err
			}
		}
		marked := dead.Clone()
		marked.ReplayedAs = &r.EventID
		if err := w.Append(marked); err != nil {
			return out, err
		}
		out.Replayed++
		out.IDs = append(out.IDs, r.EventID)
	}
	return out, nil
}
