package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

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

// FileStore persists records as one JSON file per event, dead letters as
// JSON lines and disabled endpoints as a JSON list, in one directory.
// Writes go through a temporary file and a rename, so a crash leaves the
// old or the new record, never half of one.
type FileStore struct {
	dir string
	mu  sync.Mutex
}

// OpenFileStore opens (creating) a store directory.
func OpenFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(filepath.Join(dir, "events"), 0o755); err != nil {
		return nil, err
	}
	return &FileStore{dir: dir}, nil
}

func (s *FileStore) eventPath(id string) string {
	sum := sha256.Sum256([]byte(id)) // ids are not trusted as file names
	return filepath.Join(s.dir, "events", hex.EncodeToString(sum[:16])+".json")
}

func writeAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Save writes a record.
func (s *FileStore) Save(r *Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return writeAtomic(s.eventPath(r.Event.ID), r)
}

// Load reads one record.
func (s *FileStore) Load(id string) (*Record, error) {
	data, err := os.ReadFile(s.eventPath(id))
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("record of %s: %w", id, err)
	}
	return &r, nil
}

// Pending lists the pending records, earliest next attempt first.
func (s *FileStore) Pending() ([]*Record, error) {
	paths, err := filepath.Glob(filepath.Join(s.dir, "events", "*.json"))
	if err != nil {
		return nil, err
	}
	var out []*Record
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r Record
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if r.State == StatePending {
			out = append(out, &r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].NextAttemptAtMs != out[j].NextAttemptAtMs {
			return out[i].NextAttemptAtMs < out[j].NextAttemptAtMs
		}
		return out[i].Event.ID < out[j].Event.ID
	})
	return out, nil
}

// AppendDeadLetter appends one dead-letter record.
func (s *FileStore) AppendDeadLetter(d DeadLetterRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	line, err := json.Marshal(d)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(s.dir, "deadletters.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// DeadLetters reads every dead-letter record.
func (s *FileStore) DeadLetters() ([]DeadLetterRecord, error) {
	f, err := os.Open(filepath.Join(s.dir, "deadletters.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []DeadLetterRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var d DeadLetterRecord
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, sc.Err()
}

// DisableEndpoint records that an endpoint answered 410 Gone.
func (s *FileStore) DisableEndpoint(endpointID string) error {
	disabled, err := s.DisabledEndpoints()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	disabled[endpointID] = true
	return writeAtomic(filepath.Join(s.dir, "disabled.json"), disabled)
}

// DisabledEndpoints reads the disabled endpoints.
func (s *FileStore) DisabledEndpoints() (map[string]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(s.dir, "disabled.json"))
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	return out, json.Unmarshal(data, &out)
}
