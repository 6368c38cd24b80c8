package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
	RedisRoundTrips uint64            `json:"redis_round_trips"`
	ElapsedMs       uint64            `json:"elapsed_ms"`
}

// replica delivers events through the policy; every field below the
// config is shared by the workers.
type replica struct {
	cfg       Config
	engine    *rp.Engine
	doc       rp.PolicyDocument
	policy    rp.Policy
	budget    budget
	client    *http.Client
	stderr    io.Writer
	prefix    string
	startedAt time.Time

	next          atomic.Uint64 // next event index
	events        atomic.Uint64
	firstAttempts atomic.Uint64
	retries       atomic.Uint64
	stops         [6]atomic.Uint64 // by rp.StopReason
	recordErrors  atomic.Uint64
	decideErrors  atomic.Uint64
	logOnce       sync.Once
}

func nowMs() uint64 { return uint64(time.Now().UnixMilli()) }

// newReplica loads the policy document and its class (a bad document or
// a missing class is an argument error) and picks the budget store.
func newReplica(ctx context.Context, cfg Config, engine *rp.Engine, stderr io.Writer) (*replica, error) {
	text, err := os.ReadFile(cfg.PolicyPath)
	if err != nil {
		return nil, usageErrorf("--policy: %v", err)
	}
	doc, err := engine.LoadDocument(ctx, text)
	if err != nil {
		return nil, usageErrorf("--policy %s: %v", cfg.PolicyPath, err)
	}
	if _, err := engine.Admit(ctx, doc, cfg.Class, nowMs()); err != nil {
		return nil, usageErrorf("--policy %s: class %q: %v", cfg.PolicyPath, cfg.Class, err)
	}
	r := &replica{cfg: cfg, engine: engine, doc: doc, client: newHTTPClient(cfg.Concurrency), stderr: stderr,
		prefix: fmt.Sprintf("go-%d", os.Getpid())}
	for _, c := range doc.Classes {
		if c.Name == cfg.Class {
			r.policy = c.Policy
		}
	}
	if cfg.RedisURL == "" {
		r.budget = memoryBudget{engine: engine}
	} else if r.budget, err = newRedisBudget(engine, cfg.RedisURL); err != nil {
		return nil, err
	}
	return r, nil
}

// run starts events on cfg.Concurrency workers until cfg.Events were
// started or the deadline passed, lets every started event run to its
// stop, and summarises.
func (r *replica) run(ctx context.Context) Summary {
	r.startedAt = time.Now()
	var wg sync.WaitGroup
	for w := 0; w < r.cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && !r.pastDeadline() {
				i := r.next.Add(1) - 1
				if i >= r.cfg.Events {
					return
				}
				r.deliver(ctx, fmt.Sprintf("%s-%d", r.prefix, i))
			}
		}()
	}
	wg.Wait()
	if n := r.recordErrors.Load(); n > 0 {
		fmt.Fprintf(r.stderr, "replica: %d first attempts could not be recorded in the budget store\n", n)
	}
	if n := r.decideErrors.Load(); n > 0 {
		fmt.Fprintf(r.stderr, "replica: %d decisions failed and were made again without the budget store (fail closed)\n", n)
	}
	s := Summary{Host: "go", Events: r.events.Load(), FirstAttempts: r.firstAttempts.Load(), Retries: r.retries.Load(),
		StopReasons: map[string]uint64{}, RedisRoundTrips: r.budget.roundTrips(),
		ElapsedMs: uint64(time.Since(r.startedAt).Milliseconds())}
	s.Attempts = s.FirstAttempts + s.Retries
	for _, reason := range rp.StopReasons() {
		s.StopReasons[reason.String()] = r.stops[reason].Load()
	}
	return s
}

func (r *replica) pastDeadline() bool {
	return r.cfg.DeadlineMs >= 0 && time.Since(r.startedAt) >= time.Duration(r.cfg.DeadlineMs)*time.Millisecond
}

// deliver makes the attempts of one event until the policy stops it.
func (r *replica) deliver(ctx context.Context, eventID string) {
	r.events.Add(1)
	admission, err := r.engine.Admit(ctx, r.doc, r.cfg.Class, nowMs())
	if err != nil { // the class was admitted at start; only a trap gets here
		r.logf("admit %s: %v", eventID, err)
		r.stops[rp.BudgetUnavailable].Add(1)
		return
	}
	state := rp.DeliveryState{EventID: eventID, EndpointID: r.cfg.EndpointID,
		MaxAttempts: admission.Schedule.MaxAttempts, FirstAttemptedAtMs: admission.FirstAttemptedAtMs}
	for {
		sentAtMs := nowMs()
		outcome := post(ctx, r.client, r.cfg.Target, eventID, state.Attempt+1)
		state.Attempt++
		if state.Attempt == 1 {
			r.firstAttempts.Add(1)
			if err := r.budget.recordFirst(ctx, r.policy.Budget, r.cfg.EndpointID, sentAtMs); err != nil {
				r.recordErrors.Add(1)
				r.logf("record %s: %v", eventID, err)
			}
		} else {
			r.retries.Add(1)
		}
		d, err := r.budget.decide(ctx, r.policy, state, outcome, nowMs())
		if err != nil {
			// Not a policy answer (a trap, a cancelled context, a script
			// disagreeing with the component): decide again without the
			// budget store, which can only stop the event (fail closed).
			r.decideErrors.Add(1)
			r.logf("decide %s: %v", eventID, err)
			if d, err = r.engine.DecideWith(ctx, r.policy, state, outcome, nowMs(), nil); err != nil || d.Retry != nil {
				r.stops[rp.BudgetUnavailable].Add(1)
				return
			}
		}
		if d.Retry == nil {
			r.stops[d.Stop.Reason].Add(1)
			return
		}
		state.CredentialsRefreshed = state.CredentialsRefreshed || d.Retry.RefreshCredentials
		select {
		case <-time.After(d.Retry.Delay()):
		case <-ctx.Done():
		}
	}
}

// logf reports the first failure of a run on stderr (later ones are counted).
func (r *replica) logf(format string, a ...any) {
	r.logOnce.Do(func() { fmt.Fprintf(r.stderr, "replica: "+format+"\n", a...) })
}
