// Command replica is the Go host's replica for the fleet tests (the
// REPLICA contract): it delivers --events events to --target through the
// policy (class "storm" of --policy, else of the document the artifact
// embeds), counting attempts in this process or in the fleet's Redis
// (--redis, fleet/README.md via redisbudget), and prints exactly one JSON
// line on stdout. It logs the artifact's load (and, with --watch-artifact-ms,
// every swap) on stderr and serves docs/metrics.md's families on --metrics-addr.
// SIGTERM or SIGINT drains the run (--drain-ms; docs/replica.md) and it
// still exits 0 with the summary. Exit codes (docs/replica.md): 0 the run
// ended, 2 a usage or setup error (a bad flag; an unreadable or refused
// artifact, policy or CA file), 1 anything else.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	keepSignals = true // until the process exits: a late signal must not kill it after the summary
	os.Exit(mainExit(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// mainExit runs the replica and returns its exit code.
func mainExit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "replay" { // docs/health-dispatch.md section 4
		return replayExit(ctx, args[1:], stdout, stderr)
	}
	cfg, err := parseArgs(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "replica: %v\n%s\n", err, usage)
		return 2
	}
	// SIGTERM/SIGINT drain (drain.go), watched from the start: a signal
	// while the artifact loads ends the run before it admits anything
	drain := newDrain(ctx, cfg.DrainMs)
	stopSignals := drain.onSignals() // a second signal is ignored
	defer stopSignals()
	engine, err := newEngine(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "replica: policy artifact: %v\n", err)
		return 2 // a setup error, as an unreadable policy or CA file
	}
	defer engine.Close(ctx)
	r, err := newReplica(ctx, cfg, engine, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "replica: %v\n", err)
		var ue errUsage
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	defer r.budget.close()
	r.drain = drain
	if err := r.openJournals(ctx); err != nil { // --store, --resume
		fmt.Fprintf(stderr, "replica: %v\n", err)
		return 2
	}
	defer r.closeJournal() // the lock goes on a clean exit, a drain included
	stop, err := showPolicy(ctx, cfg, engine, r.docs, r.metrics, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "replica: %v\n", err)
		return 2
	}
	summary := r.run(ctx)
	stop()
	r.closeJournal()
	line, err := json.Marshal(summary)
	if err != nil {
		fmt.Fprintf(stderr, "replica: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", line)
	return 0
}
