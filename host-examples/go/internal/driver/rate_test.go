package driver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// arrivals answers 200 and notes when each request arrived.
func arrivals(t *testing.T) (*httptest.Server, func() []time.Time) {
	var mu sync.Mutex
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []time.Time {
		mu.Lock()
		defer mu.Unlock()
		return append([]time.Time(nil), at...)
	}
}

func TestRatePacesAdmissionsSoTenEventsAtTwentyPerSecondSpanAtLeastFourHundredMilliseconds(t *testing.T) {
	srv, seen := arrivals(t)
	policy := writePolicy(t, "1.0", "1000000")
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-rate", "--events", "10",
		"--concurrency", "10", "--rate", "20", "--policy", policy, "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.Events != 10 || s.StopReasons["delivered"] != 10 {
		t.Fatalf("want 10 events delivered: %+v", s)
	}
	at := seen()
	if len(at) != 10 {
		t.Fatalf("the endpoint saw %d requests, want 10", len(at))
	}
	first, last := at[0], at[0]
	for _, a := range at {
		first, last = minTime(first, a), maxTime(last, a)
	}
	// 9 gaps of 50 ms: at least 450 ms, 400 with slack (a lower bound only).
	span := last.Sub(first)
	t.Logf("first to last arrival: %v", span)
	if span < 400*time.Millisecond {
		t.Errorf("first and last arrivals %v apart, want at least 400ms", span)
	}
}

func TestRateEndsAdmittingAtTheDeadline(t *testing.T) {
	srv, seen := arrivals(t)
	policy := writePolicy(t, "1.0", "1000000")
	// 1 event per 100 s: only the first is due before a 100 ms deadline;
	// the run ends then, not at the next admission instant.
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-rate", "--events", "5",
		"--rate", "0.01", "--deadline-ms", "100", "--policy", policy, "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if s.Events != 1 || s.StopReasons["delivered"] != 1 || len(seen()) != 1 {
		t.Errorf("want 1 event admitted and delivered: %+v (the endpoint saw %d)", s, len(seen()))
	}
	if s.ElapsedMs >= 50000 {
		t.Errorf("the run took %d ms: it waited for the next admission past the deadline", s.ElapsedMs)
	}
}

func TestABadRateExitsWith2NamingRate(t *testing.T) {
	policy := writePolicy(t, "1.0", "10")
	for _, rate := range []string{"0", "abc", "-1", "NaN", "Inf", ""} {
		t.Run(rate, func(t *testing.T) {
			_, stderr, code := runReplica(t, "--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "1",
				"--policy", policy, "--rate", rate)
			if code != 2 || !strings.Contains(stderr, "--rate") {
				t.Errorf("exit %d, stderr %q: want 2 and --rate", code, stderr)
			}
		})
	}
}

func TestTheHelpTextNamesRate(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Main(context.Background(), []string{"--help"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "--rate N") {
		t.Errorf("exit %d, stdout %q: want 0 and --rate N", code, stdout.String())
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
