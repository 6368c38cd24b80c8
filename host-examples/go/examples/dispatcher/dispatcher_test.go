package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/journal"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Policy classes for the tests: "notification" is the design note's
// 15-minute promise (13 attempts); "tight" has a small budget sample so an
// endpoint that fails for everyone exhausts it.
const testDocument = `{
  "version": "test-1",
  "classes": {
    "notification": {"window_ms": 900000,
      "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"}},
    "tight": {"window_ms": 900000,
      "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"},
      "budget": {"ratio": 0.1, "window_ms": 3600000, "min_sample": 10, "sliding": false}}
  }
}`

const t0 = uint64(1_800_000_000_000)

type harness struct {
	t         *testing.T
	clock     *FakeClock
	engine    *rp.Engine
	store     *FileStore
	storeDir  string
	metrics   *Metrics
	d         *Dispatcher
	endpoints *Endpoints
	configure func(*Config) // changes the dispatcher's config at start (nil: none)
}

func newHarness(t *testing.T, retryAfter string) *harness {
	t.Helper()
	h := &harness{t: t, clock: NewFakeClock(t0), storeDir: t.TempDir()}
	var err error
	if h.endpoints, err = StartEndpoints(retryAfter); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.endpoints.Close)
	h.start()
	return h
}

// start (re)creates the engine and dispatcher over the same store, as a
// restarted process would.
func (h *harness) start() {
	ctx := context.Background()
	var err error
	if h.engine, err = rp.New(ctx, rp.WithClock(h.clock)); err != nil {
		h.t.Fatal(err)
	}
	e := h.engine
	h.t.Cleanup(func() { _ = e.Close(ctx) })
	doc, err := h.engine.LoadDocument(ctx, []byte(testDocument))
	if err != nil {
		h.t.Fatal(err)
	}
	if h.store != nil {
		_ = h.store.Close() // a restart: the old process's lock goes with it
	}
	if h.store, err = OpenFileStore(h.storeDir, journal.ComponentHasher(ctx, h.engine)); err != nil {
		h.t.Fatal(err)
	}
	st := h.store
	h.t.Cleanup(func() { _ = st.Close() })
	h.metrics = NewMetrics()
	cfg := Config{Engine: h.engine, Budget: rp.NewMemoryStore(h.engine), Document: doc, Store: h.store, Metrics: h.metrics,
		AttemptDeadline: 2 * time.Second, AllowPrivateTargets: true, Clock: h.clock, Sleeper: h.clock, Workers: 1}
	if h.configure != nil {
		h.configure(&cfg)
	}
	if h.d, err = NewDispatcher(cfg); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) enqueue(id, endpointID, url, class string) *Record {
	h.t.Helper()
	r, err := h.d.Enqueue(context.Background(), Event{ID: id, EndpointID: endpointID, URL: url, Class: class, Payload: []byte(`{}`)})
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func (h *harness) run() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.d.RunUntilIdle(ctx); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) deadLetters() map[string]DeadLetterRecord {
	h.t.Helper()
	dls, err := h.store.DeadLetters()
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]DeadLetterRecord{}
	for _, d := range dls {
		out[d.EventID] = d
	}
	return out
}

// scrape reads webhook_deadletter_total by stop_reason from /metrics.
func (h *harness) scrape() map[string]float64 {
	h.t.Helper()
	srv := httptest.NewServer(h.metrics.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		const prefix = `webhook_deadletter_total{stop_reason="`
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		reason, value, _ := strings.Cut(strings.TrimPrefix(line, prefix), `"} `)
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			h.t.Fatalf("metric line %q", line)
		}
		out[reason] = v
	}
	return out
}

func TestAHealthyEndpointIsDeliveredOnTheFirstAttempt(t *testing.T) {
	h := newHarness(t, "")
	h.enqueue("evt_ok", "ep_ok", h.endpoints.Healthy.URL, "notification")
	h.run()
	r, err := h.store.Load("evt_ok")
	if err != nil {
		t.Fatal(err)
	}
	if r.State != StateDelivered || r.Attempts != 1 || h.endpoints.HealthyHits.Load() != 1 {
		t.Fatalf("record %+v, hits %d", r, h.endpoints.HealthyHits.Load())
	}
	if len(h.deadLetters()) != 0 {
		t.Fatal("a delivered event was dead-lettered")
	}
}

func TestA410IsDeadLetteredAsTerminalAndDisablesTheEndpoint(t *testing.T) {
	h := newHarness(t, "")
	h.enqueue("evt_gone", "ep_gone", h.endpoints.Gone.URL, "notification")
	h.run()
	dl, ok := h.deadLetters()["evt_gone"]
	if !ok || dl.StopReason != rp.StopReasonTerminalResponse || !dl.DisableEndpoint || dl.Attempts != 1 || dl.LastOutcome != "410" {
		t.Fatalf("dead letter %+v", dl)
	}
	if got := h.scrape(); got["terminal_response"] != 1 || got["retry_window_elapsed"] != 0 {
		t.Fatalf("metrics %v", got)
	}
	_, err := h.d.Enqueue(context.Background(), Event{ID: "evt_next", EndpointID: "ep_gone", URL: h.endpoints.Gone.URL, Class: "notification"})
	if !errors.Is(err, ErrEndpointDisabled) {
		t.Fatalf("a disabled endpoint must refuse new events, got %v", err)
	}
}

