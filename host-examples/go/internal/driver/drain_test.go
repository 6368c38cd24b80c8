package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run this package's binary as the replica itself: with
// REPLICA_TEST_AS_MAIN=1 the test binary is the replica (its arguments
// after "--").
func TestMain(m *testing.M) {
	if os.Getenv("REPLICA_TEST_AS_MAIN") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{os.Args[0]}, os.Args[i+1:]...)
				break
			}
		}
		KeepSignals = true
		os.Exit(Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// slowEndpoint answers 503 after delay and records every (event, attempt).
type slowEndpoint struct {
	mu   sync.Mutex
	seen map[string]int
}

func newSlowEndpoint(t *testing.T, delay time.Duration) (*slowEndpoint, string) {
	e := &slowEndpoint{seen: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.seen[r.Header.Get("X-Event-Id")+"#"+r.Header.Get("X-Attempt")]++
		e.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(func() { srv.CloseClientConnections(); srv.Close() })
	return e, srv.URL
}

func (e *slowEndpoint) duplicates() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var d []string
	for k, n := range e.seen {
		if n > 1 {
			d = append(d, fmt.Sprintf("%s x%d", k, n))
		}
	}
	return d
}

func (e *slowEndpoint) received() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.seen)
}

// signalledRun starts the replica as a subprocess, sends SIGTERM once e
// received afterRequests requests, and returns its summary, exit code and
// how long it took to exit after the signal.
func signalledRun(t *testing.T, e interface{ received() int }, afterRequests int, args ...string) (Summary, int, time.Duration, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "REPLICA_TEST_AS_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); e.received() < afterRequests; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 60*time.Second {
			_ = cmd.Process.Kill()
			t.Fatalf("the endpoint received %d requests in 60 s: %s", e.received(), stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	time.AfterFunc(200*time.Millisecond, func() { _ = cmd.Process.Signal(syscall.SIGTERM) }) // ignored
	err := cmd.Wait()
	took := time.Since(signalled)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var s Summary
	if code == 0 {
		if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &s); err != nil {
			t.Fatalf("stdout is not one summary line: %v: %q", err, stdout.String())
		}
	}
	return s, code, took, stderr.String()
}

func checkDrainedSummary(t *testing.T, s Summary) {
	t.Helper()
	var stopped uint64
	for _, n := range s.StopReasons {
		stopped += n
	}
	if !s.Drained || s.Events != stopped+s.Pending {
		t.Errorf("want drained and events == sum(stop_reasons) + pending: %+v", s)
	}
	if s.Attempts != s.FirstAttempts+s.Retries {
		t.Errorf("attempts %d != first %d + retries %d", s.Attempts, s.FirstAttempts, s.Retries)
	}
}

func TestSIGTERMMidRunDrainsExitsZeroAndSendsNoAttemptTwice(t *testing.T) {
	endpoint, url := newSlowEndpoint(t, 150*time.Millisecond)
	policy := writePolicy(t, "1.0", "1000000")
	s, code, took, stderr := signalledRun(t, endpoint, 30, "--target", url, "--endpoint-id", "ep-drain",
		"--events", "500", "--concurrency", "8", "--policy", policy, "--drain-ms", "1000", "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d after SIGTERM: %s", code, stderr)
	}
	if took > 3*time.Second { // drain-ms + 2 s
		t.Errorf("exited %v after SIGTERM, want within drain-ms + 2 s", took)
	}
	t.Logf("exited %v after SIGTERM: %+v", took, s)
	checkDrainedSummary(t, s)
	if s.Events >= 500 || s.Events == 0 {
		t.Errorf("want the run cut short: %+v", s)
	}
	if d := endpoint.duplicates(); len(d) > 0 {
		t.Errorf("attempts received twice: %v", d)
	}
}

func TestAnAttemptStillRunningAtTheDrainDeadlineIsAbandonedAndItsEventPending(t *testing.T) {
	endpoint, url := newSlowEndpoint(t, 2500*time.Millisecond)
	policy := writePolicy(t, "1.0", "1000000")
	s, code, took, stderr := signalledRun(t, endpoint, 4, "--target", url, "--endpoint-id", "ep-drain",
		"--events", "100", "--concurrency", "4", "--policy", policy, "--drain-ms", "200", "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d after SIGTERM: %s", code, stderr)
	}
	if took > 2200*time.Millisecond {
		t.Errorf("exited %v after SIGTERM, want within drain-ms + 2 s", took)
	}
	checkDrainedSummary(t, s)
	if s.Events != 4 || s.Pending != 4 || s.Attempts != 4 {
		t.Errorf("want the 4 events in progress pending, their attempts counted as made: %+v", s)
	}
	if d := endpoint.duplicates(); len(d) > 0 {
		t.Errorf("attempts received twice: %v", d)
	}
}
