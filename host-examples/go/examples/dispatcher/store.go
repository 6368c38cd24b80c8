package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Event is a webhook to deliver.
type Event struct {
	ID         string          `json:"id"`
	EndpointID string          `json:"endpoint_id"`
	URL        string          `json:"url"`
	Class      string          `json:"class"`
	Payload    json.RawMessage `json:"payload"`
}

// Record is what the dispatcher persists about an event: the admission
// (its schedule and first-attempt instant, so the window survives a
// restart), the policy it was admitted under, and its progress. It is
// journaled as an event record of journal format 2 (docs/journal.md);
// of the admission's schedule the journal keeps max_attempts and offsets_ms.
type Record struct {
	Event                Event
	Admission            rp.Admission
	Policy               rp.Policy
	Attempts             uint32 // attempts made so far
	NextAttemptAtMs      uint64
	CredentialsRefreshed bool
	// ReloadSecrets: the last decision asked to refresh credentials before
	// the next attempt. Not journaled: a restarted process loads its secrets anew.
	ReloadSecrets bool
	State         string // pending | delivered | dead_lettered
	LastOutcome   string // the last attempt's status code ("503") or transport kind; "" before one
	FinishedAtMs  uint64 // when it was delivered or dead-lettered (0 while pending)

	// Format 3 (docs/health-dispatch.md), journal format 2's fields.
	Health             *rp.Health // the class's health section (nil: format 2, none of the below used)
	HeldUntilMs        uint64     // held: due then (also NextAttemptAtMs)
	HoldReason         string     // held: why ("" unless held)
	HeldSinceMs        uint64     // held: when this hold began
	HeldMs             uint64     // total time in holds already ended
	NeedsReserve       bool       // a budget-held retry: its wake reserves first
	WakeRefusals       uint32     // wakes the budget refused in this hold
	ReplayOf           string     // the dead letter this event replays ("" none)
	ReplayedDeadLetter *rp.DeadLetter
	ReplayedAs         string // on a dead letter: its replay's id ("" none)
}

// Record states (the journal's statuses).
const (
	StatePending      = journal.StatusPending
	StateDelivered    = journal.StatusDelivered
	StateDeadLettered = journal.StatusDeadLettered
	StateHeld         = journal.StatusHeld
)

// DeadLetterRecord is what an operator reads about an event that was not
// delivered: the component's dead letter plus where and under what policy.
type DeadLetterRecord struct {
	rp.DeadLetter
	Class            string `json:"class"`
	URL              string `json:"url"` // without user info, query or fragment
	PolicyVersion    string `json:"policy_version"`
	PolicyHash       string `json:"policy_hash"`
	LastOutcome      string `json:"last_outcome"`
	DisableEndpoint  bool   `json:"disable_endpoint"`
	DeadLetteredAtMs uint64 `json:"dead_lettered_at_ms"`
	HeldMs           uint64 `json:"held_ms,omitempty"` // format 3: time it spent held
}

// JournalFile is the journal's name in a store directory.
const JournalFile = "events.journal"

// ErrStoreLocked is returned when another live process holds the store.
var ErrStoreLocked = errors.New("store: another dispatcher holds this store's journal")

// FileStore keeps the events in one journal of format 2 (package journal:
// fdatasynced before a save returns, a torn tail cut at open, a bad line
// refused, the pid lock file, compaction) in a directory, and their
// current state in memory. Every record carries the policy its event was
// admitted with, so any dispatcher, in any language, can resume it.
type FileStore struct {
	mu       sync.Mutex
	journal  *journal.Journal
	records  map[string]*Record
	dead     []DeadLetterRecord // in the order written
	disabled map[string]bool    // endpoints that answered 410 Gone
}

// OpenFileStore opens (creating) a store directory: its journal locked,
// read (each record's policy checked against its policy_hash through hash,
// journal.ComponentHasher) and its torn tail cut.
func OpenFileStore(dir string, hash journal.Hasher) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	j, err := journal.Open(filepath.Join(dir, JournalFile), hash)
	if je := (*journal.Error)(nil); errors.As(err, &je) && je.Code == journal.CodeLocked {
		return nil, fmt.Errorf("%w: %v", ErrStoreLocked, err)
	}
	if err != nil {
		return nil, err
	}
	s := &FileStore{journal: j, records: map[string]*Record{}, disabled: map[string]bool{}}
	for _, jr := range j.Recovered() {
		var dl *DeadLetterRecord
		if jr.Status == StateDeadLettered {
			d := deadLetterOf(&jr)
			dl = &d
		}
		s.apply(fromJournal(&jr), dl)
	}
	return s, nil
}

// Path is the journal's file.
func (s *FileStore) Path() string { return s.journal.Path() }

