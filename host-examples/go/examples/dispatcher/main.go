// Command dispatcher is an example webhook dispatcher on the Go host: it
// starts three receivers on loopback (healthy, always-503, 410 Gone) plus
// a closed port, admits events under a policy document (the component's
// admit), delivers them over net/http, retries on the policy's schedule,
// dead-letters with the policy's reason, and serves the families of
// docs/metrics.md (internal/webhookmetrics) on /metrics;
// it logs the policy artifact's load (and, with -watch-artifact-ms, every swap
// or refusal) on stderr. It stops by itself
// when every event is delivered or dead-lettered (a few seconds with the
// "demo" class), then prints the dead letters and the metrics.
//
// The store is a directory holding one journal of format 2
// (docs/journal.md, package journal): any dispatcher or replica, in any
// language, can resume its pending events. SIGTERM or SIGINT drains: no
// new event is taken and no attempt started, attempts in progress get
// -drain-ms to finish, every event not finished stays pending in the
// journal, the tables are printed and the exit is 0.
//
// The demo's receivers are on loopback, which a dispatcher refuses by
// default (destination_refused): run it with -allow-private-targets.
//
//	go run ./examples/dispatcher -allow-private-targets [-class demo] [-events 3] [-store DIR]
//	    [-attempt-deadline-ms 30000] [-signing-secrets FILE] [-metrics-addr 127.0.0.1:0]
//	    [-policy PATH] [-artifact PATH] [-watch-artifact-ms N] [-ca-file PATH] [-drain-ms 2000]
package main

import (
	"context"
	"crypto/x509"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

//go:embed policy.json
var policyJSON []byte

func main() {
	if len(os.Args) > 1 && os.Args[1] == "replay" { // docs/health-dispatch.md section 4
		os.Exit(replayMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	class := flag.String("class", "demo", "event class of the policy document (demo: a 3 s window)")
	perEndpoint := flag.Int("events", 3, "events per endpoint")
	storeDir := flag.String("store", "", "store directory (default: a new temporary one)")
	deadline := flag.Uint("attempt-deadline-ms", 30000, "total time of one attempt, body included")
	allow := flag.Bool("allow-private-targets", false, "deliver to loopback/private/link-local targets too (the demo's receivers are on loopback)")
	secrets := flag.String("signing-secrets", "", `JSON file {"endpoint_id": ["whsec_...", ...]}: sign deliveries (Standard Webhooks)`)
	metricsAddr := flag.String("metrics-addr", "127.0.0.1:0", "where /metrics listens (loopback unless -metrics-public)")
	public := flag.Bool("metrics-public", false, "allow -metrics-addr on a non-loopback address")
	policyPath := flag.String("policy", "", "the policy document, format 2 or 3 (default: the artifact's embedded document when it carries one, else the demo's policy.json)")
	artifact := flag.String("artifact", "", "the policy artifact (default $RETRY_POLICY_ARTIFACT, else the copy embedded in the package)")
	caFile := flag.String("ca-file", "", "PEM CA certificates trusted for https:// receivers in addition to the platform's trust store")
	watchMs := flag.Int64("watch-artifact-ms", 0, "poll the artifact file (-artifact or $RETRY_POLICY_ARTIFACT) every N ms (N >= 1) and swap when its sha256 changes")
	drainMs := flag.Uint("drain-ms", 2000, "on SIGTERM/SIGINT, how long attempts in progress may take to finish")
	version := flag.Bool("version", false, "print the version and exit (nothing is loaded)")
	if code, done := parseFlags(flag.CommandLine, os.Args[1:], os.Stdout, os.Stderr); done {
		os.Exit(code)
	}
	if *version {
		fmt.Fprintf(os.Stdout, "dispatcher (go host example) for %s\n", rp.ABI)
		os.Exit(0)
	}
	opts := options{class: *class, perEndpoint: *perEndpoint, storeDir: *storeDir, deadline: time.Duration(*deadline) * time.Millisecond,
		allowPrivate: *allow, secretsPath: *secrets, metricsAddr: *metricsAddr, metricsPublic: *public, artifactPath: *artifact, policyPath: *policyPath, log: os.Stderr,
		drainFor: time.Duration(*drainMs) * time.Millisecond, signals: true}
	if _, port, err := net.SplitHostPort(*metricsAddr); err != nil || port == "" || strings.TrimLeft(port, "0123456789") != "" {
		usageExit("-metrics-addr %q: want HOST:PORT (port 0 to 65535, [IPv6]:PORT)", *metricsAddr)
	} else if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		usageExit("-metrics-addr %q: want HOST:PORT (port 0 to 65535, [IPv6]:PORT)", *metricsAddr)
	}
	if *caFile != "" {
		roots, err := safehttp.TrustWithCAFile(*caFile)
		if err != nil {
			usageExit("-ca-file %v", err)
		}
		opts.roots = roots
	}
	watching := false
	flag.Visit(func(f *flag.Flag) { watching = watching || f.Name == "watch-artifact-ms" })
	if watching {
		if *watchMs < 1 {
			usageExit("-watch-artifact-ms %d: want a whole number of milliseconds, at least 1", *watchMs)
		}
		opts.watchInterval = time.Duration(*watchMs) * time.Millisecond
		if opts.watchPath = *artifact; opts.watchPath == "" {
			opts.watchPath = os.Getenv(rp.EnvArtifact)
		}
		if opts.watchPath == "" {
			usageExit("-watch-artifact-ms needs -artifact PATH or $%s", rp.EnvArtifact)
		}
	}
	if err := run(opts, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "dispatcher:", err)
		os.Exit(exitCode(err))
	}
}

// setupError is a refused or unreadable artifact or policy document: exit
// 2, as a bad flag (docs/replica.md's exit codes); anything else exits 1.
type setupError struct{ error }

func (e setupError) Unwrap() error { return e.error }

func exitCode(err error) int {
	var se setupError
	if errors.As(err, &se) {
		return 2
	}
	return 1
}

// parseFlags parses args into fs: -help/--help prints the flags on stdout
// (exit 0), a bad flag prints its error and the flags on stderr (exit 2);
// done is false when the program goes on.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	var out strings.Builder
	fs.Init(fs.Name(), flag.ContinueOnError)
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stderr) // later usage errors (usageExit) go to stderr
	switch {
	case errors.Is(err, flag.ErrHelp):
		io.WriteString(stdout, out.String())
		return 0, true
	case err != nil:
		io.WriteString(stderr, out.String())
		return 2, true
	}
	return 0, false
}

