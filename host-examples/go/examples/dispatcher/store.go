package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

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
// restart), the policy it was admitted under, and its progress.
type Record struct {
	Event                Event        `json:"event"`
	Admission            rp.Admission `json:"admission"`
	Policy               rp.Policy    `json:"policy"`
	Attempts             uint32       `json:"attempts"` // attempts made so far
	NextAttemptAtMs      uint64       `json:"next_attempt_at_ms"`
	CredentialsRefreshed bool         `json:"credentials_refreshed"`
	ReloadSecrets        bool         `json:"reload_secrets,omitempty"` // refresh_credentials: reload before the next attempt
	State                string       `json:"state"`                    // pending | delivered | dead_lettered
	LastOutcome          string       `json:"last_outcome,omitempty"`
}

// Record states.
const (
	StatePending      = "pending"
	StateDelivered    = "delivered"
	StateDeadLettered = "dead_lettered"
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
}

// entry is one journal line: a record's new state, and with the final
// state of a dead-lettered event its dead letter (and whether its endpoint
// is disabled) in the same line, so a crash leaves all of it or none.
type entry struct {
	Record     *Record           `json:"record"`
	DeadLetter *DeadLetterRecord `json:"dead_letter,omitempty"`
	Disable    bool              `json:"disable,omitempty"`
}

// Save persists a record's new state (fsynced before it returns).
func (s *FileStore) Save(r *Record) error { return s.appendEntry(entry{Record: r}) }

// Finish persists an event's final dead-lettered state with its dead
// letter, and disables its endpoint if asked, in one fsynced line.
func (s *FileStore) Finish(r *Record, dl DeadLetterRecord) error {
	return s.appendEntry(entry{Record: r, DeadLetter: &dl, Disable: dl.DisableEndpoint})
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

// Pending lists the pending records (copies), earliest next attempt first.
func (s *FileStore) Pending() ([]*Record, error) {
	s.mu.Lock()
	var out []*Record
	for _, r := range s.records {
		if r.State == StatePending {
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

// Counts are how many events are in each state.
func (s *FileStore) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, r := range s.records {
		out[r.State]++
	}
	return out
}

// DeadLetters lists every dead letter, in the order written.
func (s *FileStore) DeadLetters() ([]DeadLetterRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]DeadLetterRecord(nil), s.dead...), nil
}

// DisabledEndpoints are the endpoints that answered 410 Gone.
func (s *FileStore) DisabledEndpoints() (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]bool, len(s.disabled))
	for ep := range s.disabled {
		out[ep] = true
	}
	return out, nil
}
