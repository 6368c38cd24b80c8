package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// replayMain is `dispatcher replay --store DIR [--policy FILE] [--endpoint
// ID] [--reason STOP_REASON] [--from-ms N] [--to-ms N] [--limit N]
// [--now-ms N]`: it opens the store's journal as its one writer, writes
// the replays, prints one JSON line and exits (0; 2 on bad flags, an
// unreadable policy or a journal error). The next run sends them.
func replayMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	storeDir := fs.String("store", "", "the dispatcher's store directory (required)")
	policyPath := fs.String("policy", "", "the current policy document (default: the dispatcher's embedded policy.json)")
	endpoint := fs.String("endpoint", "", "only dead letters of this endpoint")
	reason := fs.String("reason", "", "only dead letters of this stop reason")
	fromMs := fs.Uint64("from-ms", 0, "only dead letters finished at or after this instant")
	toMs := fs.Uint64("to-ms", 0, "only dead letters finished before this instant")
	limit := fs.Int("limit", DefaultReplayLimit, "replay at most this many")
	nowMs := fs.Uint64("now-ms", 0, "the replay instant (tests; default the wall clock)")
	artifact := fs.String("artifact", "", "the policy artifact (default $RETRY_POLICY_ARTIFACT, else the embedded copy)")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "dispatcher replay: "+format+"\n", a...)
		return 2
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if *storeDir == "" {
		return fail("--store DIR is required")
	}
	if *limit < 1 {
		return fail("--limit %d: want at least 1", *limit)
	}
	f := ReplayFilter{EndpointID: *endpoint, Limit: *limit}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if set["reason"] {
		r, ok := rp.ParseStopReason(*reason)
		if !ok || r == rp.StopReasonDelivered {
			return fail("--reason %q is not the stop reason of a dead letter", *reason)
		}
		f.StopReason = &r
	}
	if set["from-ms"] {
		f.FromMs = fromMs
	}
	if set["to-ms"] {
		f.ToMs = toMs
	}
	text := policyJSON
	if *policyPath != "" {
		var err error
		if text, err = os.ReadFile(*policyPath); err != nil {
			return fail("--policy: %v", err)
		}
	}
	var clock rp.Clock = rp.SystemClock{}
	if set["now-ms"] {
		clock = NewFakeClock(*nowMs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := []rp.Option{rp.WithClock(clock)}
	if *artifact != "" {
		opts = append(opts, rp.WithArtifactPath(*artifact))
	}
	engine, err := rp.New(ctx, opts...)
	if err != nil {
		return fail("policy artifact: %v", err)
	}
	defer engine.Close(ctx)
	doc, err := engine.LoadHealthDocument(ctx, text)
	if err != nil {
		return fail("--policy %s: %v", *policyPath, err)
	}
	store, err := OpenFileStore(*storeDir, journal.ComponentHasher(ctx, engine))
	if err != nil {
		return fail("--store %s: %v", *storeDir, err)
	}
	defer store.Close()
	mem := rp.NewMemoryCallStore(engine)
	d, err := NewDispatcher(Config{Engine: engine, Budget: mem.Budget(), Calls: mem, HealthDocument: &doc, Store: store,
		Metrics: NewMetrics(), Clock: clock, Sleeper: realSleeper{clock}})
	if err != nil {
		return fail("%v", err)
	}
	res, err := d.Replay(ctx, f)
	if err != nil {
		return fail("journal: %v", err)
	}
	line, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(line))
	return 0
}
