package driver

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/webhookmetrics"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

// driver runs one replica on the delivery engine (docs/engine.md): one
// goroutine (run) owns the engine, feeds it what arrived together in ONE
// batch, and acts on its actions in order; HTTP attempts and store calls
// run on their own goroutines and come back as inputs. It decides
// nothing: which event goes, when, and what a result means are the
// engine's.
type driver struct {
	cfg     Config
	de      *rp.DeliveryEngine
	stderr  io.Writer
	metrics *webhookmetrics.Metrics
	client  *safehttp.Client
	redis   *redisBudget      // nil: the engine's memory store
	follow  *rollout.Follower // --artifact-from-redis (nil: not following)
	journal *journal.File     // --store (nil: none)
	prefix  string            // event ids are prefix-i
	drain   *drainSignal
	clock   func() uint64 // nil: the wall clock plus --clock-offset-ms

	inputs  chan input    // results and store answers from their goroutines
	swaps   chan struct{} // an artifact swap was applied (swap.go)
	done    chan struct{} // closed when run returns: late goroutines drop their input
	sendCtx context.Context
	abandon context.CancelFunc // the drain deadline: attempts still out are abandoned

	lastNow                      uint64              // the largest now_ms fed (time never goes back)
	open                         map[string]struct{} // this run's events not stopped (admitted, or resumed: the engine's resumed action)
	sending                      map[string]uint32   // attempts out, by event
	calls                        int                 // store calls out
	next                         uint64              // the next event index to admit
	full                         bool                // the last batch had an admission refused at_capacity
	draining                     bool
	drained                      bool
	swapping                     bool       // the old engine drains for an artifact swap (swap.go)
	engine                       *rp.Engine // the artifact (a swap opens the next engine on it)
	document                     string     // the current engine's document text
	broken                       error      // the engine failed (a trap): the run ends
	timeout                      *uint64    // the engine's next tick
	lines                        []string   // journal lines not yet written
	sum                          Summary
	replayed                     *action    // replay's answer
	snapshot                     string     // the engine's state as journal text (an artifact swap)
	logMu                        sync.Mutex // logOnce is called from the attempts' goroutines too
	once                         map[string]bool
	secrets                      *SecretsFile // --signing-secrets (nil: unsigned)
	journalErrors, refusedInputs uint64
	crossings                    uint64        // engine calls (feed, resume): the benchmark's figures
	inEngine                     time.Duration // time inside them
}

func newDriver(cfg Config, stderr io.Writer, metrics *webhookmetrics.Metrics) *driver {
	sendCtx, abandon := context.WithCancel(context.Background())
	return &driver{cfg: cfg, clock: cfg.clock, stderr: stderr, metrics: metrics, inputs: make(chan input, 64), swaps: make(chan struct{}, 1), done: make(chan struct{}),
		sendCtx: sendCtx, abandon: abandon, open: map[string]struct{}{}, sending: map[string]uint32{},
		sum: newSummary(metrics.ClosedValues("webhook_holds_total")), once: map[string]bool{}}
}

// wallNow is this replica's clock: the wall clock plus --clock-offset-ms.
func (d *driver) wallNow() uint64 {
	if d.clock != nil {
		return d.clock()
	}
	return uint64(time.Now().UnixMilli() + d.cfg.ClockOffset)
}

// now is the clock as fed: never smaller than what was fed before.
func (d *driver) now() uint64 {
	d.lastNow = max(d.lastNow, d.wallNow())
	return d.lastNow
}

// logf writes a line on stderr.
func (d *driver) logf(format string, a ...any) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	fmt.Fprintf(d.stderr, "replica: "+format+"\n", a...)
}

// logOnce writes a line on stderr the first time kind happens.
func (d *driver) logOnce(kind, format string, a ...any) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	if !d.once[kind] {
		d.once[kind] = true
		fmt.Fprintf(d.stderr, "replica: "+format+"\n", a...)
	}
}

