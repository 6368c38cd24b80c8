package rollout_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testrollout"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

var ctx = context.Background()

// engine is an Engine on the embedded artifact.
func engine(t testing.TB) *rp.Engine {
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

// lines counts the reported log lines starting with prefix.
func (r *reports) lines(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.events {
		for _, l := range ev.Log {
			if strings.HasPrefix(l, prefix) {
				n++
			}
		}
	}
	return n
}

// The log lines' starts (docs/rollout.md).
const (
	refusedLine     = "policy artifact refused source=redis "
	unreachableLine = "rollout: store unreachable, keeping sha256="
	reachableLine   = "rollout: store reachable again"
)

// newFollower follows client as id on e with trust, reporting to r.
func newFollower(t testing.TB, client redis.UniversalClient, trust []byte, id string, e rollout.Runner, r *reports) *rollout.Follower {
	t.Helper()
	fl, err := rollout.NewFollower(ctx, rollout.Config{Client: client, TrustPEM: trust, Engine: e, ReplicaID: id, Report: r.add})
	if err != nil {
		t.Fatal(err)
	}
	return fl
}

// follower follows f's store as id on e, reporting to r.
func follower(f *testrollout.Fleet, id string, e rollout.Runner, r *reports) *rollout.Follower {
	f.T.Helper()
	return newFollower(f.T, testrollout.Client(f.T, f.Port), f.TrustPEM, id, e, r)
}

// status is the status record id wrote.
func status(f *testrollout.Fleet, id string) testrollout.Status {
	f.T.Helper()
	s, ok := f.Status(id)
	if !ok {
		f.T.Fatalf("%s wrote no status record", id)
	}
	return s
}