func fromJournal(j *journal.Record) *Record {
	body, _, _ := j.Body() // checked when read
	return &Record{
		Event: Event{ID: j.EventID, EndpointID: j.EndpointID, URL: j.Target, Class: j.Class, Payload: body},
		Admission: rp.Admission{Class: j.Class, PolicyVersion: j.PolicyVersion, PolicyHash: j.PolicyHash,
			FirstAttemptedAtMs: j.FirstAttemptedAtMs, DeadlineMs: j.DeadlineMs,
			Schedule: rp.Schedule{MaxAttempts: j.MaxAttempts, OffsetsMs: j.OffsetsMs}},
		Policy: j.Policy, Attempts: j.Attempts, NextAttemptAtMs: j.NextAttemptAtMs,
		CredentialsRefreshed: j.CredentialsRefreshed, State: j.Status, LastOutcome: j.LastOutcome,
		FinishedAtMs: j.FinishedAtMs, Health: j.Health, HeldUntilMs: j.HeldUntilMs, HoldReason: deref(j.HoldReason),
		HeldSinceMs: j.HeldSinceMs, HeldMs: j.HeldMs, NeedsReserve: j.NeedsReserve, WakeRefusals: j.WakeRefusals,
		ReplayOf: deref(j.ReplayOf), ReplayedDeadLetter: j.ReplayedDeadLetter, ReplayedAs: deref(j.ReplayedAs),
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ref(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toJournal(r *Record) journal.Record {
	j := journal.Admission(r.Event.ID, r.Event.EndpointID, r.Event.URL, r.Policy, r.Admission)
	j.Class = r.Event.Class
	j.Attempts, j.NextAttemptAtMs, j.CredentialsRefreshed = r.Attempts, r.NextAttemptAtMs, r.CredentialsRefreshed
	j.Status, j.LastOutcome, j.FinishedAtMs = r.State, r.LastOutcome, r.FinishedAtMs
	if r.State == StateDelivered {
		delivered := rp.StopReasonDelivered
		j.StopReason = &delivered
	}
	if r.Event.Payload != nil {
		j.SetBody(r.Event.Payload)
	}
	j.Health, j.HeldUntilMs, j.HoldReason, j.HeldSinceMs, j.HeldMs = r.Health, r.HeldUntilMs, ref(r.HoldReason), r.HeldSinceMs, r.HeldMs
	j.NeedsReserve, j.WakeRefusals, j.ReplayOf, j.ReplayedAs = r.NeedsReserve, r.WakeRefusals, ref(r.ReplayOf), ref(r.ReplayedAs)
	j.ReplayedDeadLetter = r.ReplayedDeadLetter
	return j
}

// deadLetterOf is the operator's view of a dead-lettered journal record.
func deadLetterOf(j *journal.Record) DeadLetterRecord {
	dl := DeadLetterRecord{Class: j.Class, URL: redactURL(j.Target), PolicyVersion: j.PolicyVersion, PolicyHash: j.PolicyHash,
		LastOutcome: j.LastOutcome, DisableEndpoint: j.DisableEndpoint, DeadLetteredAtMs: j.FinishedAtMs, HeldMs: j.HeldMs}
	if j.DeadLetter != nil {
		dl.DeadLetter = *j.DeadLetter
	}
	return dl
}

// apply makes r the state of its event in memory, with its dead letter
// when it has one (under mu, or at open).
func (s *FileStore) apply(r *Record, dl *DeadLetterRecord) {
	if old, ok := s.records[r.Event.ID]; dl != nil && (!ok || old.State != StateDeadLettered) {
		s.dead = append(s.dead, *dl)
		if dl.DisableEndpoint {
			s.disabled[dl.EndpointID] = true
		}
	}
	s.records[r.Event.ID] = r
}

// put journals j (on disk before it returns), then changes the state.
func (s *FileStore) put(r *Record, j journal.Record, dl *DeadLetterRecord) error {
	if err := s.journal.Append(j); err != nil {
		return err
	}
	c := *r
	c.Event.Payload = append(json.RawMessage(nil), r.Event.Payload...)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apply(&c, dl)
	return nil
}

// Save persists a record's new state (fdatasynced before it returns).
func (s *FileStore) Save(r *Record) error { return s.put(r, toJournal(r), nil) }

// Finish persists an event's final dead-lettered state with its dead
// letter and the 410 signal in one fdatasynced record: a crash leaves all
// of it or none. The record keeps the target without user info, query or
// fragment (it is never sent again).
func (s *FileStore) Finish(r *Record, dl DeadLetterRecord) error {
	r.State, r.FinishedAtMs = StateDeadLettered, dl.DeadLetteredAtMs
	j := toJournal(r)
	reason, letter := dl.StopReason, dl.DeadLetter
	j.StopReason, j.DeadLetter, j.DisableEndpoint, j.Target = &reason, &letter, dl.DisableEndpoint, redactURL(r.Event.URL)
	d := deadLetterOf(&j)
	return s.put(r, j, &d)
}

// Load reads one record (a copy).
func (s *FileStore) Load(id string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.records[id]
	if !ok {
		return nil, fmt.Errorf("record of %s: %w", id, os.ErrNotExist)
	}
	c := *r
	return &c, nil
}

// Pending lists the pending and held records (copies), earliest next
// attempt first (a held record's is its hold's end).
func (s *FileStore) Pending() ([]*Record, error) {
	s.mu.Lock()
	var out []*Record
	for _, r := range s.records {
		if r.State == StatePending || r.State == StateHeld {
			c := *r
			out = append(out, &c)
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].NextAttemptAtMs != out[j].NextAttemptAtMs {
			return out[i].NextAttemptAtMs < out[j].NextAttemptAtMs
		}
		return out[i].Event.ID < out[j].Event.ID
	})
	return out, nil
}

// Counts are how many events are in each state (delivered events a
// compaction dropped from the journal count until the process restarts).
func (s *FileStore) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, r := range s.records {
		out[r.State]++
	}
	return out
}

// DeadLetters lists every dead letter, in the order written (after a
// restart: in the order the journal first saw their events).
func (s *FileStore) DeadLetters() ([]DeadLetterRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]DeadLetterRecord(nil), s.dead...), nil
}

// DisabledEndpoints are the endpoints that answered 410 Gone (a dead
// letter's disable_endpoint; compaction keeps dead letters).
func (s *FileStore) DisabledEndpoints() (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]bool, len(s.disabled))
	for ep := range s.disabled {
		out[ep] = true
	}
	return out, nil
}

// Compact rewrites the journal now (it also compacts by itself: at 1024
// records and more than twice as many as live events).
func (s *FileStore) Compact() error { return s.journal.Compact() }

// Close closes the journal and removes its lock (a clean exit, a drain).
func (s *FileStore) Close() error { return s.journal.Close() }