// run admits events (ids prefix-i) while the engine has fewer than
// --concurrency open events (its max_open), feeds the engine until every
// event stopped (or, drained, until the engine says drained or --drain-ms
// passed), and summarises.
func (d *driver) run(ctx context.Context) Summary {
	start := time.Now()
	defer close(d.done)
	defer d.abandon()
	timer := time.NewTimer(time.Hour)
	d.arm(timer) // a resumed journal's first due instant
	pace := time.NewTimer(time.Hour)
	pace.Stop() // armed by admit for the next --rate admission
	var batch []input
	began := d.drain.began
	var drainDeadline <-chan time.Time
	for d.broken == nil {
		if !d.draining && d.drain.stopped() {
			d.draining, began = true, nil
			if !d.swapping { // a swap's drain is the same drain: the run ends at drained
				batch = append(batch, input{Op: "drain"})
			}
			drainDeadline = time.After(time.Duration(d.cfg.DrainMs) * time.Millisecond)
		}
		if d.swapping && d.drained && !d.draining {
			d.finishSwap(ctx)
			// The new engine's first due instant: without it a run whose
			// open events all wait on a retry (no free slot to admit, no
			// attempt out) had no timer and stalled (1 in about 10 runs
			// of the swap test).
			d.arm(timer)
			continue
		}
		batch = d.admit(batch, start, pace)
		if len(batch) > 0 {
			d.feed(ctx, batch)
			batch = batch[:0]
			d.arm(timer)
			continue
		}
		if d.finished(start) {
			break
		}
		select {
		case in := <-d.inputs:
			batch = append(batch, in)
			for more := true; more; { // what arrived together goes in one batch
				select {
				case in := <-d.inputs:
					batch = append(batch, in)
				default:
					more = false
				}
			}
		case <-timer.C:
			batch = append(batch, input{Op: "tick"})
		case <-began: // the loop's head feeds drain
		case <-pace.C: // the loop's head admits the next --rate admission
		case <-d.swaps:
			if !d.draining && !d.swapping {
				batch = d.beginSwap(batch)
			}
		case <-drainDeadline: // attempts still out are abandoned: made, their events pending
			for _, n := range d.sending {
				d.sum.attempt(n)
			}
			d.flush()
			return d.summary(start)
		case <-ctx.Done():
			d.flush()
			return d.summary(start)
		}
	}
	d.flush()
	if d.broken != nil {
		fmt.Fprintf(d.stderr, "replica: the delivery engine failed: %v\n", d.broken)
	}
	return d.summary(start)
}

// arm sets timer to the engine's timeout. A timeout already due while
// attempts or store calls are out waits for them instead: the engine has
// due events but no free slot, and their answers feed it anyway.
func (d *driver) arm(timer *time.Timer) {
	timer.Stop()
	if d.timeout == nil || (*d.timeout <= d.lastNow && len(d.sending)+d.calls > 0) {
		return
	}
	at := int64(*d.timeout) - d.cfg.ClockOffset
	if d.clock != nil { // a test's clock: the wait is the difference
		at = time.Now().UnixMilli() + int64(*d.timeout) - int64(min(*d.timeout, d.wallNow()))
	}
	timer.Reset(time.Until(time.UnixMilli(at)))
}

// admit appends to batch, after its inputs, the admissions they may make
// room for, until --events were admitted or --deadline-ms passed; under
// --rate, an admission not yet due arms pace to its instant instead. The
// engine bounds open events (max_open = --concurrency): a place is offered
// for each free slot and for each input of the batch (any of them may stop
// an event), and what it refuses at_capacity is taken again later
// (refusals). After a refusal, an admission waits for another input: the
// engine is full until one comes.
func (d *driver) admit(batch []input, start time.Time, pace *time.Timer) []input {
	pace.Stop()
	if d.full && len(batch) == 0 {
		return batch
	}
	room := d.cfg.Concurrency - len(d.open) + len(batch)
	for ; room > 0 && !d.draining && !d.swapping && d.next < d.cfg.Events && !d.pastDeadline(start); room-- {
		if wait := d.paceWait(start); wait > 0 {
			pace.Reset(wait)
			break
		}
		id := fmt.Sprintf("%s-%d", d.prefix, d.next)
		counted := d.see(id) // false: an open resumed event's id (the engine refuses it duplicate_event)
		batch = append(batch, input{Op: "admit", EventID: id, EndpointID: d.cfg.EndpointID, Target: d.cfg.Target, Class: d.cfg.Class, index: d.next, counted: counted})
		d.next++
	}
	return batch
}

func (d *driver) pastDeadline(start time.Time) bool {
	return d.cfg.DeadlineMs >= 0 && time.Since(start) >= time.Duration(d.cfg.DeadlineMs)*time.Millisecond
}

// finished: drained, or (not draining) nothing left to admit, nothing
// out and nothing the engine waits for.
func (d *driver) finished(start time.Time) bool {
	if d.draining {
		return d.drained
	}
	if d.swapping {
		return false
	}
	admitting := d.next < d.cfg.Events && !d.pastDeadline(start)
	return !admitting && len(d.sending) == 0 && d.calls == 0 && d.timeout == nil
}

