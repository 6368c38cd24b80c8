package driver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The replica's class ("storm") with the default health section (pauses up to 10 minutes,
// release at 1/s at least, views used for 1 s).
const healthPolicy = `{"version":"health-test","classes":{"storm":{
  "window_ms": 60000, "hard_cap": 10,
  "backoff": {"base_ms": 50, "factor": 2.0, "cap_ms": 200, "jitter": "full"},
  "budget": {"ratio": 1.0, "window_ms": 3000, "min_sample": 1000000, "sliding": true},
  "health": {}}}}`

// pauseEndpoint answers its first request 429 with Retry-After: 2 at
// once, holds the requests of the next 500 ms (the other workers' first
// attempts, sent before any reply: the gate-2 slack) for 600 ms, so their
// next events start after the pause is known; then it answers 200
// (okAlone) or 429 Retry-After: 2 (not okAlone).
type pauseEndpoint struct {
	mu      sync.Mutex
	first   time.Time
	n       int
	early   []time.Duration // requests inside the pause (after its first 500 ms)
	okAlone bool            // false: every request answers 429 Retry-After: 2
}

func (e *pauseEndpoint) received() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n
}

func newPauseEndpoint(t *testing.T, okAfterFirst bool) (*pauseEndpoint, string) {
	e := &pauseEndpoint{okAlone: okAfterFirst}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.n++
		if e.n == 1 {
			e.first = time.Now()
		}
		n, since := e.n, time.Since(e.first)
		// the pause ends 2 s after the replica's millisecond clock read the
		// reply: up to a millisecond before 2 s of this clock (10 ms allowed)
		if n > 1 && since > 500*time.Millisecond && since < 2*time.Second-10*time.Millisecond {
			e.early = append(e.early, since)
		}
		e.mu.Unlock()
		if n > 1 && since < 500*time.Millisecond {
			time.Sleep(600 * time.Millisecond)
		}
		e.mu.Lock()
		ok := e.okAlone
		e.mu.Unlock()
		if n == 1 || !ok {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return e, srv.URL
}

func writeHealthPolicy(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(p, []byte(healthPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAFormatTwoRunReportsEveryHoldReasonAtZero(t *testing.T) {
	srv, _, _ := always503(t)
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-2", "--events", "2", "--concurrency", "2",
		"--policy", writePolicy(t, "1.0", "1000000"), "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	reasons := []string{"paused", "circuit_open", "probe_refused", "release_pacing", "budget_refused"} // docs/replica.md
	if len(s.Holds) != len(reasons) || s.Held != 0 || s.ProbeCalls != 0 {
		t.Fatalf("holds %v held %d probe_calls %d: want every reason at 0 and zeros", s.Holds, s.Held, s.ProbeCalls)
	}
	for _, reason := range reasons {
		if n, ok := s.Holds[reason]; !ok || n != 0 {
			t.Fatalf("holds[%s] = %d (%v) in a format-2 run", reason, n, ok)
		}
	}
}

func TestAReplicaWithHealthHoldsNewEventsDuringARetryAfterPauseAndDeliversThemAfterIt(t *testing.T) {
	e, url := newPauseEndpoint(t, true)
	s, stderr, code := runReplica(t, "--target", url, "--endpoint-id", "ep-h", "--events", "6", "--concurrency", "2",
		"--policy", writeHealthPolicy(t), "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.StopReasons["delivered"] != 6 || s.Pending != 0 || s.Held != 0 {
		t.Fatalf("want 6 delivered, none pending or held: %+v", s)
	}
	if s.Holds["paused"] < 1 {
		t.Fatalf("holds %v: want the events started during the pause held (paused)", s.Holds)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.early) != 0 {
		t.Fatalf("requests %v after the first, inside the 2 s Retry-After pause", e.early)
	}
}

func TestAHeldEventSurvivesADrainInTheJournalAndIsDeliveredAfterResume(t *testing.T) {
	e, url := newPauseEndpoint(t, false)
	dir := t.TempDir()
	policy, first, second := writeHealthPolicy(t), filepath.Join(dir, "a.journal"), filepath.Join(dir, "b.journal")
	s, code, _, stderr := signalledRun(t, heldOnDisk{first}, 1, "--target", url, "--endpoint-id", "ep-r", "--events", "3",
		"--concurrency", "2", "--policy", policy, "--allow-private-targets", "--store", first)
	if code != 0 {
		t.Fatalf("exit %d after SIGTERM: %s", code, stderr)
	}
	if s.Held < 1 || s.Pending < s.Held || s.Holds["paused"] < 1 {
		t.Fatalf("want a held event left (counted in pending): %+v", s)
	}
	var held []testRecord
	for _, r := range readJournal(t, first) {
		if r.Status == "held" {
			held = append(held, r)
		}
	}
	if len(held) == 0 || held[0].HoldReason == nil || *held[0].HoldReason != "paused" || len(held[0].Policy.Health) == 0 || string(held[0].Policy.Health) == "null" {
		t.Fatalf("no held record with its reason and health section in the journal: %+v", held)
	}
	e.mu.Lock()
	e.okAlone = true // the receiver recovered (a resumed event goes to its journaled target)
	e.mu.Unlock()
	s2, stderr2, code2 := runReplica(t, "--target", url, "--endpoint-id", "ep-r", "--events", "0", "--policy", policy,
		"--allow-private-targets", "--resume", first, "--store", second)
	if code2 != 0 {
		t.Fatalf("resume: exit %d: %s", code2, stderr2)
	}
	after := readJournal(t, second)
	for _, h := range held {
		r := after[h.EventID]
		if r.Status != "delivered" || r.HeldMs == 0 {
			t.Fatalf("%s after resume: %s with held_ms %d, want delivered after a hold (summary %+v)", h.EventID, r.Status, r.HeldMs, s2)
		}
	}
}

// heldOnDisk is "received" once the journal holds a held record (the
// drain then leaves it held).
type heldOnDisk struct{ path string }

func (h heldOnDisk) received() int {
	if data, err := os.ReadFile(h.path); err == nil && bytes.Contains(data, []byte(`"status":"held"`)) {
		return 1
	}
	return 0
}

func TestAReplicaWithHealthOnRedisMakesAtMostOneCallPerAttemptPlusItsProbeCalls(t *testing.T) {
	port, admin := redisServer(t, nil, plainPort)
	e, url := newPauseEndpoint(t, true)
	s, stderr, code := runReplica(t, "--target", url, "--endpoint-id", "ep-redis-health", "--events", "6", "--concurrency", "2",
		"--policy", writeHealthPolicy(t), "--redis", "redis://127.0.0.1:"+strconv.Itoa(port)+"/0", "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.StopReasons["delivered"] != 6 || s.StoreErrors != 0 || s.Holds["paused"] < 1 {
		t.Fatalf("want 6 delivered through a held pause, no store error: %+v", s)
	}
	calls := evalCalls(t, admin)
	if calls == 0 || calls != s.RedisRoundTrips || s.RedisRoundTrips > s.Attempts+s.ProbeCalls {
		t.Fatalf("%d attempts, %d probe calls, %d round trips, Redis ran %d scripts: want at most one per attempt plus probes",
			s.Attempts, s.ProbeCalls, s.RedisRoundTrips, calls)
	}
	// the health state lives in the budget's hash: the pause is on record
	keys, err := admin.Keys(context.Background(), "rb:*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("budget keys %v %v", keys, err)
	}
	if v, err := admin.HGet(context.Background(), keys[0], "paused_until_ms").Uint64(); err != nil || v == 0 {
		t.Fatalf("paused_until_ms in %s: %d %v", keys[0], v, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.early) != 0 {
		t.Fatalf("requests %v inside the pause", e.early)
	}
}
