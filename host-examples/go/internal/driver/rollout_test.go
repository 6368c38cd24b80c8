package driver

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/testpki"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/testredis"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/testrollout"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestRolloutFlagsAreCheckedBeforeAnythingStarts(t *testing.T) {
	dir := t.TempDir()
	trust := filepath.Join(dir, "team.pub")
	_, pem := testrollout.SigningKey(t)
	p256 := filepath.Join(dir, "p256.pub")
	if os.WriteFile(trust, pem, 0o644) != nil || os.WriteFile(p256, []byte("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5/OdFux6o2d8VCNWgvkkz+x4xLPl\n3GfOZExoQwORDYE/BoNWh2QjGklKJT61b4vKM1kfg8FHhnZhhth0Y3NRiA==\n-----END PUBLIC KEY-----\n"), 0o644) != nil {
		t.Fatal("cannot write the trust files")
	}
	fifo := filepath.Join(dir, "fifo.pub")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "1", "--policy", writePolicy(t, "1.0", "10")}
	follow := []string{"--artifact-from-redis", "--redis", "redis://127.0.0.1:9", "--trust-key", trust}
	cases := map[string]struct {
		args []string
		want string
	}{
		"no store":                {[]string{"--artifact-from-redis", "--trust-key", trust}, "--artifact-from-redis needs --redis or --redis-cluster"},
		"no trust key":            {[]string{"--artifact-from-redis", "--redis", "redis://127.0.0.1:9"}, "--artifact-from-redis needs --trust-key FILE"},
		"a file watch too":        {append([]string{"--artifact", artifactFile(t), "--watch-artifact-ms", "100"}, follow...), "--artifact-from-redis and --watch-artifact-ms are exclusive"},
		"a trust key alone":       {[]string{"--trust-key", trust}, "--trust-key is only for --artifact-from-redis"},
		"an unreadable trust key": {[]string{"--artifact-from-redis", "--redis", "redis://127.0.0.1:9", "--trust-key", dir + "/none.pub"}, "--trust-key: rollout_trust_invalid: cannot read the trust file " + dir + "/none.pub: no such file or directory"},
		"a P-256 trust key":       {[]string{"--artifact-from-redis", "--redis", "redis://127.0.0.1:9", "--trust-key", p256}, "--trust-key: rollout_trust_invalid: " + p256 + ": "},
		"a fifo for a trust key":  {[]string{"--artifact-from-redis", "--redis", "redis://127.0.0.1:9", "--trust-key", fifo}, "--trust-key: rollout_trust_invalid: cannot read the trust file " + fifo + ": not a regular file (a fifo)"},
		"an empty replica id":     {append([]string{"--replica-id", ""}, follow...), "--replica-id: must not be empty"},
		"a 201-byte replica id":   {append([]string{"--replica-id", strings.Repeat("é", 100) + "x"}, follow...), "--replica-id: expected 1 to 200 bytes of UTF-8, got 201"},
		"a replica id not UTF-8":  {append([]string{"--replica-id", "go-\xff"}, follow...), `argument "go-\xff" is not UTF-8`},
		"a poll of 49 ms":         {append([]string{"--rollout-poll-ms", "49"}, follow...), "--rollout-poll-ms: expected a whole number from 50 to 60000, got \"49\""},
		"a poll of 60001 ms":      {append([]string{"--rollout-poll-ms", "60001"}, follow...), "--rollout-poll-ms"},
		"a poll that is no count": {append([]string{"--rollout-poll-ms", "soon"}, follow...), "--rollout-poll-ms"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := runReplica(t, append(append([]string{}, base...), c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr, c.want)
			}
			if strings.Contains(c.want, "rollout_trust_invalid") && strings.Count(stderr, "\n") != 1 {
				t.Errorf("a refused trust file is one line on stderr: %q", stderr)
			}
		})
	}
	_, cfg := configured(t, append(append([]string{}, base...), follow...)...)
	if cfg.Rollout.Poll != 500*time.Millisecond || !strings.HasPrefix(cfg.Rollout.ReplicaID, "go-") ||
		!strings.HasSuffix(cfg.Rollout.ReplicaID, "-"+strconv.Itoa(os.Getpid())) || string(cfg.Rollout.TrustPEM) != string(pem) {
		t.Fatalf("the defaults: %+v", cfg.Rollout)
	}
}

// ok200 answers every attempt 200.
func ok200(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(srv.Close)
	return srv
}

