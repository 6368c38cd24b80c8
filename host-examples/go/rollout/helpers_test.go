package rollout_test

import (
	"context"
	"sync"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testrollout"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

var ctx = context.Background()

// engine is an Engine on the embedded artifact.
func engine(t *testing.T) *rp.Engine {
	t.Helper()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close(ctx) })
	return e
}

// reports collects a follower's reported events.
type reports struct {
	mu     sync.Mutex
	events []rollout.Event
}

func (r *reports) add(ev rollout.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *reports) count(k rollout.Kind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.events {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

// follower follows f's store as id on e, reporting to r.
func follower(f *testrollout.Fleet, id string, e rollout.Runner, r *reports) *rollout.Follower {
	f.T.Helper()
	fl, err := rollout.NewFollower(rollout.Config{Client: testrollout.Client(f.T, f.Port), Trusted: f.Trusted, Engine: e, ReplicaID: id, Report: r.add})
	if err != nil {
		f.T.Fatal(err)
	}
	return fl
}

// status is the status record id wrote.
func status(f *testrollout.Fleet, id string) rollout.Status {
	f.T.Helper()
	s, ok := f.Status(id)
	if !ok {
		f.T.Fatalf("%s wrote no status record", id)
	}
	return s
}
