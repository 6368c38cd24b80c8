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

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

var (
	storeEngineOnce sync.Once
	storeEngine     *rp.Engine
	storeEngineErr  error
)

// storeHasher checks journaled policies through the embedded artifact.
func storeHasher(t *testing.T) journal.Hasher {
	t.Helper()
	storeEngineOnce.Do(func() { storeEngine, storeEngineErr = rp.New(context.Background()) })
	if storeEngineErr != nil {
		t.Fatal(storeEngineErr)
	}
	return journal.ComponentHasher(context.Background(), storeEngine)
}

func openStore(t *testing.T, dir string) *FileStore {
	t.Helper()
	s, err := OpenFileStore(dir, storeHasher(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testRecord is an event admitted as class notification of testDocument, in state.
func testRecord(t *testing.T, id, state string) *Record {
	t.Helper()
	storeHasher(t)
	ctx := context.Background()
	doc, err := storeEngine.LoadDocument(ctx, []byte(testDocument))
	if err != nil {
		t.Fatal(err)
	}
	adm, err := storeEngine.Admit(ctx, doc, "notification", t0)
	if err != nil {
		t.Fatal(err)
	}
	policy, _ := classPolicy(doc, "notification")
	return &Record{Event: Event{ID: id, EndpointID: "ep", URL: "http://x/", Class: "notification", Payload: []byte(`{}`)},
		Admission: adm, Policy: policy, NextAttemptAtMs: t0, State: state}
}

func TestATornLastRecordIsCutAndLaterAppendsReadBack(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	_ = s.Save(testRecord(t, "a", StatePending))
	_ = s.Close()
	f, _ := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0o600)
	_, _ = f.WriteString(`0a1b2c3d {"v":1,"type":"event","event_id":"b","endp`) // a crash mid-write
	f.Close()
	for round := 0; round < 2; round++ {
		s = openStore(t, dir)
		if round == 0 {
			_ = s.Save(testRecord(t, "c", StateDelivered))
		}
		if _, err := s.Load("b"); err == nil {
			t.Fatal("the torn record was kept")
		}
		if r, err := s.Load("c"); err != nil || r.State != StateDelivered {
			t.Fatalf("the append after the torn line: %+v %v", r, err)
		}
		if r, err := s.Load("a"); err != nil || string(r.Event.Payload) != `{}` || r.Admission.Schedule.MaxAttempts != 13 {
			t.Fatalf("a read back: %+v %v", r, err)
		}
		_ = s.Close()
	}
}

func TestACorruptLineBeforeTheLastRefusesToOpen(t *testing.T) {
	dir := t.TempDir()
	data := append(journal.HeaderLine(t0), "garbage\n00000000 {}\n"...)
	_ = os.WriteFile(filepath.Join(dir, JournalFile), data, 0o600)
	var je *journal.Error
	if _, err := OpenFileStore(dir, storeHasher(t)); !errors.As(err, &je) || je.Code != journal.CodeCorrupt || je.Line != 2 {
		t.Fatalf("want journal_corrupt at line 2, got %v", err)
	}
	if _, err := os.Stat(journal.LockPath(filepath.Join(dir, JournalFile))); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused open left its lock")
	}
}

func TestASecondWriterIsRefusedWhileTheFirstHoldsTheLock(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	if _, err := OpenFileStore(dir, storeHasher(t)); !errors.Is(err, ErrStoreLocked) {
		t.Fatalf("second open: %v, want ErrStoreLocked", err)
	}
	_ = s.Close()
	s2, err := OpenFileStore(dir, storeHasher(t))
	if err != nil {
		t.Fatalf("after close: %v", err)
	}
	_ = s2.Close()
}

func TestCompactionKeepsTheHeaderAndEveryLiveEventAndDropsDeliveredOnes(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	for i := 0; i < 50; i++ {
		for _, st := range []string{StatePending, StatePending, StateDelivered} {
			_ = s.Save(testRecord(t, fmt.Sprintf("e%d", i), st))
		}
	}
	_ = s.Save(testRecord(t, "waiting", StatePending))
	gone := testRecord(t, "gone", StatePending)
	dl := DeadLetterRecord{DisableEndpoint: true, DeadLetteredAtMs: t0 + 5}
	dl.EventID, dl.EndpointID, dl.StopReason, dl.Attempts = "gone", "ep", rp.StopReasonTerminalResponse, 1
	_ = s.Finish(gone, dl)
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	raw, _ := os.ReadFile(filepath.Join(dir, JournalFile))
	if n := strings.Count(string(raw), "\n"); n != 3 {
		t.Fatalf("%d lines after compaction, want the header, the pending event and the dead letter:\n%s", n, raw)
	}
	s = openStore(t, dir)
	defer s.Close()
	dls, _ := s.DeadLetters()
	disabled, _ := s.DisabledEndpoints()
	if c := s.Counts(); c[StateDelivered] != 0 || c[StatePending] != 1 || c[StateDeadLettered] != 1 || len(dls) != 1 ||
		!disabled["ep"] || dls[0].StopReason != rp.StopReasonTerminalResponse || dls[0].DeadLetteredAtMs != t0+5 {
		t.Fatalf("after compaction: %v, dead letters %+v, disabled %v", c, dls, disabled)
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
	clock := rp.SystemClock{}
	engine, _ := rp.New(ctx, rp.WithClock(clock))
	store, err := OpenFileStore(dir, journal.ComponentHasher(ctx, engine))
	if err != nil {
		t.Fatal(err)
	}
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
	s := openStore(t, dir)
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