func TestReplicasStartingDuringACanaryRunTheirShareFromTheirFirstEvent(t *testing.T) {
	f := testrollout.New(t)
	stable := rp.EmbeddedArtifact()
	f.Publish(f.Store(stable, nil), nil)
	canary := f.Store(testrollout.Variant("canary"), nil)
	f.Publish(testrollout.Digest(stable), &testrollout.Canary{SHA256: canary, Percent: 50})
	srv := ok200(t)
	for id, want := range map[string]string{"go-a": canary, "go-b": testrollout.Digest(stable)} { // buckets 43 and 92
		t.Run(id, func(t *testing.T) {
			s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-canary", "--events", "3",
				"--policy", writePolicy(t, "1.0", "10"), "--allow-private-targets", "--redis", f.URL(),
				"--artifact-from-redis", "--trust-key", f.TrustFile(), "--replica-id", id)
			if code != 0 || s.StopReasons["delivered"] != 3 {
				t.Fatalf("exit %d, %+v: %s", code, s, stderr)
			}
			if !strings.Contains(stderr, "replica: policy artifact loaded sha256="+want+" ") || strings.Contains(stderr, "swapped") {
				t.Fatalf("%s does not start on %s:\n%s", id, want, stderr)
			}
			if st, ok := f.Status(id); !ok || st.ReplicaID != id || st.Language != "go" {
				t.Fatalf("the status record of %s: %+v", id, st)
			}
		})
	}
}

