package driver

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/redact"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

// The command line (docs/replica.md, "Flags") is judged once, by the
// artifact's replica-args; this file hands it the arguments and maps its
// answer onto Config, keeping only what needs this process: the files the
// flags name, the default replica id, $RETRY_POLICY_ARTIFACT.

// extras are the language extras this replica honours (the component
// refuses another, naming it).
var extras = []string{"--signing-secrets"}

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

// errUsage marks an argument or setup error (exit 2).
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error { return errUsage{fmt.Sprintf(format, a...)} }

// answeredWithoutArtifact answers what needs no artifact (docs/replica.md):
// --help (the GENERATED usage of command) and --version on stdout, exit 0;
// an unknown --flag (not in the GENERATED names) on stderr, exit 2, with
// the component's line; an argument that is not UTF-8 (the component's
// strings are) on stderr, exit 2. done is false for anything else.
func answeredWithoutArtifact(command, prefix string, args []string, stdout, stderr io.Writer) (code int, done bool) {
	if slices.Contains(args, "--help") || slices.Contains(args, "-h") {
		fmt.Fprint(stdout, map[string]string{"replica": rp.ReplicaUsage, "replay": rp.ReplayUsage}[command])
		return 0, true
	}
	if slices.Contains(args, "--version") {
		fmt.Fprintf(stdout, "replica (go host) for %s\n", rp.ABI)
		return 0, true
	}
	for _, arg := range args {
		if !utf8.ValidString(arg) {
			fmt.Fprintf(stderr, "%s: argument %q is not UTF-8\n", prefix, arg)
			return 2, true
		}
		if name, _, _ := strings.Cut(arg, "="); strings.HasPrefix(arg, "--") && !slices.Contains(rp.ReplicaFlagNames, name) {
			quoted := new(strings.Builder) // as the component quotes: JSON, < > & as they are
			enc := json.NewEncoder(quoted)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(arg)
			fmt.Fprintf(stderr, "%s: unknown argument %s\n", prefix, strings.TrimSuffix(quoted.String(), "\n"))
			return 2, true
		}
	}
	return 0, false
}

// loadArtifact loads the artifact the args name (--artifact), else
// $RETRY_POLICY_ARTIFACT's, else the package's copy; its pin is the
// environment's. It judges the rest of the command line.
func loadArtifact(ctx context.Context, args []string) (*rp.Engine, error) {
	path := ""
	for i, arg := range args {
		if v, ok := strings.CutPrefix(arg, "--artifact="); ok {
			path = v
			break
		}
		if arg == "--artifact" && i+1 < len(args) {
			path = args[i+1]
			break
		}
	}
	engine, err := rp.New(ctx, rp.WithArtifactPath(path))
	if err != nil {
		return nil, usageErrorf("policy artifact: %v", err)
	}
	return engine, nil
}

// judge hands command's args to the artifact's replica-args and decodes
// its answer into answer; a refusal is its one line (exit 2).
func judge(ctx context.Context, engine *rp.Engine, command string, args []string, answer any) error {
	var env *string
	if v := os.Getenv(rp.EnvArtifact); v != "" {
		env = &v
	}
	request, err := json.Marshal(map[string]any{"command": command, "args": append([]string{}, args...), "extras": extras,
		"replica_id": rollout.DefaultReplicaID("go"), "artifact_env": env})
	if err != nil {
		return usageErrorf("replica-args request: %v", err)
	}
	text, err := engine.ReplicaArgs(ctx, string(request))
	if err != nil {
		return usageErrorf("%v", err)
	}
	if err := json.Unmarshal([]byte(text), answer); err != nil {
		return usageErrorf("replica-args answer: %v", err)
	}
	return nil
}

