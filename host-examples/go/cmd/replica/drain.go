package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// drain is the replica's SIGTERM/SIGINT behaviour (docs/replica.md,
// "SIGTERM and SIGINT: drain"): from the first signal no event is
// admitted and no attempt started (events waiting for a retry stay
// pending); attempts in progress may finish for drain-ms, then their
// context is cancelled (abandoned: counted as made, the event pending).
type drain struct {
	stopping chan struct{} // closed on the first signal
	// attempts is the context of every HTTP attempt: cancelled at the
	// drain deadline.
	attempts context.Context
	abandon  context.CancelFunc
	drainFor time.Duration
	once     sync.Once
	began    atomic.Bool
}

func newDrain(ctx context.Context, drainMs uint64) *drain {
	attempts, abandon := context.WithCancel(ctx)
	return &drain{stopping: make(chan struct{}), attempts: attempts, abandon: abandon,
		drainFor: time.Duration(drainMs) * time.Millisecond}
}

// begin starts the drain (the first call only; later signals are ignored).
func (d *drain) begin() {
	d.once.Do(func() {
		d.began.Store(true)
		close(d.stopping)
		time.AfterFunc(d.drainFor, d.abandon)
	})
}

// stopped reports whether the drain began: nothing new may start.
func (d *drain) stopped() bool { return d.began.Load() }

// abandoned reports whether the drain deadline passed (attempts cancelled).
func (d *drain) abandoned() bool { return d.attempts.Err() != nil }

// close releases the attempts' context once the run is over.
func (d *drain) close() { d.abandon() }

// keepSignals leaves SIGTERM and SIGINT caught after the run (the
// process's main sets it; a test calling mainExit releases them).
var keepSignals bool

// onSignals begins the drain on the first SIGTERM or SIGINT and ignores
// any later one (SIGKILL is the operator's hard stop) until the returned
// stop is called; unless keepSignals, stop gives the signals back.
func (d *drain) onSignals() (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sigs:
				d.begin()
			case <-done:
				return
			}
		}
	}()
	return func() {
		if !keepSignals {
			signal.Stop(sigs)
			close(done)
		}
	}
}
