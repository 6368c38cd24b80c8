package main

import (
	"context"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/webhookmetrics"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Summary is the REPLICA contract's one JSON line.
type Summary struct {
	Host            string            `json:"host"`
	Events          uint64            `json:"events"`
	Attempts        uint64            `json:"attempts"`
	FirstAttempts   uint64            `json:"first_attempts"`
	Retries         uint64            `json:"retries"`
	StopReasons     map[string]uint64 `json:"stop_reasons"`
	Pending         uint64            `json:"pending"`
	Drained         bool              `json:"drained"`
	TransportErrors map[string]uint64 `json:"transport_errors"`
	RedisRoundTrips uint64            `json:"redis_round_trips"`
	StoreErrors     uint64            `json:"store_errors"`
	Disagreements   uint64            `json:"budget_disagreements"`
	ElapsedMs       uint64            `json:"elapsed_ms"`
	// format 3 (docs/replica.md; zeros for a format-2 policy)
	Holds      map[string]uint64 `json:"holds"`
	Held       uint64            `json:"held"`
	ProbeCalls uint64            `json:"probe_calls"`
	WakeCalls  uint64            `json:"wake_calls"`
}

// replica delivers events through the policy; every field below the
// config is shared by the workers.
type replica struct {
	cfg       Config
	engine    *rp.Engine
	docs      *rp.Documents // new events are admitted under docs.Current()
	budget    budget
	client    *safehttp.Client
	stderr    io.Writer
	prefix    string
	startedAt time.Time

	next          atomic.Uint64 // next event index
	events        atomic.Uint64
	firstAttempts atomic.Uint64
	retries       atomic.Uint64
	stops         [6]atomic.Uint64 // by rp.StopReason
	storeErrors   atomic.Uint64
	stepErrors    atomic.Uint64
	disagreements atomic.Uint64
	refused       atomic.Uint64 // attempts refused: the target is not public
	transport     *kindCounts   // attempts that ended without a response, by kind
	pending       atomic.Uint64 // events the drain left waiting (not stopped)
	drain         *drain
	metrics       *webhookmetrics.Metrics // docs/metrics.md, served on --metrics-addr
	clock         func() uint64           // nil: the wall clock plus --clock-offset-ms
	journal       *journal.Journal        // --store (nil: none)
	resumed       []journal.Record        // pending events to continue first (--store's own, --resume's)
	nextResumed   atomic.Uint64           // next index of resumed
	journalErrors atomic.Uint64           // journal writes that failed (logged; the run went on)
	logOnce       sync.Once
	fmt3          *healthRun // format 3: holds, probes, wakes (health.go)
}

func wallMs() uint64 { return uint64(time.Now().UnixMilli()) }

// nowMs is this replica's clock: the wall clock plus --clock-offset-ms
// (clock instead, when a test set it).
func (r *replica) nowMs() uint64 {
	if r.clock != nil {
		return r.clock()
	}
	return uint64(int64(wallMs()) + r.cfg.ClockOffset)
}

// newReplica loads the policy document (--policy, else the artifact's,
// which then follows artifact swaps) and checks its class (a bad document
// or a missing class is an argument error), and picks the budget store.
func newReplica(ctx context.Context, cfg Config, engine *rp.Engine, stderr io.Writer) (*replica, error) {
	var text []byte // nil: the artifact's document
	if cfg.PolicyPath != "" {
		var err error
		if text, err = os.ReadFile(cfg.PolicyPath); err != nil {
			return nil, usageErrorf("--policy: %v", err)
		}
	}
	where := "--policy " + cfg.PolicyPath
	if text == nil {
		where = "the artifact's document"
	}
	docs, err := rp.NewDocuments(ctx, engine, formatTwoText(ctx, engine, text))
	if err != nil {
		return nil, usageErrorf("%s: %v", where, err)
	}
	if _, err := engine.Admit(ctx, docs.Current(), cfg.Class, wallMs()); err != nil {
		return nil, usageErrorf("%s: class %q: %v", where, cfg.Class, err)
	}
	metrics := webhookmetrics.New()
	r := &replica{cfg: cfg, engine: engine, docs: docs, client: newHTTPClient(cfg, metrics.ObserveDelivery), stderr: stderr,
		transport: newKindCounts(), drain: newDrain(ctx, cfg.DrainMs), metrics: metrics, prefix: fmt.Sprintf("go-%d", os.Getpid())}
	if r.fmt3, err = newHealthRun(ctx, engine, text, cfg.Class); err != nil {
		return nil, usageErrorf("%s: %v", where, err)
	}
	// following the artifact, a swap may bring a health section: one
	// apply-call store then keeps one count for both kinds of call
	if cfg.RedisURL == "" && cfg.ClusterURL == "" && (r.fmt3.class != nil || r.fmt3.follow) {
		r.budget = memoryHealthBudget(engine)
	} else if cfg.RedisURL == "" && cfg.ClusterURL == "" {
		r.budget = memoryBudget(engine)
	} else if r.budget, err = newRedisBudget(engine, cfg.RedisURL, cfg.ClusterURL, time.Duration(cfg.StoreTimeoutMs)*time.Millisecond, cfg.Roots); err != nil {
		return nil, err
	}
	r.budget.store = metrics.Store(r.budget.store) // every call timed, every refused reserve counted
	r.fmt3.calls = countedCalls{metrics.CallStore(r.budget.calls), &r.storeErrors}
	return r, nil
}

// classPolicy is the policy of class name in doc.
func classPolicy(doc rp.PolicyDocument, name string) (rp.Policy, bool) {
	for _, c := range doc.Classes {
		if c.Name == name {
			return c.Policy, true
		}
	}
	return rp.Policy{}, false
}

// run starts events on cfg.Concurrency workers (each worker one event in
// progress at a time): first the journaled pending events (--store's own,
// --resume's), then new ones until cfg.Events were started, the deadline
// passed or a drain began; it lets every started event run to its stop
// (or, draining, to pending), and summarises.
func (r *replica) run(ctx context.Context) Summary {
	r.startedAt = time.Now()
	defer r.drain.close()
	var wg sync.WaitGroup
	for w := 0; w < r.cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && !r.drain.stopped() {
				if i := r.nextResumed.Add(1) - 1; i < uint64(len(r.resumed)) {
					r.resume(ctx, r.resumed[i])
					continue
				}
				if r.pastDeadline() {
					return
				}
				i := r.next.Add(1) - 1
				if i >= r.cfg.Events {
					return
				}
				r.deliver(ctx, fmt.Sprintf("%s-%d", r.prefix, i))
			}
		}()
	}
	wg.Wait()
	// journaled events a drain (or the context) kept from starting: still
	// pending, in the journal as they were
	for i := min(r.nextResumed.Load(), uint64(len(r.resumed))); i < uint64(len(r.resumed)); i++ {
		r.events.Add(1)
		r.leftPending(&r.resumed[i])
	}
	if n := r.storeErrors.Load(); n > 0 {
		fmt.Fprintf(r.stderr, "replica: %d budget store calls failed (pending retries failed closed; first attempts were delivered)\n", n)
	}
	if n := r.stepErrors.Load(); n > 0 {
		fmt.Fprintf(r.stderr, "replica: %d steps failed (events stopped as budget_unavailable)\n", n)
	}
	if n := r.refused.Load(); n > 0 {
		fmt.Fprintf(r.stderr, "replica: %d attempts refused (destination_refused): the target resolves to a loopback, private or other non-public address (--allow-private-targets allows it)\n", n)
	}
	if n := r.journalErrors.Load(); n > 0 {
		fmt.Fprintf(r.stderr, "replica: %d journal writes failed (--store; logged, the run went on)\n", n)
	}
	if n := r.disagreements.Load(); n > 0 {
		fmt.Fprintf(r.stderr, "replica: %d budget disagreements between the store and the policy (the store's verdict stood)\n", n)
	}
	s := Summary{Host: "go", Events: r.events.Load(), FirstAttempts: r.firstAttempts.Load(), Retries: r.retries.Load(),
		StopReasons: map[string]uint64{}, Pending: r.pending.Load(), Drained: r.drain.stopped(), TransportErrors: r.transport.summary(), RedisRoundTrips: r.budget.roundTrips(),
		StoreErrors: r.storeErrors.Load(), Disagreements: r.disagreements.Load(),
		ElapsedMs: uint64(time.Since(r.startedAt).Milliseconds()),
		Holds:     r.fmt3.holdCounts(), Held: r.fmt3.held.Load(), ProbeCalls: r.fmt3.probeCalls.Load(), WakeCalls: r.fmt3.wakeCalls.Load()}
	s.Attempts = s.FirstAttempts + s.Retries
	for _, reason := range rp.StopReasonValues() {
		s.StopReasons[reason.String()] = r.stops[reason].Load()
	}
	return s
}

func (r *replica) pastDeadline() bool {
	return r.cfg.DeadlineMs >= 0 && time.Since(r.startedAt) >= time.Duration(r.cfg.DeadlineMs)*time.Millisecond
}

// logf reports the first failure of a run on stderr (later ones are counted).
func (r *replica) logf(format string, a ...any) {
	r.logOnce.Do(func() { fmt.Fprintf(r.stderr, "replica: "+format+"\n", a...) })
}