// usageExit reports a bad argument and exits 2 (as flag.Parse does).
func usageExit(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "dispatcher: "+format+"\n", a...)
	flag.Usage()
	os.Exit(2)
}

type options struct {
	class, storeDir, secretsPath, metricsAddr string
	artifactPath, watchPath                   string        // "" = the default artifact; "" = no watch
	policyPath                                string        // -policy ("" = the artifact's embedded document, else policy.json)
	watchInterval                             time.Duration // how often watchPath is polled
	perEndpoint                               int
	deadline                                  time.Duration
	allowPrivate, metricsPublic               bool
	log                                       io.Writer // load/swap lines (nil: discarded)
	roots                                     *x509.CertPool
	drainFor                                  time.Duration   // -drain-ms
	signals                                   bool            // SIGTERM/SIGINT drain (main's; tests call run without)
	drainNow                                  <-chan struct{} // closed: drain (a test's stand-in for a signal; nil: none)
}

func run(o options, out io.Writer) error {
	class, perEndpoint, storeDir := o.class, o.perEndpoint, o.storeDir
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if storeDir == "" {
		dir, err := os.MkdirTemp("", "dispatcher-store-")
		if err != nil {
			return err
		}
		storeDir = dir
	}
	clock := rp.SystemClock{}
	engineOpts := []rp.Option{rp.WithClock(clock)}
	if o.artifactPath != "" {
		engineOpts = append(engineOpts, rp.WithArtifactPath(o.artifactPath))
	}
	engine, err := rp.New(ctx, engineOpts...)
	if err != nil {
		return setupError{fmt.Errorf("policy artifact: %w", err)}
	}
	defer engine.Close(ctx)
	store, err := OpenFileStore(storeDir, journal.ComponentHasher(ctx, engine))
	if err != nil {
		return err
	}
	defer store.Close()                    // the lock goes on a clean exit, a drain included
	calls := rp.NewMemoryCallStore(engine) // one store for both kinds of call
	cfg := Config{Engine: engine, Budget: calls.Budget(), Calls: calls, Store: store,
		AttemptDeadline: o.deadline, AllowPrivateTargets: o.allowPrivate, RootCAs: o.roots, Clock: clock, Sleeper: realSleeper{clock}}
	version, err := chooseDocument(ctx, engine, o.policyPath, &cfg)
	if err != nil {
		return setupError{err}
	}
	endpoints, err := StartEndpoints("")
	if err != nil {
		return err
	}
	defer endpoints.Close()
	metrics := NewMetrics()
	logw := o.log
	if logw == nil {
		logw = io.Discard
	}
	policy := metrics.ShowPolicy(logw, func(rp.ArtifactInfo) string { return version() })
	policy.Loaded(engine.Info())
	if o.watchPath != "" {
		go policy.Watch(ctx, engine, o.watchPath, o.watchInterval)
	}
	metricsURL, stopMetrics, err := serveMetrics(o.metricsAddr, o.metricsPublic, metrics.Handler())
	if err != nil {
		return err
	}
	defer stopMetrics()

	cfg.Metrics = metrics
	if o.secretsPath != "" {
		cfg.Secrets = &SecretsFile{Path: o.secretsPath}
	}
	if !o.allowPrivate {
		fmt.Fprintln(out, "the demo's receivers are on loopback: every delivery is refused (destination_refused) without -allow-private-targets")
	}
	d, err := NewDispatcher(cfg)
	if err != nil {
		return err
	}
	stopSignals := drainOn(d, o, out)
	defer stopSignals()
	targets := map[string]string{
		"ep_healthy": endpoints.Healthy.URL + "/hook", "ep_503": endpoints.Unavailable.URL + "/hook",
		"ep_gone": endpoints.Gone.URL + "/hook", "ep_closed": endpoints.Unreachable,
	}
	for _, ep := range []string{"ep_healthy", "ep_503", "ep_gone", "ep_closed"} {
		for i := 0; i < perEndpoint && !d.Draining(); i++ {
			ev := Event{ID: fmt.Sprintf("evt_%s_%d", ep, i), EndpointID: ep, URL: targets[ep], Class: class,
				Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
			if _, err := d.Enqueue(ctx, ev); err != nil {
				fmt.Fprintf(out, "enqueue %s: %v\n", ev.ID, err)
			}
		}
	}
	fmt.Fprintf(out, "store %s, metrics %s; delivering...\n", storeDir, metricsURL)
	start := time.Now()
	if err := d.RunUntilIdle(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "idle after %.1f s: 503 receiver hit %d times, 410 receiver %d, healthy %d\n",
		time.Since(start).Seconds(), endpoints.UnavailableHits.Load(), endpoints.GoneHits.Load(), endpoints.HealthyHits.Load())
	if d.Draining() {
		pending, _ := store.Pending()
		fmt.Fprintf(out, "drained: %d events pending in %s (journal format 2: resumable)\n", len(pending), store.Path())
	}
	fmt.Fprintln(out)
	dls, err := store.DeadLetters()
	if err != nil {
		return err
	}
	for _, dl := range dls {
		fmt.Fprintf(out, "dead letter %-18s %-10s %-24s attempts=%-2d elapsed_ms=%-5d last=%s\n",
			dl.EventID, dl.EndpointID, dl.StopReason, dl.Attempts, dl.ElapsedMs, dl.LastOutcome)
	}
	resp, err := http.Get(metricsURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Fprintln(out)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "webhook_") && !strings.Contains(line, "_bucket{") { // histograms: sum and count
			fmt.Fprintln(out, line)
		}
	}
	return nil
}

