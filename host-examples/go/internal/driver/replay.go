package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/journal"
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
// takes one replay input; its journal actions (the replays, then the dead
// letters marked) are written; the next run sends them; its replayed
// action is printed.
func replayExit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "replica replay: "+format+"\n", a...)
		return 2
	}
	a, err := parseReplayArgs(args)
	if err == errHelp {
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
	engine, err := newEngine(ctx, Config{ArtifactPath: a.artifact})
	if err != nil {
		return fail("policy artifact: %v", err)
	}
	defer engine.Close(ctx)
	de, err := engine.OpenDeliveryEngine(ctx, map[string]any{"document": string(text), "memory_store": true, "dispatch": false})
	if err != nil {
		return fail("--policy %s: %v", a.policy, err)
	}
	defer de.Close(ctx)
	j, err := journal.Open(a.store)
	if err != nil {
		return fail("--store %s: %v", a.store, err)
	}
	defer j.Close()
	bytes, err := j.Bytes()
	if err != nil {
		return fail("--store %s: %v", a.store, err)
	}
	now := uint64(time.Now().UnixMilli())
	if a.nowMs != nil {
		now = *a.nowMs
	}
	var res answer
	if len(bytes) > 0 {
		if err := de.ResumeInto(ctx, now, bytes, &res); err != nil {
			return fail("--store %s: %v", a.store, err)
		}
		if len(res.Errors) > 0 {
			return fail("--store %s: %s: %s", a.store, res.Errors[0].Error, res.Errors[0].Message)
		}
	}
	outputs := res.Outputs
	a.filter.Op, a.filter.NowMs = "replay", now
	res = answer{}
	if err := de.FeedInto(ctx, []any{&a.filter}, &res); err != nil {
		return fail("%v", err)
	}
	if len(res.Errors) > 0 {
		return fail("%s: %s", res.Errors[0].Error, res.Errors[0].Message)
	}
	var replayed *action
	var lines []string
	for _, o := range append(outputs, res.Outputs...) { // only the journal's actions: nothing is sent
		var err error
		switch o.Action {
		case "journal":
			lines = append(lines, o.Line)
		case "journal_truncate":
			err = j.Truncate(o.KeepBytes)
		case "journal_compact":
			lines, err = nil, errors.Join(j.Append(lines...), j.Replace(o.Journal))
		case "replayed":
			replayed = &o
		}
		if err != nil {
			return fail("--store %s: %v", a.store, err)
		}
	}
	if replayed == nil {
		return fail("the engine answered no replayed action")
	}
	if err := j.Append(lines...); err != nil {
		return fail("--store %s: %v", a.store, err)
	}
	if err := j.Close(); err != nil {
		return fail("--store %s: %v", a.store, err)
	}
	ids := replayed.IDs
	if ids == nil {
		ids = []string{}
	}
	line, _ := json.Marshal(map[string]any{"replayed": replayed.Replayed, "already_replayed": replayed.AlreadyReplayed,
		"skipped_no_class": replayed.SkippedNoClass, "ids": ids})
	fmt.Fprintln(stdout, string(line))
	return 0
}

type replayArgs struct {
	store, policy, artifact string
	nowMs                   *uint64
	filter                  input
}

var errHelp = fmt.Errorf("help")

// parseReplayArgs reads replay's flags: --store and --policy required,
// the filter's --endpoint, --reason, --from-ms, --to-ms, --limit (1 or
// more), --now-ms, --artifact; each once.
func parseReplayArgs(args []string) (replayArgs, error) {
	var a replayArgs
	seen := map[string]bool{}
	for i := 0; i < len(args); i++ {
		name := strings.TrimLeft(args[i], "-")
		if name == "help" || name == "h" {
			return a, errHelp
		}
		if !strings.HasPrefix(args[i], "-") || i+1 >= len(args) {
			return a, fmt.Errorf("%s: want --flag VALUE", args[i])
		}
		if seen[name] {
			return a, fmt.Errorf("--%s is given twice", name)
		}
		seen[name] = true
		v := args[i+1]
		i++
		number := func() (*uint64, error) {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("--%s %q: want a whole number", name, v)
			}
			return &n, nil
		}
		var err error
		switch name {
		case "store":
			a.store = v
		case "policy":
			a.policy = v
		case "artifact":
			a.artifact = v
		case "endpoint":
			a.filter.EndpointID = v
		case "reason":
			if r, ok := rp.ParseStopReason(v); !ok || r == rp.StopReasonDelivered {
				err = fmt.Errorf("--reason %q is not the stop reason of a dead letter", v)
			}
			a.filter.StopReason = &v
		case "from-ms":
			a.filter.FromMs, err = number()
		case "to-ms":
			a.filter.ToMs, err = number()
		case "limit":
			if a.filter.Limit, err = number(); err == nil && *a.filter.Limit == 0 {
				err = fmt.Errorf("--limit 0: want at least 1")
			}
		case "now-ms":
			a.nowMs, err = number()
		default:
			err = fmt.Errorf("--%s: no such flag", name)
		}
		if err != nil {
			return a, err
		}
	}
	if a.store == "" || a.policy == "" {
		return a, fmt.Errorf("--store and --policy are required")
	}
	return a, nil
}
