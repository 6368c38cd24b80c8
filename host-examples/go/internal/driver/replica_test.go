package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// A "storm" class with tiny delays. hard_cap 3: every event of an
// always-503 endpoint gets at most 3 attempts.
const stormPolicy = `{"version":"replica-test","classes":{"storm":{
  "window_ms": 3000, "hard_cap": 3,
  "backoff": {"base_ms": 1, "factor": 2.0, "cap_ms": 5, "jitter": "full"},
  "budget": {"ratio": %RATIO%, "window_ms": 3000, "min_sample": %MIN%, "sliding": true}}}}`

func writePolicy(t testing.TB, ratio, minSample string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.json")
	doc := strings.NewReplacer("%RATIO%", ratio, "%MIN%", minSample).Replace(stormPolicy)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// always503 counts first attempts and retries by the X-Attempt header.
func always503(t *testing.T) (*httptest.Server, *atomic.Uint64, *atomic.Uint64) {
	var firsts, retries atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Attempt") == "1" {
			firsts.Add(1)
		} else {
			retries.Add(1)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	return srv, &firsts, &retries
}

func runReplica(t *testing.T, args ...string) (Summary, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, &stdout, &stderr)
	var s Summary
	if code == 0 {
		lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
		if len(lines) != 1 {
			t.Fatalf("want one line on stdout, got %q", stdout.String())
		}
		if err := json.Unmarshal([]byte(lines[0]), &s); err != nil {
			t.Fatalf("stdout is not the summary JSON: %v: %q", err, lines[0])
		}
	}
	return s, stderr.String(), code
}

// artifactFile is the package's artifact copied to a file (an --artifact
// that loads, so the flags beside it are judged).
func artifactFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "retry_policy.wasm")
	if err := os.WriteFile(p, rp.EmbeddedArtifact(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// configured is configure for a test: the artifact loaded, the flags read
// through it (a refusal fails the test); the engine closes when t ends.
func configured(t testing.TB, args ...string) (*rp.Engine, Config) {
	t.Helper()
	engine, cfg, err := configure(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = engine.Close(context.Background()) })
	return engine, cfg
}

func checkNothingLost(t *testing.T, s Summary) {
	t.Helper()
	var sum uint64
	for _, n := range s.StopReasons {
		sum += n
	}
	if len(s.StopReasons) != 6 {
		t.Errorf("stop_reasons has %d keys, want all 6: %v", len(s.StopReasons), s.StopReasons)
	}
	if sum != s.Events {
		t.Errorf("%d events but %d stop reasons: %+v", s.Events, sum, s)
	}
	if s.Attempts != s.FirstAttempts+s.Retries {
		t.Errorf("attempts %d != first %d + retries %d", s.Attempts, s.FirstAttempts, s.Retries)
	}
}

func TestAnAlways503EndpointUsesEveryAttemptOfEveryEventWhenTheBudgetAllows(t *testing.T) {
	srv, firsts, retries := always503(t)
	policy := writePolicy(t, "1.0", "1000000")
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-test", "--events", "40",
		"--concurrency", "4", "--policy", policy, "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.Host != "go" || s.Events != 40 || s.FirstAttempts != 40 || s.Retries != 80 || s.Attempts != 120 {
		t.Errorf("want 40 events, 40 first attempts, 80 retries: %+v", s)
	}
	if s.StopReasons["max_attempts_exhausted"] != 40 {
		t.Errorf("want every event max_attempts_exhausted: %v", s.StopReasons)
	}
	if firsts.Load() != 40 || retries.Load() != 80 || s.RedisRoundTrips != 0 {
		t.Errorf("the endpoint saw %d first attempts and %d retries (round trips %d)", firsts.Load(), retries.Load(), s.RedisRoundTrips)
	}
}

func TestATightInMemoryBudgetRefusesRetriesAndLosesNoEvent(t *testing.T) {
	srv, firsts, retries := always503(t)
	policy := writePolicy(t, "0.1", "10")
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-test", "--events", "200",
		"--policy", policy, "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.Events != 200 || s.StopReasons["retry_budget_exhausted"] == 0 {
		t.Errorf("want 200 events, some retry_budget_exhausted: %+v", s)
	}
	if s.FirstAttempts != firsts.Load() || s.Retries != retries.Load() {
		t.Errorf("summary %+v disagrees with the endpoint: %d first attempts, %d retries", s, firsts.Load(), retries.Load())
	}
	// ratio 0.1 over a floor of 10: at most 10 retries below the floor, then 10%.
	if limit := uint64(10 + s.Attempts/10 + 1); s.Retries > limit {
		t.Errorf("%d retries in %d attempts exceed the budget (limit %d)", s.Retries, s.Attempts, limit)
	}
}

