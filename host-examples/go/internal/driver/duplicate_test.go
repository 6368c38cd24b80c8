package driver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A retry an hour after the first attempt: a resumed event that got a 503
// stays open, waiting, for as long as a test runs (unless the clock jumps).
const hourRetryPolicy = `{"version":"duplicate","classes":{"storm":{"window_ms":86400000,"hard_cap":3,
  "backoff":{"base_ms":3600000,"factor":1.0,"cap_ms":3600000,"jitter":"none"},
  "budget":{"ratio":1.0,"window_ms":60000,"min_sample":1000000,"sliding":true}}}}`

// firstFails answers 503 to every attempt while fail is set, else 204,
// and counts each (event, attempt) and each event's 204s.
type firstFails struct {
	fail      atomic.Bool
	mu        sync.Mutex
	pairs     map[string]int
	delivered map[string]int
}

func (e *firstFails) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("X-Event-Id")
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pairs[id+"#"+r.Header.Get("X-Attempt")]++
	if e.fail.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	e.delivered[id]++
	w.WriteHeader(http.StatusNoContent)
}

func (e *firstFails) counts() (requests, delivered int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range e.pairs {
		requests += n
	}
	for _, n := range e.delivered {
		delivered += n
	}
	return requests, delivered
}

// runInProcess runs the replica in this process (its ids are go-<this
// pid>-i, the same in every run), drains it once until() holds (never if
// until is nil), and returns its summary and stderr. 120 s is a hang.
func runInProcess(t *testing.T, until func() bool, args ...string) (Summary, string) {
	t.Helper()
	engine, cfg := configured(t, args...)
	began := make(chan struct{})
	var stderr bytes.Buffer
	type ended struct {
		s   Summary
		err error
	}
	done := make(chan ended, 1)
	go func() {
		s, err := run(context.Background(), engine, cfg, &drainSignal{began: began}, &stderr)
		done <- ended{s, err}
	}()
	hang := time.After(120 * time.Second)
	for poll := time.Tick(5 * time.Millisecond); until != nil; {
		select {
		case <-poll:
			if until() {
				close(began)
				until = nil
			}
		case <-hang:
			t.Fatal("the condition to drain on never held in 120 s")
		}
	}
	select {
	case e := <-done:
		if e.err != nil {
			t.Fatalf("run: %v: %s", e.err, stderr.String())
		}
		return e.s, stderr.String()
	case <-hang:
		t.Fatal("the run did not end in 120 s")
	}
	return Summary{}, ""
}

// A run resuming its journal admits ids the journal holds open (the same
// prefix: the same pid here, a fixed prefix in a fleet): the engine
// refuses those duplicate_event and keeps the resumed events open. They
// stay this run's resumed events (counted once, pending until they stop),
// the other ids are admitted, and every event is delivered exactly once.
func TestAResumedRunAdmittingIdsItsJournalHoldsKeepsThoseOpenAndAdmitsTheRest(t *testing.T) {
	e := &firstFails{pairs: map[string]int{}, delivered: map[string]int{}}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	policy, store := filepath.Join(dir, "policy.json"), filepath.Join(dir, "events.journal")
	if err := os.WriteFile(policy, []byte(hourRetryPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(events, concurrency int, more ...string) []string {
		return append([]string{"--target", srv.URL, "--endpoint-id", "ep-dup", "--events", fmt.Sprint(events),
			"--concurrency", fmt.Sprint(concurrency), "--policy", policy, "--allow-private-targets",
			"--store", store, "--drain-ms", "60000"}, more...)
	}
	id := func(i int) string { return fmt.Sprintf("go-%d-%d", os.Getpid(), i) }

	// Run 1: ids 0 and 1 get a 503 and wait an hour (max_open 2: nothing
	// else is admitted); drained once both were answered.
	e.fail.Store(true)
	s1, stderr1 := runInProcess(t, func() bool { n, _ := e.counts(); return n == 2 }, args(4, 2)...)
	if s1.Events != 2 || s1.Pending != 2 || s1.Attempts != 2 {
		t.Fatalf("run 1: want ids 0 and 1 pending: %+v: %s", s1, stderr1)
	}

	// Run 2 offers ids 0..3: 0 and 1 are the journal's (duplicate_event),
	// 2 and 3 are admitted and delivered; drained while 0 and 1 wait.
	e.fail.Store(false)
	s2, stderr2 := runInProcess(t, func() bool { _, n := e.counts(); return n == 2 }, args(4, 4)...)
	checkDrainedSummary(t, s2)
	if s2.Events != 4 || s2.Pending != 2 || s2.StopReasons["delivered"] != 2 || s2.Attempts != 2 {
		t.Errorf("run 2: want 2 resumed events pending and 2 admitted delivered: %+v", s2)
	}
	pending := 0
	for _, r := range readJournal(t, store) {
		if r.Status == "pending" {
			pending++
		}
	}
	if uint64(pending) != s2.Pending {
		t.Errorf("run 2: the journal holds %d pending events, the summary says %d", pending, s2.Pending)
	}
	if !strings.Contains(stderr2, "duplicate_event") {
		t.Errorf("run 2: a dropped admission is logged, stderr: %s", stderr2)
	}

	// Run 3, two hours on: ids 0 and 1 again (both duplicate_event); the
	// resumed events are due, delivered, and the run ends after them.
	s3, stderr3 := runInProcess(t, nil, args(2, 4, "--clock-offset-ms", "7200000")...)
	checkNothingLost(t, s3)
	if s3.Events != 2 || s3.Pending != 0 || s3.StopReasons["delivered"] != 2 || s3.Retries != 2 {
		t.Errorf("run 3: want the 2 resumed events delivered on a retry: %+v: %s", s3, stderr3)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := range 4 {
		if e.delivered[id(i)] != 1 {
			t.Errorf("%s delivered %d times, want once", id(i), e.delivered[id(i)])
		}
	}
	for pair, n := range e.pairs {
		if n > 1 {
			t.Errorf("attempt %s received %d times", pair, n)
		}
	}
}