// drainOn drains d on the first SIGTERM or SIGINT (when o.signals; a
// later one is ignored) or when o.drainNow is closed; stop releases them.
func drainOn(d *Dispatcher, o options, out io.Writer) (stop func()) {
	sigs := make(chan os.Signal, 2)
	if o.signals {
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	}
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			fmt.Fprintf(out, "%v: draining (attempts in progress get %v; no new event or attempt)\n", s, o.drainFor)
		case <-o.drainNow:
			fmt.Fprintf(out, "draining (attempts in progress get %v; no new event or attempt)\n", o.drainFor)
		case <-done:
			return
		}
		d.Drain(o.drainFor)
	}()
	return func() {
		close(done)
		if o.signals {
			signal.Reset(syscall.SIGTERM, syscall.SIGINT)
			signal.Ignore(syscall.SIGTERM, syscall.SIGINT) // a late signal must not kill the exit
		}
	}
}

// serveMetrics serves h on addr and returns its /metrics URL. addr must
// be a loopback address unless public is set: metrics name endpoints.
func serveMetrics(addr string, public bool, h http.Handler) (string, func(), error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", nil, fmt.Errorf("-metrics-addr %q: %w", addr, err)
	}
	if ip, err := netip.ParseAddr(host); !public && (err != nil || !ip.IsLoopback()) && host != "localhost" {
		return "", nil, fmt.Errorf("-metrics-addr %q is not a loopback address (add -metrics-public to expose /metrics)", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String() + "/metrics", func() { _ = srv.Close() }, nil
}
