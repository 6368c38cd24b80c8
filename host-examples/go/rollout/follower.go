package rollout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// Runner is what a follower runs artifacts on: the host's Engine
// (*retrypolicy.Engine), whose SwapArtifactFrom runs every load check of
// docs/artifact.md and swaps (calls already running finish on their
// artifact).
type Runner interface {
	Info() rp.ArtifactInfo
	SwapArtifactFrom(ctx context.Context, component []byte, source, expectedSHA256 string) (rp.ArtifactInfo, error)
}

// Config is a follower's setup.
type Config struct {
	// Client is the fleet's Redis (a *redis.Client, a *redis.ClusterClient:
	// every key shares one hash tag, so one slot). Build it with context
	// deadlines honoured (ContextTimeoutEnabled).
	Client  redis.UniversalClient
	Trusted *Trusted // the keys whose signatures are accepted (ReadTrustFile)
	Engine  Runner   // runs the artifact
	// ReplicaID names this replica (1 to 200 bytes of UTF-8): its status
	// field and its canary bucket.
	ReplicaID string
	// Language is the status record's language (default "go"); Host its
	// host (default os.Hostname()); PID its pid (default os.Getpid()).
	Language, Host string
	PID            int
	// Timeout bounds each store command (default DefaultTimeout) but the
	// artifact's fetch (HMGET of up to 4 MiB), which FetchTimeout bounds
	// (default the larger of Timeout and DefaultFetchTimeout).
	Timeout, FetchTimeout time.Duration
	// DocumentVersion names the version of the document new events are
	// admitted under, for the status record (nil: the running artifact's
	// embedded document's). A replica with its own --policy names that one.
	DocumentVersion func(rp.ArtifactInfo) string
	// Report, when set, is called with each event worth a log line:
	// Swapped, Refused (once per refused record or (epoch, sha256)),
	// Settled, StoreFailed (the first of a run of failures) and
	// StoreRecovered. It runs on the ticking goroutine.
	Report func(Event)
	Now    func() time.Time // the clock (default time.Now)
}

// Follower follows the rollout record for one replica: Tick once before
// the first admission, then Run in the background.
type Follower struct {
	cfg Config

	mu      sync.Mutex // one tick at a time; guards what follows
	settled uint64     // the last settled epoch (0 before any)
	refusal *Refusal   // the latest refusal since start
	// badRecord is the sha256 of the last refused record text (an
	// invalid record has no epoch to settle: it is reported once per text)
	badRecord string
	failing   bool   // the last tick failed to reach the store
	running   string // the sha256 that ran at the end of the last tick

	sinceMs             atomic.Int64
	events, deadLetters atomic.Uint64
}

// NewFollower checks cfg and returns a follower; the running artifact
// counts as loaded now (Status.SinceMs).
func NewFollower(cfg Config) (*Follower, error) {
	switch {
	case cfg.Client == nil || cfg.Trusted == nil || cfg.Engine == nil:
		return nil, errors.New("rollout: a follower needs a Client, Trusted keys and an Engine")
	case len(cfg.ReplicaID) < 1 || len(cfg.ReplicaID) > MaxReplicaIDBytes || !utf8.ValidString(cfg.ReplicaID):
		return nil, fmt.Errorf("rollout: the replica id must be 1 to %d bytes of UTF-8 (got %d bytes)", MaxReplicaIDBytes, len(cfg.ReplicaID))
	}
	if cfg.Language == "" {
		cfg.Language = "go"
	}
	if cfg.Host == "" {
		cfg.Host, _ = os.Hostname()
	}
	if cfg.PID == 0 {
		cfg.PID = os.Getpid()
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = max(cfg.Timeout, DefaultFetchTimeout)
	}
	if cfg.DocumentVersion == nil {
		cfg.DocumentVersion = func(a rp.ArtifactInfo) string { return a.DocumentVersion }
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	f := &Follower{cfg: cfg, running: cfg.Engine.Info().SHA256}
	f.sinceMs.Store(cfg.Now().UnixMilli())
	return f, nil
}

// DefaultReplicaID is docs/rollout.md's default id: <language>-<hostname>-<pid>.
func DefaultReplicaID(language string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%s-%d", language, host, os.Getpid())
}

// Finished counts an event that stopped (delivered, or dead-lettered when
// deadLettered) under the running artifact: the status record's events
// and dead_letters since the artifact was loaded or swapped in.
func (f *Follower) Finished(deadLettered bool) {
	f.events.Add(1)
	if deadLettered {
		f.deadLetters.Add(1)
	}
}

// Status is the status record the next tick writes (SeenMs: now).
func (f *Follower) Status() Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status()
}