func TestAnAlways503EndpointIsRetriedOnTheAdmittedScheduleThenDeadLettered(t *testing.T) {
	h := newHarness(t, "")
	r := h.enqueue("evt_503", "ep_503", h.endpoints.Unavailable.URL, "notification")
	if r.Admission.Schedule.MaxAttempts != 13 {
		t.Fatalf("the design note's 15-minute window admits 13 attempts, got %d", r.Admission.Schedule.MaxAttempts)
	}
	start := time.Now()
	h.run()
	if wall := time.Since(start); wall > 10*time.Second {
		t.Fatalf("15 minutes of retries took %s of wall time; the fake clock should make it quick", wall)
	}
	dl := h.deadLetters()["evt_503"]
	switch dl.StopReason {
	case rp.StopReasonMaxAttemptsExhausted:
		if dl.Attempts != 13 {
			t.Fatalf("max_attempts_exhausted after %d attempts, admitted 13", dl.Attempts)
		}
	case rp.StopReasonRetryWindowElapsed:
	default:
		t.Fatalf("dead letter %+v: want max_attempts_exhausted or retry_window_elapsed", dl)
	}
	if dl.ElapsedMs > 900_000 || int64(dl.Attempts) != h.endpoints.UnavailableHits.Load() {
		t.Fatalf("dead letter %+v after %d requests: no attempt may start past the 900 s window", dl, h.endpoints.UnavailableHits.Load())
	}
	if got := h.scrape(); got[dl.StopReason.String()] != 1 {
		t.Fatalf("metrics %v", got)
	}
}

func TestTheAdmittedScheduleAndFirstAttemptInstantArePersistedWithTheEvent(t *testing.T) {
	h := newHarness(t, "")
	h.enqueue("evt_p", "ep_503", h.endpoints.Unavailable.URL, "notification")
	raw, err := os.ReadFile(h.store.Path())
	if err != nil || strings.Count(string(raw), "\n") != 2 {
		t.Fatalf("the header and one event record expected: %q %v", raw, err)
	}
	for _, want := range []string{`"type":"header"`, `"first_attempted_at_ms":` + strconv.FormatUint(t0, 10), `"deadline_ms":` + strconv.FormatUint(t0+900_000, 10),
		`"max_attempts":13`, `"offsets_ms":[`, `"policy_hash":"`, `"policy_version":"test-1"`, `"window_ms":900000`, `"body_b64":"e30="`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the persisted record lacks %s:\n%s", want, raw)
		}
	}
}

func TestARestartedDispatcherResumesFromThePersistedFirstAttemptAndStopsWithoutAnotherAttempt(t *testing.T) {
	h := newHarness(t, "")
	h.enqueue("evt_r", "ep_503", h.endpoints.Unavailable.URL, "notification")
	if _, _, err := h.d.Step(context.Background()); err != nil { // attempt 1: 503, retry scheduled
		t.Fatal(err)
	}
	r, _ := h.store.Load("evt_r")
	if r.State != StatePending || r.Attempts != 1 {
		t.Fatalf("after one attempt: %+v", r)
	}
	// The process restarts 20 minutes later: a new engine and dispatcher,
	// the same store. The window is measured from the persisted instant.
	h.clock.Advance(20 * 60 * 1000)
	h.start()
	h.run()
	dl := h.deadLetters()["evt_r"]
	// resume judges the reloaded event: the window elapsed, so no attempt is made
	if dl.StopReason != rp.StopReasonRetryWindowElapsed || dl.Attempts != 1 || dl.ElapsedMs != 20*60*1000 {
		t.Fatalf("want retry_window_elapsed after 1 attempt and 1200000 ms, got %+v", dl)
	}
	if n := h.endpoints.UnavailableHits.Load(); n != 1 {
		t.Fatalf("the 503 endpoint was hit %d times, want 1", n)
	}
}

func TestAnEndpointThatFailsForEveryoneExhaustsTheRetryBudget(t *testing.T) {
	h := newHarness(t, "")
	for i := 0; i < 12; i++ {
		h.enqueue("evt_b"+strconv.Itoa(i), "ep_503", h.endpoints.Unavailable.URL, "tight")
	}
	h.run()
	dls := h.deadLetters()
	if len(dls) != 12 {
		t.Fatalf("%d dead letters, want 12", len(dls))
	}
	metrics := h.scrape()
	if metrics["retry_budget_exhausted"] == 0 {
		t.Fatalf("no event stopped on the budget: %v", metrics)
	}
	// 12 events, a 10% budget: far fewer requests than 12 x 13 attempts.
	if hits := h.endpoints.UnavailableHits.Load(); hits > 40 {
		t.Fatalf("%d requests to a dead endpoint: the budget did not hold", hits)
	}
}