// replicaAnswer is replica-args' answer for `replica`: every flag, its
// value or default (null, here the zero value, when it has none).
type replicaAnswer struct {
	Target            string    `json:"target"`
	EndpointID        string    `json:"endpoint_id"`
	Events            uint64    `json:"events"`
	Concurrency       int       `json:"concurrency"`
	Policy            string    `json:"policy"`
	Artifact          string    `json:"artifact"` // --artifact, else $RETRY_POLICY_ARTIFACT
	WatchArtifactMs   *uint64   `json:"watch_artifact_ms"`
	Redis             string    `json:"redis"`
	RedisCluster      string    `json:"redis_cluster"`
	ArtifactFromRedis bool      `json:"artifact_from_redis"`
	TrustKey          string    `json:"trust_key"`
	ReplicaID         string    `json:"replica_id"`
	RolloutPollMs     uint64    `json:"rollout_poll_ms"`
	CAFile            string    `json:"ca_file"`
	StoreTimeoutMs    uint64    `json:"store_timeout_ms"`
	AttemptDeadlineMs uint64    `json:"attempt_deadline_ms"`
	DeadlineMs        *uint64   `json:"deadline_ms"`
	DrainMs           uint64    `json:"drain_ms"`
	ClockOffsetMs     int64     `json:"clock_offset_ms"`
	Store             string    `json:"store"`
	Resume            string    `json:"resume"`
	MetricsAddr       *hostPort `json:"metrics_addr"`
	AllowPrivate      bool      `json:"allow_private_targets"`
	Rate              float64   `json:"rate"`
	SigningSecrets    string    `json:"signing_secrets"`
	Class             string    `json:"class"`
}

type hostPort struct {
	Host string `json:"host"`
	Port uint16 `json:"port"`
}

// configure loads the artifact and reads the replica's flags through it;
// the engine is the run's (the caller closes it).
func configure(ctx context.Context, args []string) (*rp.Engine, Config, error) {
	engine, err := loadArtifact(ctx, args)
	if err != nil {
		return nil, Config{}, err
	}
	cfg, err := parseArgs(ctx, engine, args)
	if err != nil {
		_ = engine.Close(ctx)
		return nil, Config{}, err
	}
	return engine, cfg, nil
}

// parseArgs reads the REPLICA flags through engine's replica-args, then
// the files they name (--ca-file, --trust-key).
func parseArgs(ctx context.Context, engine *rp.Engine, args []string) (Config, error) {
	var a replicaAnswer
	if err := judge(ctx, engine, "replica", args, &a); err != nil {
		return Config{}, err
	}
	cfg := Config{Target: a.Target, EndpointID: a.EndpointID, Events: a.Events, Concurrency: a.Concurrency,
		PolicyPath: a.Policy, Class: a.Class, DeadlineMs: -1, RatePerS: a.Rate,
		ClockOffset: a.ClockOffsetMs, StoreTimeoutMs: a.StoreTimeoutMs,
		AttemptDeadlineMs: a.AttemptDeadlineMs, AllowPrivate: a.AllowPrivate, CAFile: a.CAFile,
		DrainMs: a.DrainMs, StorePath: a.Store, ResumePath: a.Resume, SecretsPath: a.SigningSecrets}
	// Durations are at most 10^12 ms (replica-args), inside a time.Duration.
	if a.DeadlineMs != nil {
		cfg.DeadlineMs = int64(*a.DeadlineMs)
	}
	if a.WatchArtifactMs != nil {
		cfg.WatchPath, cfg.WatchInterval = a.Artifact, time.Duration(*a.WatchArtifactMs)*time.Millisecond
	}
	if a.MetricsAddr != nil {
		cfg.MetricsAddr = net.JoinHostPort(a.MetricsAddr.Host, strconv.Itoa(int(a.MetricsAddr.Port)))
	}
	var err error
	if a.Redis != "" {
		if cfg.Redis, err = redis.ParseURL(a.Redis); err != nil {
			return cfg, usageErrorf("--redis %q: want redis://[USER[:PASSWORD]@]HOST:PORT[/DB] or rediss://...", redact.URL(a.Redis))
		}
	}
	if a.RedisCluster != "" {
		if cfg.Cluster, err = url.Parse(a.RedisCluster); err != nil {
			return cfg, usageErrorf("--redis-cluster %q: want redis://[USER[:PASSWORD]@]HOST:PORT or rediss://...", redact.URL(a.RedisCluster))
		}
	}
	if a.CAFile != "" {
		if cfg.Roots, err = safehttp.TrustWithCAFile(a.CAFile); err != nil {
			return cfg, usageErrorf("--ca-file %v", err)
		}
	}
	cfg.Rollout, err = rolloutConfig(a)
	return cfg, err
}
