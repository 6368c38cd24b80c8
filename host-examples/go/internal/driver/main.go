// Package driver is the Go host's one dispatcher program (issue 26: the
// example dispatcher and the REPLICA program are one): the REPLICA
// contract's command line (docs/replica.md) on the component's delivery
// engine (docs/engine.md). It admits --events events to --target, feeds
// the engine and does what it says: HTTP attempts (safehttp: destination
// checks, HTTPS with --ca-file), store calls on the fleet's Redis
// (redisbudget: TLS, ACL, Cluster), journal lines in --store (package
// journal: lock, append, fsync, truncate), the metrics of docs/metrics.md
// on --metrics-addr, artifact swaps; and prints exactly one JSON line on
// stdout. SIGTERM or SIGINT drains the run (--drain-ms) and it still
// exits 0 with the summary. Exit codes (docs/replica.md): 0 the run
// ended, 2 a usage or setup error (a bad flag; an unreadable or refused
// artifact, policy, CA file or journal), 1 anything else. `replay` replays
// a journal's dead letters through the engine's replay input.
package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Main runs the program on args and returns its exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	command, prefix := "replica", "replica"
	if len(args) > 0 && args[0] == "replay" { // docs/health-dispatch.md section 4
		command, prefix, args = "replay", "replica replay", args[1:]
	}
	if code, done := answeredWithoutArtifact(command, prefix, args, stdout, stderr); done {
		return code
	}
	if command == "replay" {
		return replayExit(ctx, args, stdout, stderr)
	}
	// SIGTERM/SIGINT, watched from the start: a signal while the artifact
	// loads ends the run before it admits anything
	drain := newDrainSignal()
	defer drain.onSignals()()
	engine, cfg, err := configure(ctx, args) // the artifact, then the flags judged by it
	if err != nil {
		fmt.Fprintf(stderr, "replica: %v\n", err)
		return 2
	}
	defer engine.Close(ctx)
	summary, err := run(ctx, engine, cfg, drain, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "replica: %v\n", err)
		var ue errUsage
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	line, err := json.Marshal(summary)
	if err != nil {
		fmt.Fprintf(stderr, "replica: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", line)
	return 0
}

// run sets the replica up on engine, the artifact its flags were read
// with (document, delivery engine, Redis, journals, metrics) and runs it;
// a setup error is an errUsage (exit 2).
func run(ctx context.Context, engine *rp.Engine, cfg Config, drain *drainSignal, stderr io.Writer) (Summary, error) {
	var store *redisBudget
	if cfg.Redis != nil || cfg.Cluster != nil {
		store = newRedisBudget(cfg.Redis, cfg.Cluster, time.Duration(cfg.StoreTimeoutMs)*time.Millisecond, cfg.Roots)
		defer store.client.Close()
	}
	follow, err := startFollowing(ctx, cfg, engine, store, stderr) // its first tick: before the document is read
	if err != nil {
		return Summary{}, err
	}
	doc, err := currentDocument(ctx, cfg, engine)
	if err != nil {
		return Summary{}, err
	}
	metrics, err := newMetrics(ctx, engine)
	if err != nil {
		return Summary{}, err
	}
	d := newDriver(cfg, stderr, metrics)
	d.drain, d.prefix = drain, fmt.Sprintf("go-%d", os.Getpid())
	d.client = safehttp.NewClient(safehttp.Options{
		AttemptDeadline:     time.Duration(cfg.AttemptDeadlineMs) * time.Millisecond,
		AllowPrivateTargets: cfg.AllowPrivate,
		// the artifact's destination-refusal (docs/destinations.md: the table
		// lives once, in the component); an address it cannot judge is refused
		Judge: func(ip netip.Addr) string {
			why, err := engine.DestinationRefusal(ctx, ip.String())
			if err != nil {
				return "unjudged (" + err.Error() + ")"
			}
			return why
		},
		IdlePerHost: cfg.Concurrency,
		RootCAs:     cfg.Roots,
		Observe:     metrics.ObserveDelivery,
	})
	if cfg.SecretsPath != "" {
		d.secrets = &SecretsFile{Path: cfg.SecretsPath}
	}
	d.redis, d.follow = store, follow.useDocument(doc.version)
	journal, err := d.openStore()
	defer d.closeJournal() // the lock goes on a clean exit, a drain included
	if err != nil {
		return Summary{}, err
	}
	if d.de, err = engine.OpenDeliveryEngine(ctx, d.engineConfig(doc.text)); err != nil {
		return Summary{}, usageErrorf("%s: %v", doc.where, err)
	}
	defer func() { d.de.Close(ctx) }()                     // the engine the run ends on (a swap opens another)
	if err := d.resumeJournals(ctx, journal); err != nil { // --store, then --resume
		return Summary{}, err
	}
	d.engine, d.document = engine, doc.text
	stop, err := showPolicy(ctx, cfg, engine, doc.version, d.swapped, follow, metrics, stderr)
	if err != nil {
		return Summary{}, err
	}
	if cfg.ready != nil {
		cfg.ready()
	}
	summary := d.run(ctx)
	if cfg.ran != nil {
		cfg.ran()
	}
	stop()
	d.closeJournal()
	return summary, nil
}

// engineConfig is the engine's config (docs/engine.md section 1) on
// document: --concurrency bounds the events busy at once and the open
// events admissions may make (max_open; resumed events are not bounded).
func (d *driver) engineConfig(document string) map[string]any {
	return map[string]any{"document": document, "max_in_flight": d.cfg.Concurrency, "max_open": d.cfg.Concurrency,
		"memory_store": d.redis == nil, "journal": d.journal != nil}
}

// artifactsVersion is the version of the document the artifact embeds.
func artifactsVersion(a rp.ArtifactInfo) string { return a.DocumentVersion }

// document is the engine's current document at start.
type document struct {
	text    string
	where   string                       // how to name it in an error
	version func(rp.ArtifactInfo) string // the version webhook_policy_info shows
}

// currentDocument is --policy's document, else the one the artifact
// embeds (then a swapped-in artifact's document becomes current); its
// class --class must be there.
func currentDocument(ctx context.Context, cfg Config, engine *rp.Engine) (document, error) {
	var doc rp.HealthDocument
	var text []byte
	where := "the artifact's document"
	if cfg.PolicyPath != "" {
		var err error
		where = "--policy " + cfg.PolicyPath
		if text, err = os.ReadFile(cfg.PolicyPath); err != nil {
			return document{}, usageErrorf("--policy: %v", err)
		}
		if doc, err = engine.LoadHealthDocument(ctx, text); err != nil {
			return document{}, usageErrorf("%s: %v", where, err)
		}
	} else {
		var ok bool
		if doc, text, ok = engine.ArtifactHealthDocument(); !ok {
			return document{}, usageErrorf("the artifact embeds no policy document: give --policy FILE")
		}
	}
	found := false
	for _, c := range doc.Classes {
		found = found || c.Name == cfg.Class
	}
	if !found {
		return document{}, usageErrorf("%s: class %q: unknown_event_class: not in the document", where, cfg.Class)
	}
	out := document{text: string(text), where: where, version: artifactsVersion}
	if cfg.PolicyPath != "" {
		version := doc.Version
		out.version = func(rp.ArtifactInfo) string { return version }
	}
	return out, nil
}
