package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"sync"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/endpointhealth"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/signing"
)

// ErrEndpointDisabled refuses an event for an endpoint that answered 410.
var ErrEndpointDisabled = errors.New("dispatcher: endpoint is disabled (it answered 410 Gone)")

// Sleeper waits until an instant of the dispatcher's clock. Tests use a
// fake one that moves the fake clock instead, so hours of retries run in
// milliseconds.
type Sleeper interface {
	SleepUntil(ctx context.Context, atMs uint64) error
}

// Config wires a Dispatcher.
type Config struct {
	Engine   *rp.Engine     // its Clock must be Clock below
	Budget   rp.BudgetStore // the retry budget: rp.NewMemoryStore or redisbudget.New
	Document rp.PolicyDocument
	// Documents, when set, replaces Document: new events are admitted under
	// its current document (reloaded without a restart: Reload, WatchFile);
	// admitted events keep the schedule and policy they were admitted under.
	// While it follows the artifact (rp.NewDocuments with no text), the
	// embedded document's health sections count as its own
	// (docs/artifact.md step 6): a class with one runs the format-3 send
	// loop as under a HealthDocument (Calls is then required), and a
	// swapped-in artifact's sections are what new events run under.
	Documents *rp.Documents
	Store     *FileStore
	Metrics   *Metrics
	Clock     rp.Clock
	Sleeper   Sleeper
	Workers   int // concurrent deliveries per step (default 4)

	// The delivery client: nil = safehttp.NewClient with the two settings
	// below. AttemptDeadline is the total time of one attempt, body
	// included (0 = 30 s); AllowPrivateTargets delivers to loopback,
	// private, link-local... addresses too (refused by default, as the
	// terminal transport kind destination_refused).
	Client              *safehttp.Client
	AttemptDeadline     time.Duration
	AllowPrivateTargets bool
	// RootCAs verifies https:// receivers (nil: the platform's trust store;
	// safehttp.TrustWithCAFile adds a -ca-file to it).
	RootCAs *x509.CertPool

	// Secrets signs deliveries (Standard Webhooks); nil = unsigned.
	Secrets SecretSource

	// Format 3 (docs/health-dispatch.md). HealthDocument, when set, is the
	// document new events are admitted under (load-health-document's; it
	// reads format 2 too): a class with a health section runs the gated
	// send loop, one without runs exactly as before. Calls answers the
	// complete store calls of the classes with health (the same counts as
	// Budget: rp.MemoryCallStore with Budget = its .Budget(), or
	// redisbudget's .Calls()); required with a HealthDocument.
	HealthDocument *rp.HealthDocument
	Calls          rp.CallStore
}

// Dispatcher delivers events, asks the policy what to do after every
// failed attempt, and dead-letters what will not be delivered.
type Dispatcher struct {
	cfg    Config
	drain  *drain                // SIGTERM/SIGINT: Drain
	health *endpointhealth.Table // format 3: per endpoint view, pacer, admissions
	calls  rp.CallStore          // format 3: cfg.Calls, timed and counted
	cache  *compiledCache        // format 3: a Compiled per (policy, health) of the records
}

// NewDispatcher checks the configuration.
func NewDispatcher(cfg Config) (*Dispatcher, error) {
	if cfg.Engine == nil || cfg.Budget == nil || cfg.Store == nil || cfg.Metrics == nil || cfg.Clock == nil || cfg.Sleeper == nil {
		return nil, errors.New("dispatcher: Engine, Budget, Store, Metrics, Clock and Sleeper are required")
	}
	if cfg.Client == nil {
		cfg.Client = safehttp.NewClient(safehttp.Options{AttemptDeadline: cfg.AttemptDeadline,
			AllowPrivateTargets: cfg.AllowPrivateTargets, IdlePerHost: cfg.Workers, Observe: cfg.Metrics.ObserveDelivery,
			RootCAs: cfg.RootCAs})
	}
	cfg.Budget = cfg.Metrics.Store(cfg.Budget) // every call timed, every refused reserve counted
	if cfg.Workers < 1 {
		cfg.Workers = 4
	}
	if cfg.HealthDocument != nil && cfg.Calls == nil {
		return nil, errors.New("dispatcher: a HealthDocument needs Calls (the format-3 store)")
	}
	d := &Dispatcher{cfg: cfg, drain: newDrain(), health: endpointhealth.New(endpointhealth.Max), cache: newCompiledCache(cfg.Engine)}
	if cfg.Calls != nil {
		d.calls = cfg.Metrics.CallStore(cfg.Calls)
	}
	d.countHeld()
	return d, nil
}

