package driver

import (
	"context"
	"fmt"
	"io"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/policyinfo"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

// following is --artifact-from-redis (docs/rollout.md): the library's
// follower on the replica's own Redis connection (--redis or
// --redis-cluster: TLS, ACL user, Cluster) and its own engine, whose
// SwapArtifactFrom runs the artifact load checks --watch-artifact-ms runs;
// a swap reaches the delivery engine through the same path (swapped).
type following struct {
	f      *rollout.Follower
	poll   time.Duration
	stderr io.Writer
	// Set before the background ticks start (run), so the ticking
	// goroutine reads them without a lock.
	info    *policyinfo.Info // nil until /metrics' families exist (the first tick runs before)
	swapped func()
	version func(rp.ArtifactInfo) string // --policy's version (nil: the artifact's document's)
}

// startFollowing makes the follower and runs its first tick, before the
// document is read and before any admission: a replica that starts during
// a rollout runs what the rule says for its id. A failed first tick (Redis
// down, a refusal) leaves the local artifact running. nil without
// --artifact-from-redis.
func startFollowing(ctx context.Context, cfg Config, engine *rp.Engine, store *redisBudget, stderr io.Writer) (*following, error) {
	if !cfg.Rollout.Follow || store == nil {
		return nil, nil
	}
	fl := &following{poll: cfg.Rollout.Poll, stderr: stderr}
	f, err := rollout.NewFollower(rollout.Config{Client: store.client, Trusted: cfg.Rollout.Trusted, Engine: engine,
		ReplicaID: cfg.Rollout.ReplicaID, Timeout: time.Duration(cfg.StoreTimeoutMs) * time.Millisecond, Report: fl.report,
		DocumentVersion: fl.documentVersion})
	if err != nil {
		return nil, usageErrorf("--artifact-from-redis: %v", err)
	}
	fl.f = f
	f.Tick(ctx)
	return fl, nil
}

// useDocument names the current document's version for the status
// record once the replica read its document (after the first tick, which
// writes the artifact's): --policy's, else (nil) the artifact's.
func (fl *following) useDocument(version func(rp.ArtifactInfo) string) {
	if fl != nil {
		fl.version = version
	}
}

func (fl *following) documentVersion(a rp.ArtifactInfo) string {
	if fl.version == nil {
		return a.DocumentVersion
	}
	return fl.version(a)
}

// follower is the library's follower (nil when not following).
func (fl *following) follower() *rollout.Follower {
	if fl == nil {
		return nil
	}
	return fl.f
}

// run ticks every --rollout-poll-ms in the background until ctx ends (a
// tick, its fetch and load never block delivery: the delivery engine moves
// only when the loop takes the swap); the returned func waits for it.
func (fl *following) run(ctx context.Context, info *policyinfo.Info, swapped func()) (wait func()) {
	fl.info, fl.swapped = info, swapped
	done := make(chan struct{})
	go func() {
		defer close(done)
		fl.f.Run(ctx, fl.poll)
	}()
	return func() { <-done }
}

// report logs a follower's event: a swap as a file swap is logged (and
// webhook_policy_info moves), a refusal with docs/rollout.md's line
// (webhook_policy_reloads_total{result="refused"} counts it), the rest as
// is. Before /metrics exists (the first tick) nothing is counted, and a
// swap is told by the load line alone.
func (fl *following) report(ev rollout.Event) {
	info := fl.info
	switch {
	case ev.Kind == rollout.Swapped && info == nil:
		return // the first tick's: the "policy artifact loaded ... source=redis" line says it
	case ev.Kind == rollout.Swapped:
		info.Event(rp.ArtifactEvent{Path: rollout.Source, Old: ev.Old, New: ev.New})
		fl.swapped()
		return
	case ev.Kind == rollout.Refused && info != nil:
		info.Reloaded(false)
	}
	fmt.Fprintf(fl.stderr, "replica: %s\n", ev)
}
