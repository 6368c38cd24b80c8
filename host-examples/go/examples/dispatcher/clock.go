package main

import (
	"context"
	"sync/atomic"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// realSleeper sleeps on the wall clock.
type realSleeper struct{ clock rp.Clock }

func (s realSleeper) SleepUntil(ctx context.Context, atMs uint64) error {
	now := s.clock.NowMs()
	if atMs <= now {
		return ctx.Err()
	}
	t := time.NewTimer(time.Duration(atMs-now) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// FakeClock is a clock that moves only when told to; as a Sleeper it jumps
// to the instant asked for.
type FakeClock struct{ ms atomic.Uint64 }

// NewFakeClock starts at ms.
func NewFakeClock(ms uint64) *FakeClock {
	c := &FakeClock{}
	c.ms.Store(ms)
	return c
}

// NowMs is the fake now.
func (c *FakeClock) NowMs() uint64 { return c.ms.Load() }

// Advance moves the clock forward.
func (c *FakeClock) Advance(byMs uint64) { c.ms.Add(byMs) }

// SleepUntil jumps to atMs (never backwards).
func (c *FakeClock) SleepUntil(ctx context.Context, atMs uint64) error {
	for {
		now := c.ms.Load()
		if atMs <= now || c.ms.CompareAndSwap(now, atMs) {
			return ctx.Err()
		}
	}
}
