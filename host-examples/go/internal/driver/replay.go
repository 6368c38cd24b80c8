package driver

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// replayUsage is `replica replay --help`.
const replayUsage = `usage: replica replay --store FILE --policy FILE [--endpoint ID] [--reason STOP_REASON]
                      [--from-ms N] [--to-ms N] [--limit N] [--now-ms N] [--artifact PATH]
Replays the dead letters of journal FILE not yet replayed (journal order; at
most --limit, default 10000), chosen by endpoint id, stop reason and
finished_at_ms in [--from-ms, --to-ms), each as a new event "<id>~r<n>" under
--policy's document (its class's current policy), then prints one JSON line
{"replayed", "already_replayed", "skipped_no_class", "ids"}. The next run
(--store FILE / --resume FILE) sends them. Exit 0; 2 on bad flags, an
unreadable policy or a journal error.`

// replayExit is `replica replay ...` (docs/health-dispatch.md section 4):
// an engine that never sends (dispatch false) resumes the journal and
// takes one replay input; the driver writes its journal actions (the
// replays, then the dead letters marked); the next run sends them; its
// replayed action is printed.
func replayExit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "replica replay: "+format+"\n", a...)
		return 2
	}
	a, err := parseReplayArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, replayUsage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "replica replay: %v\n%s\n", err, replayUsage)
		return 2
	}
	text, err := os.ReadFile(a.policy)
	if err != nil {
		return fail("--policy: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	engine, err := rp.New(ctx, rp.WithArtifactPath(a.artifact))
	if err != nil {
		return fail("policy artifact: %v", err)
	}
	defer engine.Close(ctx)
	metrics, err := newMetrics(ctx, engine)
	if err != nil {
		return fail("%v", err)
	}
	d := newDriver(Config{StorePath: a.store}, stderr, metrics)
	now := uint64(time.Now().UnixMilli())
	if a.nowMs != nil {
		now = *a.nowMs
	}
	d.clock = func() uint64 { return now }
	if d.de, err = engine.OpenDeliveryEngine(ctx, map[string]any{"document": string(text), "memory_store": true, "dispatch": false}); err != nil {
		return fail("--policy %s: %v", a.policy, err)
	}
	defer d.de.Close(ctx)
	store, err := d.openStore()
	defer d.closeJournal()
	if err == nil {
		err = d.resumeJournals(ctx, store)
	}
	if err != nil {
		return fail("%v", err)
	}
	a.filter.Op = "replay"
	d.feed(ctx, []input{a.filter}) // only the journal's actions: nothing is sent
	switch {
	case d.broken != nil:
		return fail("%v", d.broken)
	case d.refusedInputs > 0:
		return fail("the engine refused the replay input")
	case d.journalErrors > 0:
		return fail("--store %s: the journal was not written", a.store)
	case d.replayed == nil:
		return fail("the engine answered no replayed action")
	}
	if err := d.journal.Close(); err != nil {
		return fail("--store %s: %v", a.store, err)
	}
	d.journal = nil
	ids := d.replayed.IDs
	if ids == nil {
		ids = []string{}
	}
	line, _ := json.Marshal(map[string]any{"replayed": d.replayed.Replayed, "already_replayed": d.replayed.AlreadyReplayed,
		"skipped_no_class": d.replayed.SkippedNoClass, "ids": ids})
	fmt.Fprintln(stdout, string(line))
	return 0
}

type replayArgs struct {
	store, policy, artifact string
	nowMs                   *uint64
	filter                  input
}

// parseReplayArgs reads replay's flags: --store and --policy required,
// the filter's --endpoint, --reason, --from-ms, --to-ms, --limit (1 or
// more), --now-ms, --artifact; each once. flag.ErrHelp for --help.
func parseReplayArgs(args []string) (replayArgs, error) {
	var a replayArgs
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.store, "store", "", "")
	fs.StringVar(&a.policy, "policy", "", "")
	fs.StringVar(&a.artifact, "artifact", "", "")
	fs.StringVar(&a.filter.EndpointID, "endpoint", "", "")
	fs.Func("reason", "", func(v string) error {
		if r, ok := rp.ParseStopReason(v); !ok || r == rp.StopReasonDelivered {
			return fmt.Errorf("%q is not the stop reason of a dead letter", v)
		}
		a.filter.StopReason = &v
		return nil
	})
	for name, dst := range map[string]**uint64{"from-ms": &a.filter.FromMs, "to-ms": &a.filter.ToMs, "limit": &a.filter.Limit, "now-ms": &a.nowMs} {
		fs.Func(name, "", func(v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			if least := map[string]uint64{"limit": 1}[name]; err != nil || n < least {
				return fmt.Errorf("want a whole number >= %d", least)
			}
			*dst = &n
			return nil
		})
	}
	if err := parseOnce(fs, args); err != nil {
		return a, err
	}
	if a.store == "" || a.policy == "" {
		return a, fmt.Errorf("--store and --policy are required")
	}
	return a, nil
}