func TestAnUnreachableEndpointIsAConnectErrorThatIsRetried(t *testing.T) {
	h := newHarness(t, "")
	h.enqueue("evt_c", "ep_closed", h.endpoints.Unreachable, "notification")
	if _, _, err := h.d.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, _ := h.store.Load("evt_c")
	if r.State != StatePending || r.LastOutcome != string(httpoutcome.ConnectError) || r.NextAttemptAtMs <= t0 {
		t.Fatalf("want a scheduled retry after connect_error, got %+v", r)
	}
}

func TestRetryAfterIsHonouredAsTheLeastDelay(t *testing.T) {
	h := newHarness(t, "120") // seconds
	h.enqueue("evt_ra", "ep_503", h.endpoints.Unavailable.URL, "notification")
	if _, _, err := h.d.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, _ := h.store.Load("evt_ra")
	if r.NextAttemptAtMs < t0+120_000 || r.LastOutcome != "503" {
		t.Fatalf("want the next attempt at least 120 s later, got %+v", r)
	}
}

func TestRetryAfterIsReadByTheComponentFromSecondsAndHTTPDates(t *testing.T) {
	engine, err := rp.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close(context.Background())
	now := uint64(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).UnixMilli())
	for _, c := range []struct {
		in   string
		ms   uint64
		okay bool
	}{
		{"30", 30_000, true},
		{" 0 ", 0, true},
		{"Mon, 30 Nov 2026 12:01:00 GMT", 60_000, true},
		{"Mon, 30 Nov 2026 11:00:00 GMT", 0, true}, // in the past: no wait
		{"soon", 0, false},
		{"-5", 0, false},
		{"", 0, false},
		{"²", 0, false},
		{"99999999999999999999", 1<<53 - 1, true},
	} {
		o, err := httpoutcome.Outcome(context.Background(), engine, 503, http.Header{"Retry-After": {c.in}}, now)
		if err != nil || o.Response == nil || (o.Response.RetryAfterMs != nil) != c.okay || (c.okay && *o.Response.RetryAfterMs != c.ms) {
			t.Errorf("Retry-After %q: %+v %v; want %d, %v", c.in, o.Response, err, c.ms, c.okay)
		}
	}
	o, _ := httpoutcome.Outcome(context.Background(), engine, 999, nil, now)
	if o.TransportError == nil || *o.TransportError != "unexpected_status" {
		t.Errorf("status 999: %+v, want the transport kind unexpected_status", o)
	}
}

func TestAFailingBudgetStoreNeverStopsAFirstAttemptAndDisagreementsAreCounted(t *testing.T) {
	h := newHarness(t, "")
	failing := rp.BudgetStoreFunc(func(context.Context, rp.StoreRequest, rp.Budget, uint64) (rp.Reservation, error) {
		return rp.Reservation{}, errors.New("store down")
	})
	h.d.cfg.Budget = failing
	ctx := context.Background()
	if _, err := h.d.Enqueue(ctx, Event{ID: "evt_ok", EndpointID: "ep_ok", URL: h.endpoints.Healthy.URL + "/hook", Class: "notification", Payload: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := h.d.RunUntilIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if r, err := h.store.Load("evt_ok"); err != nil || r.State != StateDelivered {
		t.Fatalf("a first attempt whose record failed: %+v %v, want delivered", r, err)
	}
	// a store that refuses on counts the policy would allow
	h.d.cfg.Budget = rp.BudgetStoreFunc(func(context.Context, rp.StoreRequest, rp.Budget, uint64) (rp.Reservation, error) {
		return rp.Reservation{Reserved: false}, nil
	})
	if _, err := h.d.Enqueue(ctx, Event{ID: "evt_503", EndpointID: "ep_503", URL: h.endpoints.Unavailable.URL + "/hook", Class: "notification", Payload: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := h.d.RunUntilIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.metrics.Value("webhook_budget_disagreements_total"); got != 1 {
		t.Fatalf("webhook_budget_disagreements_total = %v, want 1", got)
	}
}

func TestTheExampleRunsEndToEndAndPrintsDeadLettersAndMetrics(t *testing.T) {
	var out, log strings.Builder
	if err := run(options{class: "demo", perEndpoint: 1, storeDir: t.TempDir(), allowPrivate: true, metricsAddr: "127.0.0.1:0", log: &log}, &out); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(rp.EmbeddedArtifact())
	digest := hex.EncodeToString(sum[:])
	if want := "dispatcher: policy artifact loaded sha256=" + digest + " abi=webhook:retry-policy@0.3.0"; !strings.Contains(log.String(), want) {
		t.Errorf("the log lacks %q:\n%s", want, log.String())
	}
	info := `webhook_policy_info{abi="webhook:retry-policy@0.3.0",artifact_sha256="` + digest + `",document_version="`
	for _, want := range []string{"ep_gone", "terminal_response", `webhook_deadletter_total{stop_reason="terminal_response"} 1`, "webhook_delivered_total 1", info} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