func (f *Follower) status() Status {
	info := f.cfg.Engine.Info()
	return Status{ReplicaID: f.cfg.ReplicaID, Language: f.cfg.Language, Host: f.cfg.Host, PID: f.cfg.PID,
		ArtifactSHA256: info.SHA256, DocumentVersion: f.cfg.DocumentVersion(info), SinceMs: f.sinceMs.Load(),
		Events: f.events.Load(), DeadLetters: f.deadLetters.Load(), SeenMs: f.cfg.Now().UnixMilli(),
		Epoch: f.settled, Refusal: f.refusal}
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

// Tick is one tick of docs/rollout.md "What a replica does": HSET this
// replica's status record then GETRANGE the record's first 4,097 bytes
// (one pipelined round trip),
// and when the record's epoch is not the settled one, settle it: the
// desired artifact already runs, or it is fetched (never more than HSTRLEN
// said), verified, loaded and swapped in, or refused (the running one
// stays). A store failure changes nothing. It returns what it did.
func (f *Follower) Tick(ctx context.Context) Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	old := f.cfg.Engine.Info()
	if old.SHA256 != f.running { // swapped by someone else (a file swap): counts restart too
		f.running = old.SHA256
		f.restartCounts()
	}
	ev := f.tick(ctx)
	f.running = f.cfg.Engine.Info().SHA256
	ev.Old, ev.New = old, f.cfg.Engine.Info()
	if ctx.Err() != nil && ev.Kind == StoreFailed {
		return ev // the caller is stopping: not the store's fault, nothing to report
	}
	if ev.Kind == StoreFailed {
		if f.failing {
			return ev // reported at the first failure of the run
		}
		f.failing = true
	} else if f.failing {
		f.failing = false
		f.report(Event{Kind: StoreRecovered, Old: ev.Old, New: ev.Old})
	}
	switch ev.Kind {
	case Swapped, Refused, Settled, StoreFailed:
		f.report(ev)
	}
	return ev
}

func (f *Follower) report(ev Event) {
	if f.cfg.Report != nil {
		f.cfg.Report(ev)
	}
}

// tick does the work of Tick.
func (f *Follower) tick(ctx context.Context) Event {
	status, _ := json.Marshal(f.status()) // strings, integers, a pointer: cannot fail
	var get *redis.StringCmd
	err := bounded(ctx, f.cfg.Timeout, func(ctx context.Context) error {
		_, err := f.cfg.Client.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, ReplicasKey, f.cfg.ReplicaID, status)
			get = p.GetRange(ctx, StateKey, 0, MaxRecordBytes) // 4,097 bytes at most: more is refused
			return nil
		})
		return err
	})
	if err != nil {
		return Event{Kind: StoreFailed, Err: fmt.Errorf("HSET %s, GETRANGE %s: %w", ReplicasKey, StateKey, err)}
	}
	if get.Val() == "" { // GETRANGE of a missing key: nothing published
		return Event{Kind: NoRecord}
	}
	text := []byte(get.Val())
	rec, err := ParseRecord(text)
	var re *Error
	if errors.As(err, &re) {
		sum := sha256.Sum256(text)
		key := hex.EncodeToString(sum[:])
		if key == f.badRecord {
			return Event{Kind: Idle}
		}
		f.badRecord = key
		return f.refuse(0, "", re)
	}
	f.badRecord = ""
	if rec.Epoch == f.settled {
		return Event{Kind: Idle, Epoch: rec.Epoch}
	}
	desired := rec.Desired(f.cfg.ReplicaID)
	if desired == f.cfg.Engine.Info().SHA256 {
		f.settled = rec.Epoch
		return Event{Kind: Settled, Epoch: rec.Epoch}
	}
	raw, err := f.fetch(ctx, desired)
	switch {
	case errors.As(err, &re):
		f.settled = rec.Epoch
		return f.refuse(rec.Epoch, desired, re)
	case err != nil:
		return Event{Kind: StoreFailed, Epoch: rec.Epoch, Err: err}
	}
	if _, err := f.cfg.Engine.SwapArtifactFrom(ctx, raw, Source, desired); err != nil {
		var ae *rp.ArtifactError
		if !errors.As(err, &ae) || ctx.Err() != nil { // the engine closed, or ctx ended: not the artifact's fault
			return Event{Kind: StoreFailed, Epoch: rec.Epoch, Err: fmt.Errorf("loading %s: %w", desired, err)}
		}
		f.settled = rec.Epoch
		return f.refuse(rec.Epoch, desired, &Error{Code: Code(ae.Code), Message: ae.Message})
	}
	f.settled = rec.Epoch
	f.restartCounts()
	return Event{Kind: Swapped, Epoch: rec.Epoch}
}

// restartCounts starts the status record's since_ms, events and
// dead_letters again: another artifact runs from now.
func (f *Follower) restartCounts() {
	f.sinceMs.Store(f.cfg.Now().UnixMilli())
	f.events.Store(0)
	f.deadLetters.Store(0)
}

// refuse records a refusal (the latest since start) and returns its event.
func (f *Follower) refuse(epoch uint64, desired string, re *Error) Event {
	f.refusal = &Refusal{SHA256: desired, Code: re.Code, Message: re.Message, AtMs: f.cfg.Now().UnixMilli()}
	return Event{Kind: Refused, Epoch: epoch, Refusal: f.refusal}
}

// bounded runs one store command (or pipeline) within timeout.
func bounded(ctx context.Context, timeout time.Duration, call func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return call(ctx)
}