// countHeld sets webhook_held_events to the store's held events.
func (d *Dispatcher) countHeld() { d.cfg.Metrics.SetHeld(d.cfg.Store.Counts()[StateHeld]) }

func classPolicy(doc rp.PolicyDocument, name string) (rp.Policy, bool) {
	for _, c := range doc.Classes {
		if c.Name == name {
			return c.Policy, true
		}
	}
	return rp.Policy{}, false
}

// Enqueue admits an event under its class (the component's admit) and
// persists it with its admission: schedule, policy hash and the
// first-attempt instant the window is measured from.
func (d *Dispatcher) Enqueue(ctx context.Context, ev Event) (*Record, error) {
	if d.Draining() {
		return nil, ErrDraining
	}
	disabled, err := d.cfg.Store.DisabledEndpoints()
	if err != nil {
		return nil, err
	}
	if disabled[ev.EndpointID] {
		return nil, fmt.Errorf("%w: %s", ErrEndpointDisabled, ev.EndpointID)
	}
	if r, err := d.cfg.Store.Load(ev.ID); err == nil {
		return r, nil // already admitted (a producer retried): one event, one schedule
	}
	now := d.cfg.Clock.NowMs()
	if d.cfg.HealthDocument != nil {
		return d.enqueueHealth(ctx, ev, d.cfg.HealthDocument, now)
	}
	if d.cfg.Documents != nil {
		// one snapshot: the artifact's sections when Documents follows it
		if hd := d.cfg.Documents.CurrentHealth(); hasSection(&hd, ev.Class) {
			if d.calls == nil {
				return nil, fmt.Errorf("dispatcher: class %q has a health section (document %s) and Calls is not set: the format-3 send loop needs the format-3 store", ev.Class, hd.Version)
			}
			return d.enqueueHealth(ctx, ev, &hd, now)
		}
	}
	doc := d.cfg.Document
	if d.cfg.Documents != nil {
		doc = d.cfg.Documents.Current() // one snapshot for the admission and its policy
	}
	adm, err := d.cfg.Engine.AdmitClass(ctx, doc, ev.Class, now)
	if err != nil {
		return nil, err
	}
	policy, _ := classPolicy(doc, ev.Class) // admit succeeded, so the class exists
	r := &Record{Event: ev, Admission: adm, Policy: policy, NextAttemptAtMs: now, State: StatePending}
	return r, d.cfg.Store.Save(r)
}

// RunUntilIdle delivers until no event is pending, sleeping (on the
// Sleeper) until the next one is due; after a Drain, it returns nil once
// the attempts in progress finished or were abandoned (the events not
// finished stay pending in the store).
func (d *Dispatcher) RunUntilIdle(ctx context.Context) error {
	for !d.Draining() {
		next, pending, err := d.Step(ctx)
		if err != nil {
			return err
		}
		if !pending {
			return nil
		}
		sctx, stop := d.untilDrain(ctx)
		err = d.cfg.Sleeper.SleepUntil(sctx, next)
		stop()
		if err != nil && !d.Draining() {
			return err
		}
	}
	return nil
}

