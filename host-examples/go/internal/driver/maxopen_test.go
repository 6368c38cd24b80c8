package driver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// inProgress is an endpoint that answers each event's first attempt 503
// and its second 200, and counts the events it has seen start and not yet
// delivered: each of them is open in the replica (admitted before its
// first attempt, stopped after the 200 came back), so the most it counts
// at once never exceeds the replica's open events, whatever the timing.
type inProgress struct {
	mu        sync.Mutex
	open      map[string]bool
	most      int
	delivered map[string]int
}

func (e *inProgress) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("X-Event-Id")
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.Header.Get("X-Attempt") == "1" {
		e.open[id] = true
		e.most = max(e.most, len(e.open))
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	delete(e.open, id)
	e.delivered[id]++
	w.WriteHeader(http.StatusOK)
}

// Every result that does not stop its event comes back with an admission
// offered beside it (the engine's max_open refuses it at_capacity), so a
// run at --concurrency 2 has many refusals: none may open a third event,
// lose an admission or admit one twice, and none is logged.
func TestTheEnginesMaxOpenKeepsConcurrencyOpenEventsAndEveryRefusedAdmissionIsTakenAgain(t *testing.T) {
	e := &inProgress{open: map[string]bool{}, delivered: map[string]int{}}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	policy := filepath.Join(t.TempDir(), "policy.json")
	doc := `{"version":"max-open","classes":{"storm":{"window_ms":600000,"hard_cap":3,
	  "backoff":{"base_ms":5,"factor":2.0,"cap_ms":20,"jitter":"none"},
	  "budget":{"ratio":1.0,"window_ms":60000,"min_sample":1000000,"sliding":true}}}}`
	if err := os.WriteFile(policy, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	const events = 60
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-open", "--events", fmt.Sprint(events),
		"--concurrency", "2", "--policy", policy, "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.Events != events || s.StopReasons["delivered"] != events || s.Attempts != 2*events || s.Pending != 0 {
		t.Errorf("want %d events delivered in 2 attempts each: %+v", events, s)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.most > 2 {
		t.Errorf("the endpoint saw %d events in progress at once; --concurrency is 2", e.most)
	}
	for i := range events {
		id := fmt.Sprintf("go-%d-%d", os.Getpid(), i)
		if e.delivered[id] != 1 {
			t.Errorf("event %s delivered %d times, want once", id, e.delivered[id])
		}
	}
	if len(e.delivered) != events {
		t.Errorf("the endpoint delivered %d distinct events, want %d", len(e.delivered), events)
	}
	if strings.Contains(stderr, "at_capacity") || strings.Contains(stderr, "refused") {
		t.Errorf("an at_capacity refusal is silent, stderr: %s", stderr)
	}
}
