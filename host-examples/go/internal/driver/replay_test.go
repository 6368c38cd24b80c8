package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// replayResult is replay's one JSON line.
type replayResult struct {
	Replayed        int      `json:"replayed"`
	AlreadyReplayed int      `json:"already_replayed"`
	SkippedNoClass  int      `json:"skipped_no_class"`
	IDs             []string `json:"ids"`
}

func replayRun(t *testing.T, args ...string) (replayResult, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), append([]string{"replay"}, args...), &stdout, &stderr)
	var res replayResult
	if code == 0 {
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || strings.Count(stdout.String(), "\n") != 1 {
			t.Fatalf("stdout is not one JSON line: %q", stdout.String())
		}
	} else if stdout.Len() != 0 {
		t.Fatalf("exit %d with stdout %q", code, stdout.String())
	}
	return res, stderr.String(), code
}

// recovering answers 503 until up, then 204, counting requests by event id.
type recovering struct {
	mu   sync.Mutex
	up   bool
	sent map[string]int
}

func newRecovering(t *testing.T) (*recovering, string) {
	e := &recovering{sent: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		up := e.up
		if up {
			e.sent[r.Header.Get("X-Event-Id")]++
		}
		e.mu.Unlock()
		if !up {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return e, srv.URL
}

func TestReplayedDeadLettersAreSentOnceEachPacedByTheNextRunAndNeverReplayedTwice(t *testing.T) {
	e, url := newRecovering(t)
	store := filepath.Join(t.TempDir(), "events.journal")
	s, stderr, code := runReplica(t, "--target", url, "--endpoint-id", "ep-replay", "--events", "3", "--concurrency", "3",
		"--policy", writePolicy(t, "1.0", "1000000"), "--allow-private-targets", "--store", store)
	if code != 0 || s.StopReasons["max_attempts_exhausted"] != 3 {
		t.Fatalf("exit %d, %+v: %s", code, s, stderr)
	}
	health := writeHealthPolicy(t)
	res, stderr, code := replayRun(t, "--store", store, "--policy", health, "--reason", "max_attempts_exhausted")
	if code != 0 || res.Replayed != 3 || res.AlreadyReplayed != 0 || len(res.IDs) != 3 {
		t.Fatalf("replay: exit %d %+v: %s", code, res, stderr)
	}
	again, _, code := replayRun(t, "--store", store, "--policy", health)
	if code != 0 || again.Replayed != 0 || again.AlreadyReplayed != 3 || len(again.IDs) != 0 {
		t.Fatalf("a second replay: exit %d %+v, want nothing replayed, 3 already", code, again)
	}
	e.mu.Lock()
	e.up = true
	e.mu.Unlock()
	s2, stderr2, code2 := runReplica(t, "--target", url, "--endpoint-id", "ep-replay", "--events", "0", "--policy", health,
		"--allow-private-targets", "--store", store)
	if code2 != 0 || s2.StopReasons["delivered"] != 3 || s2.Pending != 0 {
		t.Fatalf("the run after the replay: exit %d %+v: %s", code2, s2, stderr2)
	}
	if s2.Holds["release_pacing"] < 1 {
		t.Fatalf("holds %v: the replays (held at their first gate) were not paced", s2.Holds)
	}
	after := readJournal(t, store)
	for _, id := range res.IDs {
		dead := strings.TrimSuffix(id, "~r1")
		if r := after[id]; r.Status != "delivered" || r.ReplayOf == nil || *r.ReplayOf != dead || r.ReplayedDeadLetter == nil {
			t.Fatalf("%s: %+v", id, r)
		}
		if e.sent[id] != 1 {
			t.Fatalf("%s sent %d times, want once", id, e.sent[id])
		}
	}
}

func TestTheReplicaReplayCommandExits2OnBadFlagsAnUnreadablePolicyOrAJournalError(t *testing.T) {
	dir := t.TempDir()
	policy := writeHealthPolicy(t)
	for _, args := range [][]string{
		{"--store", filepath.Join(dir, "j")},
		{"--store", filepath.Join(dir, "j"), "--policy", filepath.Join(dir, "missing.json")},
		{"--store", filepath.Join(dir, "no", "such", "dir", "j"), "--policy", policy},
		{"--store", filepath.Join(dir, "j"), "--policy", policy, "--reason", "nope"},
	} {
		if _, stderr, code := replayRun(t, args...); code != 2 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a reason", args, code, stderr)
		}
	}
}
