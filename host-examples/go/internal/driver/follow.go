package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/webhookmetrics"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

// following is --artifact-from-redis (docs/rollout.md): the component's
// follower, driven by package rollout on the replica's own Redis
// connection (--redis or --redis-cluster: TLS, ACL user, Cluster) and its
// own engine, whose SwapArtifactFrom runs the artifact load checks
// --watch-artifact-ms runs; a swap reaches the delivery engine through the
// same path (swapped).
type following struct {
	f      *rollout.Follower
	poll   time.Duration
	stderr io.Writer
	// Set before the background ticks start (run), so the ticking
	// goroutine reads them without a lock.
	info    *webhookmetrics.Info // nil until /metrics' families exist (the first tick runs before)
	swapped func()
	version func(rp.ArtifactInfo) string // the current document's version (the artifact's until useDocument)
}

// startFollowing opens the follower (the trust file's keys: a refused
// text is rollout_trust_invalid, exit 2) and runs its first tick, before
// the document is read and before any admission: a replica that starts
// during a rollout runs what the rule says for its id. A failed first
// tick (Redis down, a refusal) leaves the local artifact running. nil
// without --artifact-from-redis.
func startFollowing(ctx context.Context, cfg Config, engine *rp.Engine, store *redisBudget, stderr io.Writer) (*following, error) {
	if !cfg.Rollout.Follow || store == nil {
		return nil, nil
	}
	fl := &following{poll: cfg.Rollout.Poll, stderr: stderr, version: artifactsVersion}
	f, err := rollout.NewFollower(ctx, rollout.Config{Client: store.client, Engine: engine, TrustPEM: cfg.Rollout.TrustPEM,
		ReplicaID: cfg.Rollout.ReplicaID, Timeout: time.Duration(cfg.StoreTimeoutMs) * time.Millisecond, Report: fl.report,
		DocumentVersion: func(a rp.ArtifactInfo) string { return fl.version(a) }})
	var re *rollout.Error
	switch {
	case errors.As(err, &re) && re.Code == rollout.CodeTrustInvalid:
		return nil, usageErrorf("--trust-key: %s: %s: %s", re.Code, cfg.Rollout.TrustKeyPath, re.Message)
	case err != nil:
		return nil, usageErrorf("--artifact-from-redis: %v", err)
	}
	fl.f = f
	f.Tick(ctx)
	return fl, nil
}

// useDocument names the current document's version for the status
// record once the replica read its document (after the first tick, which
// writes the artifact's), and gives the driver the follower to count its
// events; nil when not following.
func (fl *following) useDocument(version func(rp.ArtifactInfo) string) *rollout.Follower {
	if fl == nil {
		return nil
	}
	fl.version = version
	return fl.f
}

// run ticks every --rollout-poll-ms in the background until ctx ends (a
// tick, its fetch and load never block delivery: the delivery engine moves
// only when the loop takes the swap); the returned func waits for it.
func (fl *following) run(ctx context.Context, info *webhookmetrics.Info, swapped func()) (wait func()) {
	fl.info, fl.swapped = info, swapped
	done := make(chan struct{})
	go func() {
		defer close(done)
		fl.f.Run(ctx, fl.poll)
	}()
	return func() { <-done }
}

// report prints the follower's log lines and counts its refusals and
// swaps: a swap is logged as a file swap is (and webhook_policy_info
// moves). Before /metrics exists (the first tick) nothing is counted, and
// a swap is told by the load line alone.
func (fl *following) report(ev rollout.Event) {
	for _, line := range ev.Log {
		fmt.Fprintf(fl.stderr, "replica: %s\n", line)
	}
	if ev.Err != nil {
		fmt.Fprintf(fl.stderr, "replica: rollout: the tick stopped: %v\n", ev.Err)
	}
	info := fl.info
	if info == nil { // the first tick's: the "policy artifact loaded ... source=redis" line says it
		return
	}
	if ev.Refused != nil {
		info.Reloaded(false)
	}
	if ev.Swapped {
		info.Event(rp.ArtifactEvent{Path: rollout.Source, Old: ev.Old, New: ev.New})
		fl.swapped()
	}
}