// Step makes every attempt that is due now. It returns when the next
// pending event is due, and whether any is pending.
func (d *Dispatcher) Step(ctx context.Context) (nextMs uint64, pending bool, err error) {
	records, err := d.cfg.Store.Pending()
	if err != nil {
		return 0, false, err
	}
	now := d.cfg.Clock.NowMs()
	var due []*Record
	for _, r := range records {
		if r.NextAttemptAtMs <= now {
			due = append(due, r)
		}
	}
	sem := make(chan struct{}, d.cfg.Workers)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for _, r := range due {
		sem <- struct{}{}
		if d.Draining() { // no attempt starts once a drain began (checked with a worker in hand)
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := d.attempt(ctx, r); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("event %s: %w", r.Event.ID, err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	d.countHeld()
	if err := errors.Join(errs...); err != nil {
		return 0, false, err // the events stay pending: nothing is lost
	}
	if records, err = d.cfg.Store.Pending(); err != nil || len(records) == 0 {
		return 0, false, err
	}
	return records[0].NextAttemptAtMs, true, nil
}

// attempt makes one delivery attempt and persists what the policy decided:
// Resume judges the reloaded record first; after the attempt, one step
// (evaluate, at most one store call, settle). A first attempt is counted
// once its outcome is known, so a store that fails never stops it.
func (d *Dispatcher) attempt(ctx context.Context, r *Record) error {
	state := rp.DeliveryState{
		EventID:              r.Event.ID,
		EndpointID:           r.Event.EndpointID,
		Attempt:              r.Attempts, // attempts already made
		MaxAttempts:          r.Admission.Schedule.MaxAttempts,
		FirstAttemptedAtMs:   r.Admission.FirstAttemptedAtMs,
		CredentialsRefreshed: r.CredentialsRefreshed,
	}
	if r.Health != nil {
		return d.attemptHealth(ctx, r, state)
	}
	resumed, err := d.cfg.Engine.Resume(ctx, r.Policy, state, d.cfg.Clock.NowMs())
	if err != nil {
		return err
	}
	if resumed.Stop != nil {
		return d.deadLetter(r, resumed.Stop)
	}
	outcome, finished, err := d.send(ctx, r)
	if finished || err != nil {
		return err
	}
	state.Attempt = r.Attempts
	res, err := d.cfg.Engine.Step(ctx, d.cfg.Budget, r.Policy, state, outcome, d.cfg.Clock.NowMs())
	if err != nil {
		return err // not saved: the attempt is made again on the next step
	}
	d.cfg.Metrics.Stepped(res)
	if res.BudgetDisagreement {
		d.cfg.Metrics.log.Printf("budget store and policy disagree on endpoint %s (the store's verdict stands)", r.Event.EndpointID)
	}
	if res.StoreErr != nil {
		d.cfg.Metrics.log.Printf("budget store %s failed for endpoint %s: %v", res.Store.Op, r.Event.EndpointID, res.StoreErr)
	}
	decision := res.Decision
	if retry := decision.Retry; retry != nil {
		r.NextAttemptAtMs = d.cfg.Clock.NowMs() + retry.DelayMs
		r.CredentialsRefreshed = r.CredentialsRefreshed || retry.RefreshCredentials
		r.ReloadSecrets = retry.RefreshCredentials
		return d.cfg.Store.Save(r)
	}
	stop := decision.Stop
	if stop.Reason == rp.StopReasonDelivered {
		r.State, r.FinishedAtMs = StateDelivered, d.cfg.Clock.NowMs()
		d.cfg.Metrics.Stopped(stop.Reason)
		return d.cfg.Store.Save(r)
	}
	return d.deadLetter(r, stop)
}

// send makes the attempt (attempt number r.Attempts+1): the signing
// secrets, the request, the window's edge re-checked just before it is
// written. finished: r was already persisted (dead-lettered past the
// edge, or left pending by a drain's deadline) or ctx stopped; else the
// attempt was made and counted, r.Attempts and r.LastOutcome updated.
func (d *Dispatcher) send(ctx context.Context, r *Record) (outcome rp.AttemptOutcome, finished bool, err error) {
	// the window's edge, re-checked immediately before the request is
	// written (after the secrets, DNS, connect and TLS; docs/replica.md)
	edgeMs := r.Admission.FirstAttemptedAtMs + r.Policy.WindowMs
	var secrets []signing.Secret
	unsigned := false
	if d.cfg.Secrets != nil {
		// A reload before the retry the policy asked to refresh credentials for.
		if secrets, err = d.cfg.Secrets.Secrets(ctx, r.Event.EndpointID, r.ReloadSecrets); err != nil {
			if ctx.Err() != nil {
				return outcome, true, err // stopping: the event stays pending
			}
			if d.cfg.Clock.NowMs() >= edgeMs {
				return outcome, true, d.deadLetter(r, &rp.Stop{Reason: rp.StopReasonRetryWindowElapsed})
			}
			// No usable secret: never sent unsigned; the attempt ends as the
			// terminal kind credentials_unavailable, as in every dispatcher.
			d.cfg.Metrics.log.Printf("event %s: not sent: %v", r.Event.ID, err)
			outcome, unsigned, err = httpoutcome.Failed(httpoutcome.CredentialsUnavailable), true, nil
		} else {
			r.ReloadSecrets = false
		}
	}
	actx, release := d.attemptContext(ctx) // cancelled at a drain's deadline
	defer release()
	if !unsigned {
		gated := safehttp.WithSendGate(actx, func() bool { return d.cfg.Clock.NowMs() < edgeMs })
		inFlight := d.cfg.Metrics.InFlight()
		outcome, err = deliver(gated, d.cfg.Engine, d.cfg.Client, r.Event, secrets, d.cfg.Clock)
		inFlight()
	}
	if errors.Is(err, safehttp.ErrNotSent) { // past the edge: not sent, and no attempt left
		return outcome, true, d.deadLetter(r, &rp.Stop{Reason: rp.StopReasonRetryWindowElapsed})
	}
	if d.abandoned() && (err != nil || outcome.Response == nil) { // still running at the drain's deadline: made, no response in time, the event pending
		r.Attempts++
		d.cfg.Metrics.AttemptStarted(r.Attempts)
		r.LastOutcome, r.NextAttemptAtMs = string(httpoutcome.ReadTimeout), d.cfg.Clock.NowMs()
		return outcome, true, d.cfg.Store.Save(r)
	}
	if err != nil {
		return outcome, true, err
	}
	r.Attempts++
	d.cfg.Metrics.AttemptStarted(r.Attempts)
	d.cfg.Metrics.AttemptEnded(outcome)
	r.LastOutcome = journal.LastOutcome(outcome)
	return outcome, false, nil
}

func (d *Dispatcher) deadLetter(r *Record, stop *rp.Stop) error {
	dl := DeadLetterRecord{
		Class:            r.Event.Class,
		URL:              redactURL(r.Event.URL),
		PolicyVersion:    r.Admission.PolicyVersion,
		PolicyHash:       r.Admission.PolicyHash,
		LastOutcome:      r.LastOutcome,
		DisableEndpoint:  stop.DisableEndpoint,
		DeadLetteredAtMs: d.cfg.Clock.NowMs(),
		HeldMs:           r.HeldMs,
	}
	if stop.DeadLetter != nil {
		dl.DeadLetter = *stop.DeadLetter
	} else { // the component sends one for every reason but delivered; the window's edge is the dispatcher's
		dl.DeadLetter = rp.DeadLetter{EventID: r.Event.ID, EndpointID: r.Event.EndpointID, Attempts: r.Attempts, StopReason: stop.Reason,
			ElapsedMs: dl.DeadLetteredAtMs - min(dl.DeadLetteredAtMs, r.Admission.FirstAttemptedAtMs)}
	}
	// The final state and the dead letter in one fsynced journal line: a
	// crash leaves both or neither (then the event is still pending and is
	// judged again), never a dead letter twice.
	r.State = StateDeadLettered
	if err := d.cfg.Store.Finish(r, dl); err != nil {
		return err
	}
	d.cfg.Metrics.Stopped(stop.Reason)
	return nil
}
