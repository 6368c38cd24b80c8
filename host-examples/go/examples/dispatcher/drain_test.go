package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// TestMain lets a test run this package's binary as the dispatcher itself:
// with DISPATCHER_TEST_AS_MAIN=1 the test binary is the command (its
// arguments after "--").
func TestMain(m *testing.M) {
	if os.Getenv("DISPATCHER_TEST_AS_MAIN") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{os.Args[0]}, os.Args[i+1:]...)
				break
			}
		}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// drainHarness is a dispatcher on the wall clock delivering to an endpoint
// that answers 503 after delay.
type drainHarness struct {
	d        *Dispatcher
	store    *FileStore
	dir      string
	requests atomic.Int64
	url      string
}

func newDrainHarness(t *testing.T, delay time.Duration) *drainHarness {
	t.Helper()
	h := &drainHarness{dir: t.TempDir()}
	quit := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		case <-quit:
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(func() { close(quit); srv.CloseClientConnections(); srv.Close() })
	h.url = srv.URL
	ctx := context.Background()
	clock := rp.SystemClock{}
	engine, err := rp.New(ctx, rp.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = engine.Close(ctx) })
	if h.store, err = OpenFileStore(h.dir, journal.ComponentHasher(ctx, engine)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.store.Close() })
	doc, err := engine.LoadDocument(ctx, []byte(testDocument))
	if err != nil {
		t.Fatal(err)
	}
	if h.d, err = NewDispatcher(Config{Engine: engine, Budget: rp.NewMemoryStore(engine), Document: doc, Store: h.store,
		Metrics: NewMetrics(), AttemptDeadline: 30 * time.Second, AllowPrivateTargets: true, Clock: clock,
		Sleeper: realSleeper{clock}, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"e0", "e1", "e2", "e3", "e4", "e5"} {
		if _, err := h.d.Enqueue(ctx, Event{ID: id, EndpointID: "ep", URL: h.url, Class: "notification", Payload: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// drainAfter runs the dispatcher, drains it once requests arrived, and
// returns how long RunUntilIdle took to return after the drain.
func (h *drainHarness) drainAfter(t *testing.T, requests int64, deadline time.Duration) time.Duration {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- h.d.RunUntilIdle(context.Background()) }()
	for start := time.Now(); h.requests.Load() < requests; time.Sleep(2 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("%d requests in 20 s", h.requests.Load())
		}
	}
	h.d.Drain(deadline)
	drained := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunUntilIdle after a drain: %v", err)
		}
	case <-time.After(deadline + 5*time.Second):
		t.Fatal("RunUntilIdle did not return after the drain's deadline")
	}
	return time.Since(drained)
}

// pendingInTheJournal reopens the store's journal as a restarted process would.
func (h *drainHarness) pendingInTheJournal(t *testing.T) map[string]journal.Record {
	t.Helper()
	_ = h.store.Close()
	if _, err := os.Stat(journal.LockPath(h.store.Path())); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the lock outlived the close: %v", err)
	}
	engine, err := rp.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close(context.Background())
	recs, err := journal.ReadFile(h.store.Path(), journal.ComponentHasher(context.Background(), engine))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]journal.Record{}
	for _, r := range recs {
		if r.Status == journal.StatusPending {
			out[r.EventID] = r
		}
	}
	return out
}

func TestADrainFinishesTheAttemptsInProgressStartsNoOtherAndLeavesEveryEventPendingInTheJournal(t *testing.T) {
	h := newDrainHarness(t, 300*time.Millisecond)
	took := h.drainAfter(t, 2, 5*time.Second)
	if took > 2*time.Second {
		t.Errorf("returned %v after the drain; the attempts in progress take 300 ms", took)
	}
	if n := h.requests.Load(); n != 2 {
		t.Errorf("%d requests: an attempt started after the drain (2 were in progress)", n)
	}
	if _, err := h.d.Enqueue(context.Background(), Event{ID: "late", EndpointID: "ep", URL: h.url, Class: "notification"}); !errors.Is(err, ErrDraining) {
		t.Errorf("an event offered after the drain: %v, want ErrDraining", err)
	}
	pending := h.pendingInTheJournal(t)
	attempted := 0
	for _, r := range pending {
		if r.Attempts == 1 {
			attempted++
			if r.LastOutcome != "503" || r.NextAttemptAtMs <= r.FirstAttemptedAtMs {
				t.Errorf("%s: an attempt finished in the drain is settled and journaled: %+v", r.EventID, r)
			}
		}
	}
	if len(pending) != 6 || attempted != 2 {
		t.Fatalf("%d events pending in the journal (%d attempted), want all 6 (2 attempted)", len(pending), attempted)
	}
}

func TestAnAttemptOutlastingTheDrainIsAbandonedAtItsDeadlineCountedAndItsEventPending(t *testing.T) {
	h := newDrainHarness(t, 10*time.Second)
	took := h.drainAfter(t, 2, 200*time.Millisecond)
	if took > 2*time.Second {
		t.Errorf("returned %v after a 200 ms drain", took)
	}
	pending := h.pendingInTheJournal(t)
	abandoned := 0
	for _, r := range pending {
		if r.Attempts == 1 && r.LastOutcome == string(httpoutcome.ReadTimeout) {
			abandoned++
		}
	}
	if len(pending) != 6 || abandoned != 2 {
		t.Fatalf("%d pending, %d abandoned attempts journaled; want 6 and 2", len(pending), abandoned)
	}
}

func TestSIGTERMDrainsTheCommandWhichPrintsItsTablesAndExitsZeroWithTheRestPendingInTheJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the command")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "-allow-private-targets", "-class", "notification",
		"-events", "2", "-store", dir, "-drain-ms", "500")
	cmd.Env = append(os.Environ(), "DISPATCHER_TEST_AS_MAIN=1")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); !strings.Contains(stdout.String(), "delivering..."); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			_ = cmd.Process.Kill()
			t.Fatalf("not delivering after 30 s: %s %s", stdout.String(), stderr.String())
		}
	}
	time.Sleep(300 * time.Millisecond) // first attempts made: the 503 and closed ones wait 2 s or more for a retry
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if took := time.Since(signalled); took > 3*time.Second {
		t.Errorf("exited %v after SIGTERM", took)
	}
	out := stdout.String()
	for _, want := range []string{"terminated: draining", "drained: 4 events pending", "webhook_"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(journal.LockPath(filepath.Join(dir, JournalFile))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the drained command left its lock: %v", err)
	}
	engine, err := rp.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close(context.Background())
	recs, err := journal.ReadFile(filepath.Join(dir, JournalFile), journal.ComponentHasher(context.Background(), engine))
	status := map[string]int{}
	for _, r := range recs {
		status[r.Status]++
	}
	if err != nil || status[journal.StatusPending] != 4 || status[journal.StatusDelivered] != 2 || status[journal.StatusDeadLettered] != 2 {
		t.Errorf("the journal after the drain: %v %v; want 4 pending (503, closed), 2 delivered, 2 dead-lettered (410)", status, err)
	}
}

// syncBuffer is a bytes.Buffer safe to read while the command writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