func TestAnUnreachableRedisFailsTheBudgetClosedAndLosesNoEvent(t *testing.T) {
	srv, _, retries := always503(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a port nobody listens on
	policy := writePolicy(t, "1.0", "1000000")
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-test", "--events", "20",
		"--policy", policy, "--redis", "redis://"+addr+"/0", "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.StopReasons["budget_unavailable"] != 20 || s.Retries != 0 || retries.Load() != 0 || s.RedisRoundTrips != 0 {
		t.Errorf("want every event budget_unavailable and no retry sent: %+v (endpoint saw %d retries)", s, retries.Load())
	}
}

func TestTheDeadlineStopsStartingEventsButFinishesStartedOnes(t *testing.T) {
	srv, _, _ := always503(t)
	policy := writePolicy(t, "1.0", "1000000")
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-test", "--events", "100000000",
		"--policy", policy, "--deadline-ms", "200", "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.Events == 0 || s.Events >= 100000000 || s.StopReasons["max_attempts_exhausted"] != s.Events {
		t.Errorf("want some events, each run to its stop: %+v", s)
	}
}

func TestBadArgumentsExitWith2AndSayWhy(t *testing.T) {
	policy := writePolicy(t, "1.0", "10")
	missingClass := filepath.Join(t.TempDir(), "p.json")
	_ = os.WriteFile(missingClass, []byte(`{"version":"v","classes":{"other":{"window_ms":1000,"backoff":{"base_ms":1,"factor":2.0,"cap_ms":5,"jitter":"full"}}}}`), 0o644)
	base := []string{"--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "1", "--policy", policy}
	cases := map[string]struct {
		args []string
		want string
	}{
		"no target":             {[]string{"--endpoint-id", "ep", "--events", "1", "--policy", policy}, "--target is required"},
		"bad events":            {append(append([]string{}, base...), "--events", "many"), "--events"},
		"zero concurrency":      {append(append([]string{}, base...), "--concurrency", "0"), "--concurrency"},
		"bad deadline":          {append(append([]string{}, base...), "--deadline-ms", "-5"), "--deadline-ms"},
		"bad redis":             {append(append([]string{}, base...), "--redis", "http://x"), "--redis"},
		"zero attempt deadline": {append(append([]string{}, base...), "--attempt-deadline-ms", "0"), "--attempt-deadline-ms"},
		"unknown flag":          {append(append([]string{}, base...), "--bogus", "1"), "bogus"},
		"a repeated flag":       {append(append([]string{}, base...), "--concurrency", "2", "--concurrency", "3"), "--concurrency given twice"},
		"a repeated switch":     {append(append([]string{}, base...), "--allow-private-targets", "--allow-private-targets"), "--allow-private-targets given twice"},
		"negative drain":        {append(append([]string{}, base...), "--drain-ms", "-1"), "--drain-ms"},
		"drain without a value": {append(append([]string{}, base...), "--drain-ms"), "drain-ms"},
		"bad target":            {[]string{"--target", "ftp://x", "--endpoint-id", "ep", "--events", "1", "--policy", policy}, "--target"},
		"missing file":          {[]string{"--target", "http://x/", "--endpoint-id", "ep", "--events", "1", "--policy", "/nonexistent"}, "--policy"},
		"no storm class":        {[]string{"--target", "http://x/", "--endpoint-id", "ep", "--events", "1", "--policy", missingClass}, "unknown_event_class"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := runReplica(t, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr, c.want)
			}
		})
	}
}

func TestALoopbackTargetIsRefusedWithoutTheAllowOptionAndNothingIsSent(t *testing.T) {
	srv, firsts, retries := always503(t)
	policy := writePolicy(t, "1.0", "10")
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-test", "--events", "5", "--policy", policy)
	if code != 0 || s.StopReasons["terminal_response"] != 5 || s.Retries != 0 {
		t.Fatalf("want 5 events stopped terminal_response, no retry: %+v (%s)", s, stderr)
	}
	if firsts.Load()+retries.Load() != 0 {
		t.Fatalf("the endpoint saw %d requests", firsts.Load()+retries.Load())
	}
	if !strings.Contains(stderr, "5 attempts refused") || !strings.Contains(stderr, "--allow-private-targets") {
		t.Fatalf("stderr does not report the refusals: %q", stderr)
	}
}

