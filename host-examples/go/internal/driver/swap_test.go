package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// syncBuffer is a bytes.Buffer written by the replica and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// eventually polls cond every 20 ms for up to 20 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return string(body)
}

func TestARunningReplicaSwitchesArtifactsThroughTheFileWatchAndAccountsForEveryEvent(t *testing.T) {
	const events, before = 60, 20
	// the endpoint answers 503; first attempts after the 20th wait until
	// the test has seen the swap, so the swap happens mid-run
	gate := make(chan struct{})
	var openGate sync.Once
	var firsts, retries atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Attempt") == "1" {
			if firsts.Add(1) > before {
				<-gate
			}
		} else {
			retries.Add(1)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { openGate.Do(func() { close(gate) }) }) // before srv.Close, which waits for the handlers

	old := rp.EmbeddedArtifact()
	next := rp.AppendCustomSection(old, "test:replica-swap", []byte("a different artifact"))
	path := filepath.Join(t.TempDir(), "retry_policy.wasm")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main(context.Background(), []string{"--target", srv.URL, "--endpoint-id", "ep-swap",
			"--events", "60", "--concurrency", "4", "--policy", writePolicy(t, "1.0", "1000000"), "--allow-private-targets",
			"--artifact", path, "--watch-artifact-ms", "50", "--metrics-addr", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	metricsLine := regexp.MustCompile(`metrics on (http://\S+/metrics)`)
	eventually(t, "the metrics address on stderr", func() bool { return metricsLine.MatchString(stderr.String()) })
	metrics := metricsLine.FindStringSubmatch(stderr.String())[1]
	info := func(digest string) string {
		return `webhook_policy_info{abi="webhook:retry-policy@1.0.0",artifact_sha256="` + digest + `",document_version="replica-test"} 1`
	}
	if body := scrape(t, metrics); !strings.Contains(body, info(sha(old))) {
		t.Fatalf("/metrics before the swap:\n%s", body)
	}
	eventually(t, "20 first attempts", func() bool { return firsts.Load() >= before })

	tmp := path + ".new" // deploys replace the file by rename
	if err := os.WriteFile(tmp, next, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	var body string
	eventually(t, "the new sha256 on /metrics", func() bool {
		body = scrape(t, metrics)
		return strings.Contains(body, info(sha(next)))
	})
	if strings.Contains(body, sha(old)) {
		t.Fatalf("the old artifact's series is still on /metrics:\n%s", body)
	}
	// a broken file is refused, logged once, and the new artifact stays
	if err := os.WriteFile(tmp, next[:4096], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	refused := "replica: policy artifact refused path=" + path + " code=artifact_invalid: "
	eventually(t, "the refusal on stderr", func() bool { return strings.Contains(stderr.String(), refused) })
	time.Sleep(150 * time.Millisecond) // three more polls
	if n := strings.Count(stderr.String(), refused); n != 1 || !strings.Contains(scrape(t, metrics), info(sha(next))) {
		t.Fatalf("the refused file was logged %d times (want once), or /metrics moved:\n%s", n, stderr.String())
	}
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
	if err := json.Unmarshal(bytes.TrimSpace([]byte(stdout.String())), &s); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	checkNothingLost(t, s)
	if s.Events != events || s.FirstAttempts != events || firsts.Load() != events || s.Retries != retries.Load() ||
		s.StopReasons["max_attempts_exhausted"] != events {
		t.Fatalf("want %d events each run to max_attempts_exhausted, the endpoint agreeing: %+v (endpoint: %d first attempts, %d retries)",
			events, s, firsts.Load(), retries.Load())
	}
	for _, want := range []string{
		"replica: policy artifact loaded sha256=" + sha(old) + " abi=webhook:retry-policy@1.0.0 document_version=replica-test source=" + path,
		"replica: policy artifact swapped sha256=" + sha(old) + " -> " + sha(next),
		"replica: the delivery engine moved to the swapped-in artifact (",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

func TestWatchAndMetricsFlagsAreCheckedBeforeAnythingStarts(t *testing.T) {
	base := []string{"--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "1",
		"--policy", writePolicy(t, "1.0", "10"), "--artifact", artifactFile(t)}
	cases := map[string]struct {
		args []string
		want string
	}{
		"zero interval":       {[]string{"--watch-artifact-ms", "0"}, "--watch-artifact-ms"},
		"negative interval":   {[]string{"--watch-artifact-ms", "-5"}, "--watch-artifact-ms"},
		"interval not number": {[]string{"--watch-artifact-ms", "soon"}, "--watch-artifact-ms"},
		"old boolean watch":   {[]string{"--watch-artifact"}, "watch-artifact"},
		"port only":           {[]string{"--metrics-addr", "9100"}, "--metrics-addr"},
		"port not number":     {[]string{"--metrics-addr", "127.0.0.1:http"}, "--metrics-addr"},
		"port out of range":   {[]string{"--metrics-addr", "127.0.0.1:65536"}, "--metrics-addr"},
		"negative port":       {[]string{"--metrics-addr", "127.0.0.1:-1"}, "--metrics-addr"},
		"unbracketed ipv6":    {[]string{"--metrics-addr", "::1:0"}, "--metrics-addr"},
		"old metrics port":    {[]string{"--metrics-port", "0"}, "metrics-port"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			// the target is a closed port: exit 2 (not 0) means the flag was refused
			_, stderr, code := runReplica(t, append(append([]string{}, base...), c.args...)...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, stderr, c.want)
			}
		})
	}
	t.Run("no file to watch", func(t *testing.T) {
		t.Setenv(rp.EnvArtifact, "")
		_, stderr, code := runReplica(t, "--target", "http://127.0.0.1:9/", "--endpoint-id", "ep", "--events", "1",
			"--watch-artifact-ms", "100")
		if code != 2 || !strings.Contains(stderr, "--watch-artifact-ms needs --artifact PATH") {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

func TestParsedWatchIntervalAndMetricsAddress(t *testing.T) {
	artifact := artifactFile(t)
	for in, want := range map[string]string{":0": "127.0.0.1:0", "127.0.0.1:0": "127.0.0.1:0", "[::1]:9100": "[::1]:9100", "localhost:65535": "localhost:65535"} {
		_, cfg := configured(t, "--target", "http://x/", "--endpoint-id", "ep", "--events", "1",
			"--artifact", artifact, "--watch-artifact-ms", "75", "--metrics-addr", in)
		if cfg.WatchPath != artifact || cfg.WatchInterval != 75*time.Millisecond || cfg.MetricsAddr != want {
			t.Errorf("--metrics-addr %s: %+v; want %s", in, cfg, want)
		}
	}
}

// A swap that lands while every open event waits on its retry (no slot free
// to admit, no attempt out) must leave the new engine's timer armed: the run
// stalled there until its deadline before the loop re-armed after the swap.
func TestASwapWhileTheOnlyEventWaitsOnItsRetryLeavesTheRetryOnTime(t *testing.T) {
	var requests atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	policy := filepath.Join(t.TempDir(), "policy.json")
	doc := `{"version":"swap-wait","classes":{"storm":{"window_ms":20000,"hard_cap":2,` +
		`"backoff":{"base_ms":1500,"factor":1.0,"cap_ms":1500,"jitter":"none"},` +
		`"budget":{"ratio":1.0,"window_ms":20000,"min_sample":1,"sliding":true}}}}`
	if err := os.WriteFile(policy, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	old := rp.EmbeddedArtifact()
	path := filepath.Join(t.TempDir(), "retry_policy.wasm")
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main(ctx, []string{"--target", srv.URL, "--endpoint-id", "ep-swap-wait", "--events", "1",
			"--concurrency", "1", "--policy", policy, "--allow-private-targets", "--artifact", path,
			"--watch-artifact-ms", "50"}, &stdout, &stderr)
	}()
	eventually(t, "the first attempt", func() bool { return requests.Load() >= 1 })
	tmp := path + ".new"
	if err := os.WriteFile(tmp, rp.AppendCustomSection(old, "test:swap-wait", []byte("another")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the swap", func() bool {
		return strings.Contains(stderr.String(), "replica: the delivery engine moved to the swapped-in artifact (")
	})
	if n := requests.Load(); n != 1 {
		t.Fatalf("the retry (1.5 s after the first attempt) came before the swap finished: %d requests; the test needs the swap first", n)
	}
	select {
	case c := <-code:
		if c != 0 || requests.Load() != 2 || !strings.Contains(stdout.String(), `"delivered":1`) {
			t.Fatalf("exit %d, %d requests (want 2), stdout %s\nstderr %s", c, requests.Load(), stdout.String(), stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the retry never came after the swap (%d requests): the new engine's timer was not armed\n%s",
			requests.Load(), stderr.String())
	}
}
