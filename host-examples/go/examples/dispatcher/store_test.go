package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func testRecord(id, state string) *Record {
	return &Record{Event: Event{ID: id, EndpointID: "ep", URL: "http://x/", Class: "c", Payload: []byte(`{}`)}, State: state}
}

func TestATornLastRecordIsCutAndLaterAppendsReadBack(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenFileStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Save(testRecord("a", StatePending))
	_ = s.Close()
	f, _ := os.OpenFile(filepath.Join(dir, "journal.jsonl"), os.O_APPEND|os.O_WRONLY, 0o600)
	_, _ = f.WriteString(`{"record":{"event":{"id":"b","endp`) // a crash mid-write
	f.Close()
	for round := 0; round < 2; round++ {
		if s, err = OpenFileStore(dir); err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			_ = s.Save(testRecord("c", StateDelivered))
		}
		if _, err := s.Load("b"); err == nil {
			t.Fatal("the torn record was kept")
		}
		if r, err := s.Load("c"); err != nil || r.State != StateDelivered {
			t.Fatalf("the append after the torn line: %+v %v", r, err)
		}
		if _, err := s.Load("a"); err != nil {
			t.Fatal(err)
		}
		_ = s.Close()
	}
}

func TestACorruptLineBeforeTheLastRefusesToOpen(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte("garbage\n{\"record\":{\"event\":{\"id\":\"a\"}}}\n"), 0o600)
	if _, err := OpenFileStore(dir); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("want a corruption error, got %v", err)
	}
}

func TestASecondWriterIsRefusedWhileTheFirstHoldsTheLock(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenFileStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFileStore(dir); !errors.Is(err, ErrStoreLocked) {
		t.Fatalf("second open: %v, want ErrStoreLocked", err)
	}
	_ = s.Close()
	s2, err := OpenFileStore(dir)
	if err != nil {
		t.Fatalf("after close: %v", err)
	}
	_ = s2.Close()
}

func TestCompactionKeepsOneLinePerEventAndEveryState(t *testing.T) {
	dir := t.TempDir()
	s, _ := OpenFileStore(dir)
	for i := 0; i < 50; i++ {
		for _, st := range []string{StatePending, StatePending, StateDelivered} {
			_ = s.Save(testRecord(fmt.Sprintf("e%d", i), st))
		}
	}
	dl := DeadLetterRecord{DisableEndpoint: true}
	dl.EventID = "gone"
	_ = s.Finish(testRecord("gone", StateDeadLettered), dl)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	raw, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if n := strings.Count(string(raw), "\n"); n != 51 {
		t.Fatalf("%d lines after compaction, want 51", n)
	}
	s, _ = OpenFileStore(dir)
	defer s.Close()
	dls, _ := s.DeadLetters()
	disabled, _ := s.DisabledEndpoints()
	if c := s.Counts(); c[StateDelivered] != 50 || c[StateDeadLettered] != 1 || len(dls) != 1 || !disabled["ep"] {
		t.Fatalf("after compaction: %v, dead letters %d, disabled %v", c, len(dls), disabled)
	}
}

const crashEvents = 40

// The child half of the crash test: a dispatcher on STORE_CRASH_DIR that
// enqueues the same events (idempotently) and delivers until idle.
func TestCrashChildDeliversUntilIdle(t *testing.T) {
	dir := os.Getenv("STORE_CRASH_DIR")
	if dir == "" {
		t.Skip("run by TestADispatcherKilledMidWriteTwiceLosesAndDuplicatesNoEvent")
	}
	ctx := context.Background()
	store, err := OpenFileStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	clock := rp.SystemClock{}
	engine, _ := rp.New(ctx, rp.WithClock(clock))
	doc, _ := engine.LoadDocument(ctx, policyJSON)
	d, err := NewDispatcher(Config{Engine: engine, Budget: rp.NewMemoryStore(engine), Document: doc, Store: store, Metrics: NewMetrics(),
		AllowPrivateTargets: true, AttemptDeadline: 2 * time.Second, Clock: clock, Sleeper: realSleeper{clock}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < crashEvents; i++ {
		if _, err := d.Enqueue(ctx, Event{ID: fmt.Sprintf("evt_%02d", i), EndpointID: "ep", URL: os.Getenv("STORE_CRASH_URL") + fmt.Sprintf("/%d", i%2),
			Class: "demo", Payload: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.RunUntilIdle(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestADispatcherKilledMidWriteTwiceLosesAndDuplicatesNoEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns dispatchers")
	}
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("webhook-id")]++
		mu.Unlock()
		time.Sleep(3 * time.Millisecond)
		if strings.HasSuffix(r.URL.Path, "/1") {
			w.WriteHeader(http.StatusServiceUnavailable) // retried until the 3 s demo window closes
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	requests := func() (n int) {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range seen {
			n += c
		}
		return n
	}
	dir := t.TempDir()
	for run, killAfter := range []int{8, 30, -1} { // kill, kill again, then run to the end
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChildDeliversUntilIdle$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STORE_CRASH_DIR="+dir, "STORE_CRASH_URL="+srv.URL)
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if killAfter < 0 {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("final run: %v\n%s", err, out)
			}
			break
		}
		start := requests()
		for deadline := time.Now().Add(20 * time.Second); requests() < start+killAfter && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		t.Logf("run %d killed after %d requests", run+1, requests()-start)
	}
	s, err := OpenFileStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	counts := s.Counts()
	dls, _ := s.DeadLetters()
	perEvent := map[string]int{}
	for _, dl := range dls {
		perEvent[dl.EventID]++
	}
	dup := 0
	for _, n := range perEvent {
		dup += n - 1
	}
	redelivered := 0
	for i := 0; i < crashEvents; i += 2 {
		if n := seen[fmt.Sprintf("evt_%02d", i)]; n > 1 {
			redelivered += n - 1
		}
	}
	lost := crashEvents - counts[StateDelivered] - counts[StateDeadLettered]
	t.Logf("%d events: %d delivered, %d dead-lettered, %d pending, %d lost, %d duplicated dead letters; "+
		"%d redeliveries of a delivered event (at least once, same webhook-id)",
		crashEvents, counts[StateDelivered], counts[StateDeadLettered], counts[StatePending], lost, dup, redelivered)
	if lost != 0 || dup != 0 || counts[StatePending] != 0 || len(dls) != counts[StateDeadLettered] ||
		counts[StateDelivered] != crashEvents/2 {
		t.Fatalf("events lost or duplicated: %v, dead letters %d", counts, len(dls))
	}
}
