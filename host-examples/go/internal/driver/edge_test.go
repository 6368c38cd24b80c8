package driver

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// The replica's clock reads the admission instant at its first reading
// (the admission) and later ones at admittedAt+later: the send gate reads
// it immediately before the request is written, against the send's
// start_before_ms (the window's edge, 3000 ms after the admission). From
// there it runs with the wall clock: a retry is past the edge.
func TestAnAttemptPastTheWindowsEdgeWhenItIsToBeWrittenIsNotSentAndStopsTheEvent(t *testing.T) {
	srv, firsts, retries := always503(t)
	policy := writePolicy(t, "1.0", "1000000") // window_ms 3000
	for _, c := range []struct {
		name     string
		later    uint64
		attempts uint64
	}{
		{"before the edge: sent (then retried until the edge)", 2_900, 1},
		{"at the edge: not sent, stopped", 3_000, 0},
		{"past the edge: not sent, stopped", 3_500, 0},
	} {
		engine, cfg := configured(t, "--target", srv.URL, "--endpoint-id", "ep-edge", "--events", "1",
			"--policy", policy, "--allow-private-targets")
		const admittedAt = 1_000_000
		var readings atomic.Uint64
		var first atomic.Int64 // unix ms of the first reading
		cfg.clock = func() uint64 {
			if readings.Add(1) == 1 {
				first.Store(time.Now().UnixMilli())
				return admittedAt
			}
			return admittedAt + c.later + uint64(time.Now().UnixMilli()-first.Load())
		}
		before := firsts.Load() + retries.Load()
		var stderr bytes.Buffer
		s, err := run(context.Background(), engine, cfg, newDrainSignal(), &stderr)
		if err != nil {
			t.Fatal(err)
		}
		received := firsts.Load() + retries.Load() - before
		stopped := s.StopReasons["retry_window_elapsed"] + s.StopReasons["max_attempts_exhausted"]
		if stopped != 1 || (c.attempts == 0 && s.StopReasons["retry_window_elapsed"] != 1) || (s.Attempts == 0) != (c.attempts == 0) || received != s.Attempts {
			t.Errorf("%s: %+v, %d received; want retry_window_elapsed after %d attempts or more (%s)", c.name, s, received, c.attempts, stderr.String())
		}
	}
}
