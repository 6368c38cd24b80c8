package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

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
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	engine, err := loadArtifact(ctx, args)
	if err != nil {
		return fail("%v", err)
	}
	defer engine.Close(ctx)
	var a replayArgs
	if err := judge(ctx, engine, "replay", args, &a); err != nil {
		return fail("%v", err)
	}
	text, err := os.ReadFile(a.Policy)
	if err != nil {
		return fail("--policy: %v", err)
	}
	metrics, err := newMetrics(ctx, engine)
	if err != nil {
		return fail("%v", err)
	}
	d := newDriver(Config{StorePath: a.Store}, stderr, metrics)
	now := uint64(time.Now().UnixMilli())
	if a.NowMs != nil {
		now = *a.NowMs
	}
	d.clock = func() uint64 { return now }
	if d.de, err = engine.OpenDeliveryEngine(ctx, map[string]any{"document": string(text), "memory_store": true, "dispatch": false}); err != nil {
		return fail("--policy %s: %v", a.Policy, err)
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
	filter := input{Op: "replay", EndpointID: a.Endpoint, StopReason: a.Reason, FromMs: a.FromMs, ToMs: a.ToMs, Limit: a.Limit}
	d.feed(ctx, []input{filter}) // only the journal's actions: nothing is sent
	switch {
	case d.broken != nil:
		return fail("%v", d.broken)
	case d.refusedInputs > 0:
		return fail("the engine refused the replay input")
	case d.journalErrors > 0:
		return fail("--store %s: the journal was not written", a.Store)
	case d.replayed == nil:
		return fail("the engine answered no replayed action")
	}
	if err := d.journal.Close(); err != nil {
		return fail("--store %s: %v", a.Store, err)
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

// replayArgs is replica-args' answer for `replay` (null: the zero value).
type replayArgs struct {
	Store    string  `json:"store"`
	Policy   string  `json:"policy"`
	Endpoint string  `json:"endpoint"` // "" = every endpoint
	Reason   *string `json:"reason"`
	FromMs   *uint64 `json:"from_ms"`
	ToMs     *uint64 `json:"to_ms"`
	Limit    *uint64 `json:"limit"`
	NowMs    *uint64 `json:"now_ms"`
}
