package driver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// BenchRun is one run of Bench: what the program did and what it cost.
type BenchRun struct {
	Events, Attempts uint64
	Stops            map[string]uint64
	Wall             time.Duration // admission of the first event to the last stop
	InEngine         time.Duration // inside the engine's calls (its work and the JSON both ways)
	Crossings        uint64        // the engine's calls (feed and resume)
}

// Bench runs the program itself for the benchmark's dispatcher row:
// events events to target (class "storm" of document, a policy document's
// JSON), --concurrency c, the engine's in-memory store, no journal, the
// private-target check off (a loopback endpoint).
func Bench(ctx context.Context, target, document string, events, c int) (BenchRun, error) {
	dir, err := os.MkdirTemp("", "driver-bench-")
	if err != nil {
		return BenchRun{}, err
	}
	defer os.RemoveAll(dir)
	policy := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(policy, []byte(document), 0o600); err != nil {
		return BenchRun{}, err
	}
	engine, cfg, err := configure(ctx, []string{"--target", target, "--endpoint-id", "ep-bench", "--events", strconv.Itoa(events),
		"--concurrency", strconv.Itoa(c), "--policy", policy, "--allow-private-targets"})
	if err != nil {
		return BenchRun{}, err
	}
	defer engine.Close(ctx)
	var r BenchRun
	var start time.Time
	cfg.crossings, cfg.inEngine = &r.Crossings, &r.InEngine
	cfg.ready = func() { start = time.Now() }
	cfg.ran = func() { r.Wall = time.Since(start) }
	s, err := run(ctx, engine, cfg, newDrainSignal(), io.Discard)
	if err != nil {
		return BenchRun{}, err
	}
	r.Events, r.Attempts, r.Stops = s.Events, s.Attempts, s.StopReasons
	return r, nil
}
