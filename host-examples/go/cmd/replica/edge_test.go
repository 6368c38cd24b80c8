package main

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestAnAttemptMayStartUntilTheInstantBeforeTheWindowsEdge(t *testing.T) {
	state := rp.DeliveryState{FirstAttemptedAtMs: 1_000}
	edge := windowEdge(state, rp.Policy{WindowMs: 3_000})
	if edge != 4_000 {
		t.Fatalf("edge %d, want first_attempt_ms + window_ms = 4000", edge)
	}
	for now, want := range map[uint64]bool{3_998: true, 3_999: true, 4_000: false, 4_001: false} {
		if got := mayStartBy(edge, func() uint64 { return now })(); got != want {
			t.Errorf("at %d: may start %v, want %v", now, got, want)
		}
	}
}

// The replica's clock reads the admission instant until its passAt-th
// reading, then the window's edge. Its readings in one event, in order:
// 1 admit, 2 the check before the first attempt, 3 the send gate as the
// request is to be written, 4 the step; 5 the check after the retry's
// wait, 6 the retry's send gate.
func TestAnAttemptPastTheWindowsEdgeWhenItIsToBeWrittenIsNotSentAndStopsTheEvent(t *testing.T) {
	srv, firsts, retries := always503(t)
	policy := writePolicy(t, "1.0", "1000000") // window_ms 3000
	for _, c := range []struct {
		name             string
		passAt           uint64
		attempts, copies uint64
	}{
		{"before the first attempt", 2, 0, 0},
		{"after the connect, as the first attempt is written", 3, 0, 0},
		{"after the retry's wait", 5, 1, 1},
		{"as the retry is written on the pooled connection", 6, 1, 1},
	} {
		cfg, err := parseArgs([]string{"--target", srv.URL, "--endpoint-id", "ep-edge", "--events", "1",
			"--policy", policy, "--allow-private-targets"}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		engine, err := newEngine(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := newReplica(ctx, cfg, engine, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		const admittedAt = 1_000_000
		var readings atomic.Uint64
		r.clock = func() uint64 {
			if readings.Add(1) >= c.passAt {
				return admittedAt + 3_000
			}
			return admittedAt
		}
		before := firsts.Load() + retries.Load()
		r.deliver(ctx, "edge-event")
		received := firsts.Load() + retries.Load() - before
		made := r.firstAttempts.Load() + r.retries.Load()
		if r.stops[rp.StopReasonRetryWindowElapsed].Load() != 1 || made != c.attempts || received != c.copies {
			t.Errorf("%s: retry_window_elapsed %d, %d attempts made, %d received; want 1, %d, %d",
				c.name, r.stops[rp.StopReasonRetryWindowElapsed].Load(), made, received, c.attempts, c.copies)
		}
		_ = engine.Close(ctx)
	}
}
