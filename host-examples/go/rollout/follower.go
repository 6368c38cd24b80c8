package rollout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Source is ArtifactInfo.Source of an artifact swapped in from the store.
const Source = "redis"

// DefaultTimeout bounds each store command of a tick by default;
// DefaultFetchTimeout is the least bound on the artifact's fetch.
const (
	DefaultTimeout      = 250 * time.Millisecond
	DefaultFetchTimeout = 5 * time.Second
)

// MaxReplicaIDBytes is the longest replica id (UTF-8 bytes).
const MaxReplicaIDBytes = 200

// Runner is what a follower runs on: the host's Engine
// (*retrypolicy.Engine). The follower steps on whichever artifact runs
// (after a swap, the new one); SwapArtifactFrom runs every load check of
// docs/artifact.md and swaps (calls already running finish on their
// artifact).
type Runner interface {
	Info() rp.ArtifactInfo
	SwapArtifactFrom(ctx context.Context, component []byte, source, expectedSHA256 string) (rp.ArtifactInfo, error)
	RolloutOpen(ctx context.Context, config string) (string, error)
	RolloutStep(ctx context.Context, state, input string) (string, error)
}

// Config is a follower's setup.
type Config struct {
	// Client is the fleet's Redis (a *redis.Client, a *redis.ClusterClient:
	// every key shares one hash tag, so one slot). Build it with context
	// deadlines honoured (ContextTimeoutEnabled).
	Client   redis.UniversalClient
	Engine   Runner // runs the artifact, and the follower on it
	TrustPEM []byte // the trust file's text (ReadTrustFile)
	// ReplicaID names this replica (1 to 200 bytes of UTF-8): its status
	// field and its canary bucket.
	ReplicaID string
	// Timeout bounds each store command (default DefaultTimeout) but the
	// artifact's fetch (HMGET of up to 4 MiB), which the larger of Timeout
	// and DefaultFetchTimeout bounds.
	Timeout time.Duration
	// DocumentVersion names the version of the document new events are
	// admitted under, for the status record (nil: the running artifact's
	// embedded document's). A replica with its own --policy names that one.
	DocumentVersion func(rp.ArtifactInfo) string
	// Report, when set, is called after each tick that has something to
	// log or count (Event), on the ticking goroutine; not when ctx ended.
	Report func(Event)
}

// Follower follows the rollout record for one replica: Tick once before
// the first admission, then Run in the background.
type Follower struct {
	cfg    Config
	keyIDs []string

	mu    sync.Mutex // one tick at a time; guards state
	state string     // the component's follower, as it wrote itself

	events, deadLetters atomic.Uint64
}

// NewFollower checks cfg and opens the component's follower on the
// running artifact, which counts as loaded now (the status's since_ms).
// A trust text with no Ed25519 public key (or anything else) is an *Error
// with CodeTrustInvalid; a replica id outside 1 to 200 bytes one with
// CodeInputInvalid.
func NewFollower(ctx context.Context, cfg Config) (*Follower, error) {
	switch {
	case cfg.Client == nil || cfg.Engine == nil:
		return nil, errors.New("rollout: a follower needs a Client and an Engine")
	case !utf8.ValidString(cfg.ReplicaID):
		return nil, &Error{Code: CodeInputInvalid, Message: "the replica id is not UTF-8"}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.DocumentVersion == nil {
		cfg.DocumentVersion = func(a rp.ArtifactInfo) string { return a.DocumentVersion }
	}
	host, _ := os.Hostname()
	opened, err := cfg.Engine.RolloutOpen(ctx, text(map[string]any{"replica_id": cfg.ReplicaID, "language": "go",
		"host": host, "pid": os.Getpid(), "trust_pem": string(cfg.TrustPEM), "since_ms": time.Now().UnixMilli()}))
	if err != nil {
		return nil, err
	}
	var a struct {
		State  string   `json:"state"`
		KeyIDs []string `json:"key_ids"`
	}
	if err := json.Unmarshal([]byte(opened), &a); err != nil {
		return nil, fmt.Errorf("rollout: rollout-open's answer: %w", err)
	}
	return &Follower{cfg: cfg, keyIDs: a.KeyIDs, state: a.State}, nil
}

// DefaultReplicaID is docs/rollout.md's default id: <language>-<hostname>-<pid>.
func DefaultReplicaID(language string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%s-%d", language, host, os.Getpid())
}

// KeyIDs are the trusted keys' ids, in the trust file's order.
func (f *Follower) KeyIDs() []string { return append([]string(nil), f.keyIDs...) }

// Finished counts an event that stopped (delivered, or dead-lettered when
// deadLettered): the status record's events and dead_letters count them
// since the running artifact came in (the follower's own swaps restart
// them and since_ms; a swap made another way, through ArtifactSwapped).
func (f *Follower) Finished(deadLettered bool) {
	f.events.Add(1)
	if deadLettered {
		f.deadLetters.Add(1)
	}
}

// ArtifactSwapped tells the follower that the engine swapped its artifact
// another way (Engine.SwapArtifact, a file watch): the status record's
// since_ms becomes now and its counts start again, as after the
// follower's own swaps (the component's `swapped` input).
func (f *Follower) ArtifactSwapped(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	info := f.cfg.Engine.Info()
	_, err := f.step(ctx, tickInput{Op: "swapped", NowMs: time.Now().UnixMilli(), SHA256: info.SHA256,
		DocumentVersion: f.cfg.DocumentVersion(info), Events: f.events.Load(), DeadLetters: f.deadLetters.Load()})
	return err
}

// Run ticks every interval until ctx ends (a tick that outlasts the
// interval delays the next; ticks never overlap).
func (f *Follower) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		f.Tick(ctx)
	}
}

// Tick is one tick of docs/rollout.md: it gives the component's follower
// the running artifact and counts, makes each call the follower names
// (the status's HSET and the record's GETRANGE, then, for an epoch to
// settle, HSTRLEN, HMGET, the load and swap) and feeds back its answer,
// until the follower names none. It returns what the tick did.
func (f *Follower) Tick(ctx context.Context) Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	ev := Event{Old: f.cfg.Engine.Info()}
	var in any = tickInput{Op: "tick", NowMs: time.Now().UnixMilli(), SHA256: ev.Old.SHA256,
		DocumentVersion: f.cfg.DocumentVersion(ev.Old), Events: f.events.Load(), DeadLetters: f.deadLetters.Load()}
	var fetched []byte
	for {
		a, err := f.step(ctx, in)
		if err != nil {
			ev.Err = err
			break
		}
		ev.Log = append(ev.Log, a.Log...)
		if a.Refused != nil {
			ev.Refused = a.Refused
		}
		ev.Swapped = ev.Swapped || a.Swapped != nil
		if a.Call == nil {
			break
		}
		if in, err = f.do(ctx, a.Call, &fetched); err != nil {
			ev.Err = err
			break
		}
	}
	ev.New = f.cfg.Engine.Info()
	if f.cfg.Report != nil && ctx.Err() == nil && ev.worthReporting() {
		f.cfg.Report(ev)
	}
	return ev
}

// step gives the follower one input and keeps its new state; a refused
// input changes nothing.
func (f *Follower) step(ctx context.Context, in any) (answer, error) {
	var a answer
	out, err := f.cfg.Engine.RolloutStep(ctx, f.state, text(in))
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		return a, fmt.Errorf("rollout: rollout-step's answer: %w", err)
	}
	f.state = a.State
	return a, nil
}