func TestARunningReplicaRefusesABadPublishOnceThenFollowsAGoodOneOnMetrics(t *testing.T) {
	f := testrollout.New(t)
	const events, before = 40, 10
	gate := make(chan struct{})
	var openGate sync.Once
	var firsts atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Attempt") == "1" && firsts.Add(1) > before {
			<-gate
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { openGate.Do(func() { close(gate) }) })
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main(context.Background(), []string{"--target", srv.URL, "--endpoint-id", "ep-follow",
			"--events", strconv.Itoa(events), "--concurrency", "4", "--policy", writePolicy(t, "1.0", "1000000"), "--allow-private-targets",
			"--redis", f.URL(), "--artifact-from-redis", "--trust-key", f.TrustFile(), "--replica-id", "go-b",
			"--rollout-poll-ms", "50", "--metrics-addr", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	metricsLine := regexp.MustCompile(`metrics on (http://\S+/metrics)`)
	eventually(t, "the metrics address on stderr", func() bool { return metricsLine.MatchString(stderr.String()) })
	metrics := metricsLine.FindStringSubmatch(stderr.String())[1]
	eventually(t, "10 first attempts", func() bool { return firsts.Load() >= before })
	local := testrollout.Digest(rp.EmbeddedArtifact())

	bad := f.Store(testrollout.Variant("unknown key"), map[string]string{"key_id": "0123456789abcdef"})
	f.Publish(bad, nil)
	refused := "replica: policy artifact refused source=redis sha256=" + bad + " code=rollout_key_unknown: "
	eventually(t, "the refusal on stderr", func() bool { return strings.Contains(stderr.String(), refused) })
	time.Sleep(200 * time.Millisecond) // four more ticks
	if n := strings.Count(stderr.String(), refused); n != 1 || !strings.Contains(stderr.String(), "; keeping sha256="+local+"\n") {
		t.Fatalf("the refusal was logged %d times (want once, keeping %s):\n%s", n, local, stderr.String())
	}
	if body := scrape(t, metrics); !strings.Contains(body, `webhook_policy_reloads_total{result="refused"} 1`) {
		t.Fatalf("/metrics after the refusal:\n%s", body)
	}

	next := f.Store(testrollout.Variant("v2"), nil)
	f.Publish(next, nil)
	info := `webhook_policy_info{abi="webhook:retry-policy@1.0.0",artifact_sha256="` + next + `",document_version="replica-test"} 1`
	eventually(t, "the new sha256 on /metrics", func() bool { return strings.Contains(scrape(t, metrics), info) })
	eventually(t, "the status record of the new artifact", func() bool {
		s, ok := f.Status("go-b")
		return ok && s.ArtifactSHA256 == next && s.Epoch == 2 && s.Refusal != nil && s.Refusal.Code == "rollout_key_unknown" &&
			s.DocumentVersion == "replica-test" // --policy's, as webhook_policy_info shows
	})
	openGate.Do(func() { close(gate) })
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d: %s", c, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the replica did not finish")
	}
	var s Summary
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout.String())), &s); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	checkNothingLost(t, s)
	if s.Events != events || s.StopReasons["max_attempts_exhausted"] != events {
		t.Fatalf("want %d events each run to max_attempts_exhausted: %+v", events, s)
	}
	for _, want := range []string{
		"replica: policy artifact swapped sha256=" + local + " -> " + next + " abi=webhook:retry-policy@1.0.0 document_version=replica-test source=redis",
		"replica: the delivery engine moved to the swapped-in artifact (",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

func TestAReplicaWhoseRedisIsDownStartsOnItsLocalArtifactAndKeepsDelivering(t *testing.T) {
	port := testredis.FreePort(t)
	_, pem := testrollout.SigningKey(t)
	trust := filepath.Join(t.TempDir(), "team.pub")
	if err := os.WriteFile(trust, pem, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := ok200(t)
	s, stderr, code := runReplica(t, "--target", srv.URL, "--endpoint-id", "ep-down", "--events", "20", "--concurrency", "2",
		"--policy", writePolicy(t, "1.0", "10"), "--allow-private-targets", "--redis", "redis://127.0.0.1:"+strconv.Itoa(port),
		"--artifact-from-redis", "--trust-key", trust, "--rollout-poll-ms", "50")
	if code != 0 || s.StopReasons["delivered"] != 20 {
		t.Fatalf("exit %d, %+v: %s", code, s, stderr)
	}
	local := testrollout.Digest(rp.EmbeddedArtifact())
	if !strings.Contains(stderr, "replica: policy artifact loaded sha256="+local+" ") ||
		strings.Count(stderr, "replica: rollout: store unreachable, keeping sha256="+local+", retrying every tick: ") != 1 {
		t.Fatalf("want the local artifact and one store failure logged:\n%s", stderr)
	}
}

// followsOnce runs a replica with extra store flags and checks it starts
// on the artifact f published.
func followsOnce(t *testing.T, f *testrollout.Fleet, store ...string) {
	t.Helper()
	sha := f.Store(testrollout.Variant("through "+store[0]), nil)
	f.Publish(sha, nil)
	srv := ok200(t)
	args := append([]string{"--target", srv.URL, "--endpoint-id", "ep-store", "--events", "2", "--policy", writePolicy(t, "1.0", "10"),
		"--allow-private-targets", "--artifact-from-redis", "--trust-key", f.TrustFile(), "--replica-id", "go-a"}, store...)
	s, stderr, code := runReplica(t, args...)
	if code != 0 || s.StopReasons["delivered"] != 2 || !strings.Contains(stderr, "replica: policy artifact loaded sha256="+sha+" ") {
		t.Fatalf("exit %d, %+v; want the published %s:\n%s", code, s, sha, stderr)
	}
	if st, ok := f.Status("go-a"); !ok || st.Epoch != 0 {
		t.Fatalf("the status record written by the first tick: %+v", st)
	}
}

func TestTheFollowerUsesTheReplicasOwnStoreConnectionClusterTLSAndACL(t *testing.T) {
	t.Run("a Redis Cluster", func(t *testing.T) {
		dir := t.TempDir()
		port, admin := redisServer(t, nil, func(port int) []string {
			return []string{"--port", strconv.Itoa(port), "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf")}
		})
		if err := admin.Do(context.Background(), "CLUSTER", "ADDSLOTSRANGE", "0", "16383").Err(); err != nil {
			t.Fatal(err)
		}
		eventually(t, "cluster_state:ok", func() bool {
			info, _ := admin.ClusterInfo(context.Background()).Result()
			return strings.Contains(info, "cluster_state:ok")
		})
		followsOnce(t, testrollout.On(t, port, admin), "--redis-cluster", "redis://127.0.0.1:"+strconv.Itoa(port))
	})
	t.Run("rediss with an ACL user", func(t *testing.T) {
		pki := testpki.New(t)
		roots, err := safehttp.TrustWithCAFile(pki.CAFile)
		if err != nil {
			t.Fatal(err)
		}
		port, admin := redisServer(t, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"}, func(port int) []string {
			return []string{"--port", "0", "--tls-port", strconv.Itoa(port), "--tls-cert-file", pki.LoopbackCert,
				"--tls-key-file", pki.LoopbackKey, "--tls-ca-cert-file", pki.CAFile, "--tls-auth-clients", "no"}
		})
		if err := admin.Do(context.Background(), "ACL", "SETUSER", "fleet", "on", ">s3cret", "~*", "&*", "+@all").Err(); err != nil {
			t.Fatal(err)
		}
		followsOnce(t, testrollout.On(t, port, admin), "--redis", "rediss://fleet:s3cret@127.0.0.1:"+strconv.Itoa(port)+"/0", "--ca-file", pki.CAFile)
	})
}
