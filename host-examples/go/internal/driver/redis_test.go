package driver

import (
	"context"
	"crypto/tls"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/testpki"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/testredis"
)

// redisServer runs redis-server for one test (testredis.Start).
func redisServer(t *testing.T, tlsConfig *tls.Config, args func(port int) []string) (int, *redis.Client) {
	t.Helper()
	return testredis.Start(t, tlsConfig, args)
}

func plainPort(port int) []string { return testredis.Plain(port) }

// evalCalls is how many EVALSHA and EVAL commands Redis ran.
func evalCalls(t *testing.T, admin *redis.Client) uint64 {
	t.Helper()
	info, err := admin.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, line := range strings.Split(info, "\n") {
		if strings.HasPrefix(line, "cmdstat_evalsha:") || strings.HasPrefix(line, "cmdstat_eval:") {
			calls := strings.TrimPrefix(strings.Split(strings.SplitN(line, ":", 2)[1], ",")[0], "calls=")
			c, _ := strconv.ParseUint(calls, 10, 64)
			n += c
		}
	}
	return n
}

func TestAnACLUserCountsInRedisWithOneStoreCommandPerAttemptAndAWrongPasswordFailsClosed(t *testing.T) {
	port, admin := redisServer(t, nil, plainPort)
	if err := admin.Do(context.Background(), "ACL", "SETUSER", "budget", "on", ">s3cret", "~*", "&*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	srv, _, retries := always503(t)
	policy := writePolicy(t, "1.0", "1000000")
	addr := "127.0.0.1:" + strconv.Itoa(port)
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-acl", "--events", "10",
		"--policy", policy, "--redis", "redis://budget:s3cret@"+addr+"/0", "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.StoreErrors != 0 || s.StopReasons["max_attempts_exhausted"] != 10 || s.Attempts != 30 {
		t.Errorf("want 10 events of 3 attempts counted in Redis, no store error: %+v", s)
	}
	// each step makes at most one store call (the last attempt's step
	// stops at the hard cap without one): 2 per event here
	if calls := evalCalls(t, admin); s.RedisRoundTrips != 20 || calls != s.RedisRoundTrips {
		t.Errorf("%d attempts, %d round trips, Redis ran %d EVALSHA/EVAL: want 20 of each (one per step before the cap)",
			s.Attempts, s.RedisRoundTrips, calls)
	}
	before := retries.Load()
	s, stderr, code = runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-acl", "--events", "10",
		"--policy", policy, "--redis", "redis://budget:wrong@"+addr+"/0", "--allow-private-targets")
	if code != 0 {
		t.Fatalf("wrong password: exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.StopReasons["budget_unavailable"] != 10 || s.Retries != 0 || retries.Load() != before || s.StoreErrors == 0 {
		t.Errorf("wrong password: want every event budget_unavailable, no retry: %+v", s)
	}
	if strings.Contains(stderr, "wrong@") || strings.Contains(stderr, ":wrong") {
		t.Errorf("stderr shows the password: %q", stderr)
	}
}

func TestARedissStoreIsTrustedThroughTheCAFileAndFailsClosedWithoutIt(t *testing.T) {
	pki := testpki.New(t)
	roots, err := safehttp.TrustWithCAFile(pki.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	port, admin := redisServer(t, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}, func(port int) []string {
		return []string{"--port", "0", "--tls-port", strconv.Itoa(port), "--tls-cert-file", pki.LoopbackCert,
			"--tls-key-file", pki.LoopbackKey, "--tls-ca-cert-file", pki.CAFile, "--tls-auth-clients", "no"}
	})
	srv, _, _ := always503(t)
	policy := writePolicy(t, "1.0", "1000000")
	url := "rediss://127.0.0.1:" + strconv.Itoa(port) + "/0"
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-tls", "--events", "10",
		"--policy", policy, "--redis", url, "--ca-file", pki.CAFile, "--allow-private-targets")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.StoreErrors != 0 || s.StopReasons["max_attempts_exhausted"] != 10 || s.RedisRoundTrips != 20 {
		t.Errorf("with the CA: want every attempt counted over TLS: %+v", s)
	}
	if calls := evalCalls(t, admin); calls != s.RedisRoundTrips {
		t.Errorf("Redis ran %d EVALSHA/EVAL for %d round trips", calls, s.RedisRoundTrips)
	}
	s, stderr, code = runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-tls", "--events", "10",
		"--policy", policy, "--redis", url, "--allow-private-targets")
	if code != 0 {
		t.Fatalf("without the CA: exit %d: %s", code, stderr)
	}
	checkNothingLost(t, s)
	if s.StopReasons["budget_unavailable"] != 10 || s.Retries != 0 || s.StoreErrors == 0 {
		t.Errorf("without the CA: want every event budget_unavailable, no retry: %+v", s)
	}
}