// see counts an event of this run the first time the driver meets it
// (its admission, or the engine's resumed action); whether it did.
func (d *driver) see(id string) bool {
	if _, ok := d.open[id]; ok {
		return false
	}
	d.open[id] = struct{}{}
	d.sum.Events++
	return true
}

// stopped counts an event's stop.
func (d *driver) stopped(id, reason string) {
	if _, ok := d.open[id]; !ok {
		d.sum.Events++ // a resumed event met first at its stop
	}
	delete(d.open, id)
	d.sum.StopReasons[reason]++
	if d.follow != nil { // the status record's events and dead letters
		d.follow.Finished(reason != rp.StopReasonDelivered.String())
	}
}

// feed hands the engine one batch (all at one now_ms) and acts on its answer.
func (d *driver) feed(ctx context.Context, batch []input) {
	now := d.now()
	inputs := make([]any, len(batch))
	for i := range batch {
		in := &batch[i]
		in.NowMs = now
		inputs[i] = in
		switch in.Op {
		case "result": // an attempt came back: made, unless it never started
			delete(d.sending, in.EventID)
			if !in.NotStarted {
				d.sum.attempt(in.Attempt)
			}
		case "store":
			d.calls--
			if in.Failed {
				d.sum.StoreErrors++
				d.logOnce("store", "budget store call for %s: %v", d.cfg.EndpointID, in.storeErr)
			}
		}
	}
	var a answer
	d.crossings++
	t0 := time.Now()
	err := d.de.Feed(ctx, inputs, &a)
	d.inEngine += time.Since(t0)
	if err != nil {
		d.broken = err
		return
	}
	d.refusals(batch, &a)
	d.act(a.Outputs)
	d.timeout = a.TimeoutMs
}

// refusals reports the inputs the engine refused (each changed nothing);
// a refused admission undoes only what it counted: an id the driver met
// first there is no event of this run, while one already open (a resumed
// event: the engine refuses its id duplicate_event, logged, and keeps the
// event) stays open and counted. An admission refused at_capacity
// (offered for a slot the batch did not free) is silent and taken again:
// the next admission is the first one refused (every later one was
// refused too, a refusal changing nothing).
func (d *driver) refusals(batch []input, a *answer) {
	d.full = false
	for _, e := range a.Errors {
		if e.Index < 0 || e.Index >= len(batch) {
			continue
		}
		in := &batch[e.Index]
		if in.Op == "admit" && in.counted {
			delete(d.open, in.EventID)
			d.sum.Events--
		}
		if in.Op == "admit" && e.Error == "at_capacity" {
			d.full, d.next = true, min(d.next, in.index)
			continue
		}
		d.refusedInputs++
		d.logOnce("refused "+in.Op+e.Error, "the engine refused %s %s: %s: %s", in.Op, in.EventID, e.Error, e.Message)
	}
}

// summary is the run's figures (pending: this run's events not stopped).
func (d *driver) summary(start time.Time) Summary {
	s := d.sum
	s.Pending = uint64(len(d.open))
	s.Drained = d.draining
	s.ElapsedMs = uint64(time.Since(start).Milliseconds())
	if d.cfg.crossings != nil {
		*d.cfg.crossings, *d.cfg.inEngine = d.crossings, d.inEngine
	}
	if d.redis != nil {
		s.RedisRoundTrips = d.redis.store.RoundTrips()
	}
	if s.StoreErrors > 0 {
		fmt.Fprintf(d.stderr, "replica: %d budget store calls failed (pending retries failed closed; first attempts were delivered)\n", s.StoreErrors)
	}
	if n := s.TransportErrors[string(httpoutcome.DestinationRefused)]; n > 0 {
		fmt.Fprintf(d.stderr, "replica: %d attempts refused (destination_refused): the target resolves to a loopback, private or other non-public address (--allow-private-targets allows it)\n", n)
	}
	if d.journalErrors > 0 {
		fmt.Fprintf(d.stderr, "replica: %d journal writes failed (--store; logged, the run went on)\n", d.journalErrors)
	}
	if s.Disagreements > 0 {
		fmt.Fprintf(d.stderr, "replica: %d budget disagreements between the store and the policy (the store's verdict stood)\n", s.Disagreements)
	}
	return s
}
