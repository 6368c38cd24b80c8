package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/replay"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// replayMain is `dispatcher replay --store DIR [--policy FILE] [--endpoint
// ID] [--reason STOP_REASON] [--from-ms N] [--to-ms N] [--limit N]
// [--now-ms N]`: it opens the store's journal as its one writer, writes
// the replays, prints one JSON line and exits (0; 2 on bad flags, an
// unreadable policy or a journal error). The next run sends them.
func replayMain(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "dispatcher replay: "+format+"\n", a...)
		return 2
	}
	var usage strings.Builder // the flags: on stdout for --help, on stderr after a bad one
	a, err := replay.ParseArgs(args, &usage, false)
	if errors.Is(err, flag.ErrHelp) {
		io.WriteString(stdout, usage.String())
		return 0
	}
	io.WriteString(stderr, usage.String())
	if err != nil {
		return fail("%v", err)
	}
	var clock rp.Clock = rp.SystemClock{}
	if a.NowMs != nil {
		clock = NewFakeClock(*a.NowMs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	opts := []rp.Option{rp.WithClock(clock)}
	if a.Artifact != "" {
		opts = append(opts, rp.WithArtifactPath(a.Artifact))
	}
	engine, err := rp.New(ctx, opts...)
	if err != nil {
		return fail("policy artifact: %v", err)
	}
	defer engine.Close(ctx)
	doc, err := fixedDocument(ctx, engine, a.PolicyPath) // --policy, else the artifact's embedded document, else policy.json
	if err != nil {
		return fail("%v", err)
	}
	store, err := OpenFileStore(a.Store, journal.ComponentHasher(ctx, engine))
	if err != nil {
		return fail("--store %s: %v", a.Store, err)
	}
	defer store.Close()
	mem := rp.NewMemoryCallStore(engine)
	d, err := NewDispatcher(Config{Engine: engine, Budget: mem.Budget(), Calls: mem, HealthDocument: &doc, Store: store,
		Metrics: NewMetrics(), Clock: clock, Sleeper: realSleeper{clock}})
	if err != nil {
		return fail("%v", err)
	}
	res, err := d.Replay(ctx, a.Filter)
	if err != nil {
		return fail("journal: %v", err)
	}
	line, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(line))
	return 0
}
