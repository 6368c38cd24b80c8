package main

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrDraining refuses an event offered once a drain began.
var ErrDraining = errors.New("dispatcher: draining (SIGTERM/SIGINT): no new event is taken")

// drain is the dispatcher's stop on SIGTERM/SIGINT (as the replicas'
// drain, docs/replica.md): from Drain on no event is taken and no attempt
// started; attempts in progress may finish for the deadline, then their
// context is cancelled (abandoned: counted as made, the event pending).
// Every event not finished stays pending in the journal, as last saved:
// any dispatcher resumes it from there.
type drain struct {
	stopping context.Context // done once the drain began
	begin    context.CancelFunc
	// attempts is the context of every attempt: cancelled at the deadline.
	attempts context.Context
	abandon  context.CancelFunc
	once     sync.Once
}

func newDrain() *drain {
	d := &drain{}
	d.stopping, d.begin = context.WithCancel(context.Background())
	d.attempts, d.abandon = context.WithCancel(context.Background())
	return d
}

// Drain begins the drain (the first call only): no new event or attempt;
// attempts in progress get deadline to finish. RunUntilIdle then returns
// nil once they have.
func (d *Dispatcher) Drain(deadline time.Duration) {
	d.drain.once.Do(func() {
		d.drain.begin()
		time.AfterFunc(deadline, d.drain.abandon)
	})
}

// Draining reports whether a drain began.
func (d *Dispatcher) Draining() bool { return d.drain.stopping.Err() != nil }

// attemptContext is ctx, also cancelled at the drain's deadline.
func (d *Dispatcher) attemptContext(ctx context.Context) (context.Context, func()) {
	actx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(d.drain.attempts, cancel)
	return actx, func() { stop(); cancel() }
}

// abandoned reports whether the drain's deadline passed.
func (d *Dispatcher) abandoned() bool { return d.drain.attempts.Err() != nil }

// untilDrain is ctx, also cancelled when a drain begins (a sleep until the
// next due event ends there).
func (d *Dispatcher) untilDrain(ctx context.Context) (context.Context, func()) {
	sctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(d.drain.stopping, cancel)
	return sctx, func() { stop(); cancel() }
}
