package driver

import (
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/redact"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// usage is printed for --help and after a bad argument.
const usage = `usage: replica replay --store FILE --policy FILE [...]   (replica replay --help)
       replica --target URL --endpoint-id ID --events N [--policy FILE]
               [--concurrency C (8)] [--redis redis[s]://[user:pass@]host:port/db | --redis-cluster redis[s]://seed:port]
               [--deadline-ms N] [--rate N] [--clock-offset-ms N] [--store-timeout-ms N (250)]
               [--attempt-deadline-ms N (30000)] [--allow-private-targets]
               [--artifact PATH] [--watch-artifact-ms N] [--metrics-addr HOST:PORT]
               [--artifact-from-redis --trust-key FILE [--replica-id ID] [--rollout-poll-ms N (500)]]
               [--ca-file PATH] [--drain-ms N (5000)] [--store FILE] [--resume FILE]
               [--help] [--version]
Delivers N events to URL through the policy (class "storm" of FILE, else of
the document the artifact embeds) until each stops, then prints one JSON
line on stdout. Exit 0 when the run ended (whatever happened to the events);
2 on bad arguments or setup (an unreadable or refused artifact, policy or CA
file); 1 on anything else. --help and --version print on stdout and exit 0.
  --rate N          (an extra, as the Rust replica's) admit at most N events
                    per second (N > 0, may be fractional): the k-th (from 0)
                    no earlier than k*1000/N ms after the run starts
  --artifact        the policy artifact (default $RETRY_POLICY_ARTIFACT, else the
                    copy embedded in the package); $RETRY_POLICY_ARTIFACT_SHA256 pins it
  --watch-artifact-ms N
                    poll the artifact file every N ms (N >= 1) and swap when its
                    sha256 changes (every check first, a refused file keeps the
                    old one); needs --artifact or $RETRY_POLICY_ARTIFACT
  --artifact-from-redis
                    follow the fleet's published artifact (docs/rollout.md) through
                    --redis or --redis-cluster (required), verified against
                    --trust-key (required): one tick before the first admission,
                    then every --rollout-poll-ms; excludes --watch-artifact-ms
  --trust-key FILE  PEM Ed25519 public keys whose signatures are trusted (only
                    with --artifact-from-redis)
  --replica-id ID   this replica's id in the rollout's status records and canary
                    rule, 1 to 200 bytes of UTF-8 (default go-<hostname>-<pid>)
  --rollout-poll-ms N
                    the follower's tick, 50 <= N <= 60000 (default 500)
  --metrics-addr    serve GET /metrics on HOST:PORT (docs/metrics.md) while
                    running; [IPv6]:PORT, an empty HOST is 127.0.0.1, port 0 any
                    free port (the URL is logged)
  --ca-file PATH    PEM CA certificates trusted in addition to the platform's
                    trust store, for https:// targets and rediss:// stores
                    (verification is never skipped; a failure is tls_certificate)
  --drain-ms N      on SIGTERM/SIGINT, how long attempts in progress may take
                    to finish (N >= 0); the summary then says "drained": true
  --store FILE      journal every event to FILE (docs/journal.md, format 2:
                    fdatasynced before it is acknowledged, one writer, a
                    stale lock of a killed writer removed); its pending
                    events are continued first (a restart after a crash), and
                    a drain leaves the rest pending in it
  --resume FILE     first continue the pending events of another replica's
                    journal (any language), each under the policy it was
                    admitted with; --events 0 only resumes
  --signing-secrets FILE
                    (a Go extra) sign every attempt (Standard Webhooks) with
                    the endpoint's secrets of FILE, {"ENDPOINT_ID": ["whsec_..."]};
                    reread before a retry the policy asks to refresh
                    credentials for; an endpoint with no usable secret is
                    never sent unsigned (credentials_unavailable)
Targets that resolve to loopback, private, link-local, shared, multicast or
broadcast addresses are refused (a terminal destination_refused) unless
--allow-private-targets is given.`

// Config is what the flags ask for.
type Config struct {
	Target            string
	EndpointID        string
	Events            uint64
	Concurrency       int
	PolicyPath        string
	Class             string
	Redis             *redis.Options // --redis, as redis.ParseURL reads it (nil: in-memory store, or a cluster)
	Cluster           *url.URL       // --redis-cluster: a seed node of a Redis Cluster
	DeadlineMs        int64          // < 0 = none
	RatePerS          float64        // --rate: admissions per second (0 = unpaced)
	ClockOffset       int64          // ms added to this replica's clock (fleet skew tests)
	StoreTimeoutMs    uint64         // one store call's bound
	AttemptDeadlineMs uint64         // the total time one attempt may take (body included)
	AllowPrivate      bool           // deliver to loopback/private/link-local/... targets too
	ArtifactPath      string         // --artifact ("" = the environment's, else the embedded copy)
	WatchPath         string         // the artifact file polled for swaps ("" = no watch)
	WatchInterval     time.Duration  // --watch-artifact-ms
	MetricsAddr       string         // where /metrics listens ("" = nowhere), HOST:PORT
	// CAFile is --ca-file ("" = none); Roots is the platform's trust store
	// plus its certificates (nil without --ca-file: the platform's alone).
	CAFile     string
	Roots      *x509.CertPool
	DrainMs    uint64        // how long attempts in progress may finish after SIGTERM/SIGINT
	StorePath  string        // --store: this run's journal ("" = none)
	ResumePath string        // --resume: another run's journal to continue ("" = none)
	Rollout    RolloutConfig // --artifact-from-redis and its flags (rolloutargs.go)
	// SecretsPath is --signing-secrets (a Go extra): sign every attempt
	// (Standard Webhooks) with the endpoint's secrets ("" = unsigned).
	SecretsPath string
	// clock replaces the wall clock plus --clock-offset-ms (tests).
	clock func() uint64
	// ready and ran, when set, are called before the run (/metrics
	// serving) and after it, before /metrics stops (tests).
	ready, ran func()
	// crossings, when set, gets the run's engine calls (the benchmark).
	crossings *uint64
	inEngine  *time.Duration
}

// errUsage marks an argument error (exit 2).
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error { return errUsage{fmt.Sprintf(format, a...)} }

// errSetup is a file a flag names that is refused (exit 2, one line, no
// usage text: the flags were right).
type errSetup struct{ msg string }

func (e errSetup) Error() string { return e.msg }

// parseArgs reads the REPLICA flags. flag.ErrHelp is returned for --help
// and --version, once their text is printed on stdout.
func parseArgs(args []string, stdout io.Writer) (Config, error) {
	cfg := Config{Class: "storm", DeadlineMs: -1, StoreTimeoutMs: 250, AttemptDeadlineMs: 30000, DrainMs: 5000}
	fs := flag.NewFlagSet("replica", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var events, concurrency, deadline, offset, timeout, attemptDeadline, watchMs, drainMs, pollMs, rate, redisURL, clusterURL string
	fs.StringVar(&cfg.Target, "target", "", "")
	fs.StringVar(&cfg.EndpointID, "endpoint-id", "", "")
	fs.StringVar(&events, "events", "", "")
	fs.StringVar(&concurrency, "concurrency", "8", "")
	fs.StringVar(&cfg.PolicyPath, "policy", "", "")
	fs.StringVar(&redisURL, "redis", "", "")
	fs.StringVar(&deadline, "deadline-ms", "", "")
	fs.StringVar(&rate, "rate", "", "")
	fs.StringVar(&clusterURL, "redis-cluster", "", "")
	fs.StringVar(&offset, "clock-offset-ms", "0", "")
	fs.StringVar(&timeout, "store-timeout-ms", "250", "")
	fs.StringVar(&attemptDeadline, "attempt-deadline-ms", "30000", "")
	fs.BoolVar(&cfg.AllowPrivate, "allow-private-targets", false, "")
	fs.StringVar(&cfg.ArtifactPath, "artifact", "", "")
	fs.StringVar(&watchMs, "watch-artifact-ms", "", "")
	fs.StringVar(&cfg.MetricsAddr, "metrics-addr", "", "")
	fs.StringVar(&cfg.CAFile, "ca-file", "", "")
	fs.StringVar(&drainMs, "drain-ms", "5000", "")
	fs.StringVar(&cfg.StorePath, "store", "", "")
	fs.StringVar(&cfg.ResumePath, "resume", "", "")
	fs.StringVar(&cfg.SecretsPath, "signing-secrets", "", "")
	fs.BoolVar(&cfg.Rollout.Follow, "artifact-from-redis", false, "")
	fs.StringVar(&cfg.Rollout.TrustKeyPath, "trust-key", "", "")
	fs.StringVar(&cfg.Rollout.ReplicaID, "replica-id", "", "")
	fs.StringVar(&pollMs, "rollout-poll-ms", "500", "")
	version := fs.Bool("version", false, "")
	if err := parseOnce(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stdout, usage)
			return cfg, err
		}
		return cfg, usageErrorf("%v", err)
	}
	if *version { // like --help: printed without loading the artifact
		fmt.Fprintf(stdout, "replica (go host) for %s\n", rp.ABI)
		return cfg, flag.ErrHelp
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range []string{"target", "endpoint-id", "events"} {
		if !set[name] {
			return cfg, usageErrorf("--%s is required", name)
		}
	}
	u, err := url.Parse(cfg.Target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, usageErrorf("--target %q: want an http:// or https:// URL", cfg.Target)
	}
	if cfg.EndpointID == "" {
		return cfg, usageErrorf("--endpoint-id must not be empty")
	}
	if cfg.Events, err = strconv.ParseUint(events, 10, 64); err != nil {
		return cfg, usageErrorf("--events %q: want a whole number", events)
	}
	c, err := strconv.ParseUint(concurrency, 10, 16)
	if err != nil || c == 0 {
		return cfg, usageErrorf("--concurrency %q: want a whole number from 1 to 65535", concurrency)
	}
	cfg.Concurrency = int(c)
	for name, v := range map[string]string{"policy": cfg.PolicyPath, "artifact": cfg.ArtifactPath, "store": cfg.StorePath,
		"resume": cfg.ResumePath, "signing-secrets": cfg.SecretsPath} {
		if set[name] && v == "" {
			return cfg, usageErrorf("--%s must name a file", name)
		}
	}
	if set["watch-artifact-ms"] {
		ms, err := strconv.ParseUint(watchMs, 10, 32)
		if err != nil || ms == 0 {
			return cfg, usageErrorf("--watch-artifact-ms %q: want a whole number of milliseconds, at least 1", watchMs)
		}
		cfg.WatchInterval = time.Duration(ms) * time.Millisecond
		if cfg.WatchPath = cfg.ArtifactPath; cfg.WatchPath == "" {
			cfg.WatchPath = os.Getenv(rp.EnvArtifact)
		}
		if cfg.WatchPath == "" {
			return cfg, usageErrorf("--watch-artifact-ms needs --artifact PATH or $%s", rp.EnvArtifact)
		}
	}
	if err := cfg.Rollout.check(set, pollMs); err != nil {
		return cfg, err
	}
	if set["metrics-addr"] {
		if cfg.MetricsAddr, err = metricsAddr(cfg.MetricsAddr); err != nil {
			return cfg, usageErrorf("--metrics-addr %v", err)
		}
	}
	if set["redis"] {
		if cfg.Redis, err = redis.ParseURL(redisURL); err != nil {
			return cfg, usageErrorf("--redis %q: want redis://[USER[:PASSWORD]@]HOST:PORT[/DB] or rediss://...", redact.URL(redisURL))
		}
	}
	if set["redis-cluster"] {
		if cfg.Cluster, err = url.Parse(clusterURL); err != nil || (cfg.Cluster.Scheme != "redis" && cfg.Cluster.Scheme != "rediss") || cfg.Cluster.Host == "" {
			return cfg, usageErrorf("--redis-cluster %q: want redis://[USER[:PASSWORD]@]HOST:PORT or rediss://...", redact.URL(clusterURL))
		}
		if set["redis"] {
			return cfg, usageErrorf("--redis and --redis-cluster are exclusive")
		}
	}
	if set["ca-file"] {
		if cfg.Roots, err = safehttp.TrustWithCAFile(cfg.CAFile); err != nil {
			return cfg, usageErrorf("--ca-file %v", err)
		}
	}
	if cfg.DrainMs, err = strconv.ParseUint(drainMs, 10, 32); err != nil {
		return cfg, usageErrorf("--drain-ms %q: want a whole number of milliseconds (0 or more)", drainMs)
	}
	if cfg.ClockOffset, err = strconv.ParseInt(offset, 10, 48); err != nil {
		return cfg, usageErrorf("--clock-offset-ms %q: want a whole number of milliseconds", offset)
	}
	if cfg.StoreTimeoutMs, err = strconv.ParseUint(timeout, 10, 32); err != nil || cfg.StoreTimeoutMs == 0 {
		return cfg, usageErrorf("--store-timeout-ms %q: want a positive whole number of milliseconds", timeout)
	}
	if cfg.AttemptDeadlineMs, err = strconv.ParseUint(attemptDeadline, 10, 32); err != nil || cfg.AttemptDeadlineMs == 0 {
		return cfg, usageErrorf("--attempt-deadline-ms %q: want a positive whole number of milliseconds", attemptDeadline)
	}
	if set["deadline-ms"] {
		d, err := strconv.ParseUint(deadline, 10, 62)
		if err != nil {
			return cfg, usageErrorf("--deadline-ms %q: want a whole number of milliseconds", deadline)
		}
		cfg.DeadlineMs = int64(d)
	}
	if set["rate"] {
		r, err := strconv.ParseFloat(rate, 64)
		if err != nil || math.IsInf(r, 0) || math.IsNaN(r) || r <= 0 {
			return cfg, usageErrorf("--rate %q: want a number of events per second, more than 0", rate)
		}
		cfg.RatePerS = r
	}
	return cfg, nil
}

// metricsAddr checks a --metrics-addr HOST:PORT before anything starts:
// PORT is 0 to 65535 (0: any free port), an IPv6 HOST is in brackets, an
// empty HOST is 127.0.0.1 (loopback unless a host is named). It returns
// the address to listen on.
func metricsAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if _, perr := strconv.ParseUint(port, 10, 16); err != nil || perr != nil {
		return "", fmt.Errorf("%q: want HOST:PORT (port 0 to 65535, [IPv6]:PORT)", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// parseOnce parses args with fs, each flag at most once, and no argument
// that is not a flag.
func parseOnce(fs *flag.FlagSet, args []string) error {
	seen := map[string]int{}
	fs.VisitAll(func(f *flag.Flag) { f.Value = countedValue(f.Value, f.Name, seen) })
	if err := fs.Parse(args); err != nil {
		return err
	}
	for name, n := range seen {
		if n > 1 {
			return fmt.Errorf("--%s is given %d times: give it once", name, n)
		}
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// countedValue wraps a flag's value so each Set is counted in seen (a
// repeated flag is a usage error, not "the last one wins").
func countedValue(v flag.Value, name string, seen map[string]int) flag.Value {
	if b, ok := v.(boolFlag); ok && b.IsBoolFlag() {
		return countedBool{counted{v, name, seen}}
	}
	return counted{v, name, seen}
}

type boolFlag interface{ IsBoolFlag() bool }

type counted struct {
	flag.Value
	name string
	seen map[string]int
}

func (c counted) Set(s string) error {
	c.seen[c.name]++
	return c.Value.Set(s)
}

type countedBool struct{ counted }

func (countedBool) IsBoolFlag() bool { return true }
