package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"testing"
)

// The tests read the journals the engine wrote, as an operator's script
// would (docs/journal.md: `<crc32> <json>` lines, the newest record of
// an event wins); the driver itself never reads a line.

type testRecord struct {
	EventID            string  `json:"event_id"`
	Target             string  `json:"target"`
	Status             string  `json:"status"`
	Attempts           uint32  `json:"attempts"`
	FirstAttemptedAtMs uint64  `json:"first_attempted_at_ms"`
	DeadlineMs         uint64  `json:"deadline_ms"`
	PolicyHash         string  `json:"policy_hash"`
	HeldMs             uint64  `json:"held_ms"`
	HoldReason         *string `json:"hold_reason"`
	Policy             struct {
		Health json.RawMessage `json:"health"`
	} `json:"policy"`
	ReplayOf           *string         `json:"replay_of"`
	ReplayedDeadLetter json.RawMessage `json:"replayed_dead_letter"`
}

// journalLines are the journal's records (header first) as JSON objects.
func journalLines(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		crc, payload, ok := bytes.Cut(line, []byte(" "))
		var rec map[string]json.RawMessage
		if !ok || string(crc) != fmt.Sprintf("%08x", crc32.ChecksumIEEE(payload)) || json.Unmarshal(payload, &rec) != nil {
			t.Fatalf("%s line %d is not `<crc32> <json>`: %q", path, i+1, line)
		}
		out = append(out, rec)
	}
	return out
}

// readJournal is the newest record of each event.
func readJournal(t *testing.T, path string) map[string]testRecord {
	t.Helper()
	out := map[string]testRecord{}
	for _, rec := range journalLines(t, path) {
		if string(rec["type"]) != `"event"` {
			continue
		}
		raw, _ := json.Marshal(rec)
		var r testRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		out[r.EventID] = r
	}
	return out
}

// retarget copies the journal at from to to with every event's target set to url.
func retarget(t *testing.T, from, to, url string) {
	t.Helper()
	var buf bytes.Buffer
	target, _ := json.Marshal(url)
	for _, rec := range journalLines(t, from) {
		if string(rec["type"]) == `"event"` {
			rec["target"] = target
		}
		payload, _ := json.Marshal(rec) // keys sorted: the reader takes any order
		fmt.Fprintf(&buf, "%08x %s\n", crc32.ChecksumIEEE(payload), payload)
	}
	if err := os.WriteFile(to, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}
