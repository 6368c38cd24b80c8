package driver

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
)

// A "storm" class with a long window, so a resumed event is still inside it.
const longWindowPolicy = `{"version":"journal-test","classes":{"storm":{
  "window_ms": 600000, "hard_cap": 50,
  "backoff": {"base_ms": 50, "factor": 2.0, "cap_ms": 200, "jitter": "full"},
  "budget": {"ratio": 1.0, "window_ms": 3000, "min_sample": 1000000, "sliding": true}}}}`

func TestADrainLeavesPendingEventsInTheJournalAndASecondRunResumesThemUnderTheirAdmission(t *testing.T) {
	endpoint, url := newSlowEndpoint(t, 150*time.Millisecond)
	dir := t.TempDir()
	policy, first, second := filepath.Join(dir, "policy.json"), filepath.Join(dir, "a.journal"), filepath.Join(dir, "b.journal")
	if err := os.WriteFile(policy, []byte(longWindowPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	s, code, _, stderr := signalledRun(t, endpoint, 12, "--target", url, "--endpoint-id", "ep-journal",
		"--events", "500", "--concurrency", "4", "--policy", policy, "--drain-ms", "1000", "--allow-private-targets",
		"--store", first)
	if code != 0 {
		t.Fatalf("exit %d after SIGTERM: %s", code, stderr)
	}
	checkDrainedSummary(t, s)
	if _, err := os.Stat(journal.LockPath(first)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the drain left the journal's lock: %v", err)
	}
	before := readJournal(t, first)
	var pending []string
	for id, r := range before {
		if r.Status == "pending" {
			pending = append(pending, id)
		}
	}
	if s.Pending == 0 || uint64(len(pending)) != s.Pending || uint64(len(before)) != s.Events {
		t.Fatalf("journal: %d events, %d pending; summary %+v", len(before), len(pending), s)
	}

	var mu sync.Mutex
	got := map[string]int{}
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get("X-Event-Id")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer ok.Close()
	// A resumed event goes to the target it was admitted with, not --target:
	// a copy of the journal sends its events to a 204 endpoint instead.
	rewritten := filepath.Join(dir, "a2.journal")
	retarget(t, first, rewritten, ok.URL)
	s2, stderr2, code2 := runReplica(t, "--target", "http://127.0.0.1:1/unused", "--endpoint-id", "ep-journal",
		"--events", "0", "--policy", policy, "--allow-private-targets", "--resume", rewritten, "--store", second)
	if code2 != 0 {
		t.Fatalf("resume: exit %d: %s", code2, stderr2)
	}
	checkNothingLost(t, s2)
	if s2.Events != uint64(len(pending)) || s2.StopReasons["delivered"] != s2.Events || s2.Retries != s2.Attempts {
		t.Fatalf("resume summary %+v, want %d events delivered on a retry each", s2, len(pending))
	}
	after := readJournal(t, second)
	for _, id := range pending {
		r, was := after[id], before[id]
		if r.Status != "delivered" || r.FirstAttemptedAtMs != was.FirstAttemptedAtMs ||
			r.DeadlineMs != was.DeadlineMs || r.PolicyHash != was.PolicyHash || r.Attempts != was.Attempts+1 || got[id] != 1 {
			t.Errorf("%s: resumed %+v from %+v (%d requests)", id, r, was, got[id])
		}
	}
	if len(after) != len(pending) {
		t.Errorf("the resuming journal holds %d events, want the %d resumed", len(after), len(pending))
	}
}

func TestACorruptOrLockedStoreIsASetupErrorNamingTheJournalCode(t *testing.T) {
	dir := t.TempDir()
	policy := writePolicy(t, "1.0", "1000000")
	corrupt := filepath.Join(dir, "corrupt.journal")
	_ = os.WriteFile(corrupt, []byte("00000000 {}\n00000000 {}\n"), 0o600)
	locked := filepath.Join(dir, "locked.journal")
	_ = os.WriteFile(journal.LockPath(locked), []byte(`{"pid": 1, "host": "another-host.example", "started_at_ms": 1}`), 0o600)
	for path, code := range map[string]string{corrupt: "journal_unsupported", locked: "journal_locked"} {
		for _, flag := range []string{"--store", "--resume"} {
			if flag == "--resume" && path == locked {
				continue // reading another run's journal takes no lock
			}
			_, stderr, exit := runReplica(t, "--target", "http://127.0.0.1:1/", "--endpoint-id", "ep", "--events", "1",
				"--policy", policy, "--allow-private-targets", flag, path)
			if exit != 2 || !strings.Contains(stderr, code) || !strings.Contains(stderr, flag) {
				t.Errorf("%s %s: exit %d, stderr %q; want 2 naming %s", flag, path, exit, stderr, code)
			}
		}
	}
}

func TestTheEnginesCompactionReplacesTheStoreAndASecondRunResumesIt(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer ok.Close()
	store := filepath.Join(t.TempDir(), "events.journal")
	policy := writePolicy(t, "1.0", "1000000")
	for run := 1; run <= 2; run++ {
		s, stderr, code := runReplica(t, "--target", ok.URL, "--endpoint-id", "ep-compact", "--events", "600",
			"--policy", policy, "--allow-private-targets", "--store", store)
		if code != 0 || s.StopReasons["delivered"] != 600 || s.Pending != 0 {
			t.Fatalf("run %d: exit %d %+v: %s", run, code, s, stderr)
		}
	}
	// 1,200 events of three records each were written: compaction keeps
	// the header and the live records (none: every event was delivered)
	lines := journalLines(t, store)
	if len(lines) >= 1024 || string(lines[0]["type"]) != `"header"` {
		t.Fatalf("%d lines after 3,600 records (first %v): the journal was never compacted", len(lines), lines[0])
	}
	if _, err := os.Stat(store + ".compact"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the .compact file is left: %v", err)
	}
}
