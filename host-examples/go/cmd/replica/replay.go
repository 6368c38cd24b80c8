package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/replay"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
)

// replayUsage is `replica replay --help`.
const replayUsage = `usage: replica replay --store FILE --policy FILE [--endpoint ID] [--reason STOP_REASON]
                      [--from-ms N] [--to-ms N] [--limit N] [--now-ms N] [--artifact PATH]
Replays the dead letters of journal FILE not yet replayed (journal order; at
most --limit, default 10000), chosen by endpoint id, stop reason and
finished_at_ms in [--from-ms, --to-ms), each as a new event "<id>~r<n>" under
--policy's document (its class's current policy), then prints one JSON line
{"replayed", "already_replayed", "skipped_no_class", "ids"}. The next run
(--store FILE / --resume FILE) sends them, paced. Exit 0; 2 on bad flags, an
unreadable policy or a journal error.`

// replayExit is `replica replay ...` (docs/health-dispatch.md section 4):
// it opens the journal as its one writer, writes the replays, prints one
// JSON line and returns the exit code.
func replayExit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "replica replay: "+format+"\n", a...)
		return 2
	}
	a, err := replay.ParseArgs(args, io.Discard, true)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, replayUsage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "replica %v\n%s\n", err, replayUsage)
		return 2
	}
	text, err := os.ReadFile(a.PolicyPath)
	if err != nil {
		return fail("--policy: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	engine, err := newEngine(ctx, Config{ArtifactPath: a.Artifact})
	if err != nil {
		return fail("policy artifact: %v", err)
	}
	defer engine.Close(ctx)
	doc, err := engine.LoadHealthDocument(ctx, text)
	if err != nil {
		return fail("--policy %s: %v", a.PolicyPath, err)
	}
	j, err := journal.Open(a.Store, journal.ComponentHasher(ctx, engine))
	if err != nil {
		return fail("--store %s: %v", a.Store, err)
	}
	defer j.Close()
	now := wallMs()
	if a.NowMs != nil {
		now = *a.NowMs
	}
	res, err := replay.Journal(ctx, engine, j, j.Records(), doc, a.Filter, now, nil)
	if err != nil {
		return fail("--store %s: %v", a.Store, err)
	}
	if err := j.Close(); err != nil {
		return fail("--store %s: %v", a.Store, err)
	}
	line, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(line))
	return 0
}