func TestARedisPasswordNeverAppearsInAnErrorMessage(t *testing.T) {
	policy := writePolicy(t, "1.0", "10")
	for _, flagName := range []string{"--redis", "--redis-cluster"} {
		for _, u := range []string{"http://user:hunter2@x/", "redis://user:hunter2@[::1/0", "redis://:hunter2@host:6379/notanumber"} {
			_, stderr, _ := runReplica(t, "--target", "http://x/", "--endpoint-id", "ep", "--events", "1",
				"--policy", policy, "--store-timeout-ms", "50", flagName, u)
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("%s %s: stderr %q shows the password", flagName, u, stderr)
			}
		}
	}
}

func TestHelpAndVersionPrintOnStdoutAndExit0WithoutLoadingTheArtifact(t *testing.T) {
	t.Setenv("RETRY_POLICY_ARTIFACT", filepath.Join(t.TempDir(), "missing.wasm")) // loading it would fail
	for _, args := range [][]string{{"--help"}, {"--version"}, {"replay", "--help"}} {
		want := map[string]string{"--help": "usage: replica", "--version": "webhook:retry-policy@"}[args[len(args)-1]]
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, &stdout, &stderr)
		if code != 0 || !strings.Contains(stdout.String(), want) || stderr.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0, %q on stdout and nothing on stderr", args, code, stdout.String(), stderr.String(), want)
		}
	}
}

// --help prints the GENERATED usage of the command it is given to, and
// --version answers `replay` too: neither loads the artifact.
func TestHelpIsTheGeneratedUsageOfEachCommand(t *testing.T) {
	t.Setenv(rp.EnvArtifact, filepath.Join(t.TempDir(), "missing.wasm")) // loading it would fail
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--events", "x", "--help"}, rp.ReplicaUsage},
		{[]string{"-h"}, rp.ReplicaUsage},
		{[]string{"replay", "--help"}, rp.ReplayUsage},
		{[]string{"replay", "--version"}, "replica (go host) for " + rp.ABI + "\n"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(context.Background(), c.args, &stdout, &stderr); code != 0 || stdout.String() != c.want || stderr.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, stdout.String(), stderr.String())
		}
	}
}

// An unknown --flag gets the component's line before the artifact loads;
// a language extra this replica does not honour, the component's refusal.
func TestAnUnknownFlagOrAnExtraThisReplicaLacksExits2NamingIt(t *testing.T) {
	policy := writePolicy(t, "1.0", "10")
	base := []string{"--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "1", "--policy", policy}
	t.Run("unknown, no artifact", func(t *testing.T) {
		t.Setenv(rp.EnvArtifact, filepath.Join(t.TempDir(), "missing.wasm"))
		for _, c := range []struct {
			args []string
			want string
		}{
			{append(append([]string{}, base...), "--no-such-flag=1"), "replica: unknown argument \"--no-such-flag=1\"\n"},
			{[]string{"replay", "--stor=<&>", "--policy", policy}, "replica replay: unknown argument \"--stor=<&>\"\n"},
		} {
			if _, stderr, code := runReplica(t, c.args...); code != 2 || stderr != c.want {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
			}
		}
	})
	for _, extra := range []string{"--class", "--connect-timeout-ms", "--watch-policy", "--no-skew-check"} {
		args := append(append([]string{}, base...), extra)
		if extra == "--class" || extra == "--connect-timeout-ms" {
			args = append(args, "5")
		}
		_, stderr, code := runReplica(t, args...)
		if want := "replica: " + extra + ": not supported by this language's replica (a language extra)\n"; code != 2 || stderr != want {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", extra, code, stderr, want)
		}
	}
}

func TestAnUnreadableOrRefusedArtifactIsASetupErrorThatExits2(t *testing.T) {
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "not.wasm")
	if err := os.WriteFile(notWasm, []byte("not a component"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.wasm"), dir, notWasm, "=" + notWasm} {
		artifact := []string{"--artifact", path}
		if p, ok := strings.CutPrefix(path, "="); ok {
			artifact = []string{"--artifact=" + p}
		}
		_, stderr, code := runReplica(t, append([]string{"--target", "http://127.0.0.1:1/", "--endpoint-id", "ep", "--events", "1"}, artifact...)...)
		if code != 2 || !strings.Contains(stderr, "policy artifact") {
			t.Errorf("--artifact %s: exit %d, stderr %q; want 2 naming the policy artifact", path, code, stderr)
		}
	}
}
