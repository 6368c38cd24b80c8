package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Format-3 classes for the tests: "guarded" has a circuit that opens on 2
// failures of 2 and a long cache (the view stays fresh between steps),
// "paced" has no circuit and a tight budget, "short" a 10 s window.
const healthDocument = `{
  "version": "health-1",
  "classes": {
    "guarded": {"window_ms": 900000,
      "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"},
      "budget": {"ratio": 0.5, "window_ms": 60000, "min_sample": 100, "sliding": false},
      "health": {"circuit": {"failure_ratio": 0.5, "min_sample": 2, "cooldown_ms": 5000, "cooldown_max_ms": 20000,
        "probes": 1, "probe_interval_ms": 1000}, "release": {"multiple": 1.0, "floor_per_s": 1.0}, "cache_ms": 60000}},
    "paced": {"window_ms": 900000,
      "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"},
      "budget": {"ratio": 0.01, "window_ms": 60000, "min_sample": 1, "sliding": false},
      "health": {"circuit": null, "cache_ms": 60000}},
    "short": {"window_ms": 10000,
      "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 5000, "jitter": "full"},
      "health": {"circuit": null, "cache_ms": 60000}},
    "plain": {"window_ms": 900000,
      "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"}}
  }
}`

// useHealth makes h's dispatcher admit under healthDocument with one
// in-memory store for both kinds of call.
func useHealth(h *harness) {
	h.configure = func(cfg *Config) {
		doc, err := cfg.Engine.LoadHealthDocument(context.Background(), []byte(healthDocument))
		if err != nil {
			h.t.Fatal(err)
		}
		mem := rp.NewMemoryCallStore(cfg.Engine)
		cfg.HealthDocument, cfg.Budget, cfg.Calls = &doc, mem.Budget(), mem
	}
	h.start()
}

// receiver answers with answer(now) and records each request's fake instant.
type receiver struct {
	*httptest.Server
	mu    sync.Mutex
	times []uint64
}

func newReceiver(t *testing.T, clock *FakeClock, answer func(now uint64, w http.ResponseWriter)) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		now := clock.NowMs()
		r.mu.Lock()
		r.times = append(r.times, now)
		r.mu.Unlock()
		answer(now, w)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) hits() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]uint64(nil), r.times...)
}

func (h *harness) step() {
	h.t.Helper()
	if _, _, err := h.d.Step(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) state(id string) *Record {
	h.t.Helper()
	r, err := h.store.Load(id)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func (h *harness) metric(family string, labels ...string) float64 {
	return h.metrics.Value(family, labels...)
}

func TestA429WithRetryAfterPausesTheEndpointAndTheHeldEventsAreDeliveredAfterIt(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	until := t0 + 60_000
	rcv := newReceiver(t, h.clock, func(now uint64, w http.ResponseWriter) {
		if now < until {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h.enqueue("e1", "ep", rcv.URL, "guarded")
	h.step() // e1's first attempt: a 429 that pauses the endpoint for 60 s
	h.enqueue("e2", "ep", rcv.URL, "guarded")
	h.enqueue("e3", "ep", rcv.URL, "guarded")
	h.step()
	for _, id := range []string{"e2", "e3"} {
		if r := h.state(id); r.State != StateHeld || r.HoldReason != "paused" || r.HeldUntilMs != until || r.Attempts != 0 {
			t.Fatalf("%s: want held (paused) until %d with no attempt, got %s %q until %d, %d attempts", id, until, r.State, r.HoldReason, r.HeldUntilMs, r.Attempts)
		}
	}
	h.run()
	hits := rcv.hits()
	for _, at := range hits[1:] {
		if at < until {
			t.Fatalf("a request at %d, before the Retry-After instant %d (requests %v)", at, until, hits)
		}
	}
	for _, id := range []string{"e1", "e2", "e3"} {
		if r := h.state(id); r.State != StateDelivered {
			t.Fatalf("%s: %s, want delivered", id, r.State)
		}
	}
	if got := h.metric("webhook_holds_total", "reason", "paused"); got < 2 {
		t.Fatalf("webhook_holds_total{reason=paused} = %v, want >= 2", got)
	}
	if got := h.metric("webhook_held_events"); got != 0 {
		t.Fatalf("webhook_held_events = %v at the end, want 0", got)
	}
}

func TestFailuresOpenTheCircuitFirstAttemptsAreHeldAndASucceedingProbeClosesItAndReleasesThemPaced(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	rcv := newReceiver(t, h.clock, func(now uint64, w http.ResponseWriter) {
		if now < t0+3_000 { // down for 3 s
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h.enqueue("f1", "ep", rcv.URL, "guarded")
	h.enqueue("f2", "ep", rcv.URL, "guarded")
	h.step() // f1's failure opens the circuit at t0 for 5 s (its record_reserve counts 2 attempts); f2 is held
	for _, id := range []string{"n1", "n2", "n3"} {
		h.enqueue(id, "ep", rcv.URL, "guarded")
	}
	h.step()
	for _, id := range []string{"f2", "n1", "n2", "n3"} {
		if r := h.state(id); r.State != StateHeld || r.HoldReason != "circuit_open" || r.Attempts != 0 {
			t.Fatalf("%s: want a first attempt held circuit_open, got %s %q after %d attempts", id, r.State, r.HoldReason, r.Attempts)
		}
	}
	h.run()
	hits := rcv.hits()
	if len(hits) < 2 || hits[0] != t0 {
		t.Fatalf("requests %v: want the failure at t0", hits)
	}
	for _, at := range hits[1:] {
		if at < t0+5_000 {
			t.Fatalf("a request at t0+%d, inside the 5 s cooldown (requests %v)", at-t0, hits)
		}
	}
	for _, id := range []string{"f1", "f2", "n1", "n2", "n3"} {
		if r := h.state(id); r.State != StateDelivered {
			t.Fatalf("%s: %s, want delivered", id, r.State)
		}
	}
	if got := h.metric("webhook_probe_calls_total", "granted", "true"); got != 1 {
		t.Fatalf("granted probes %v, want 1 (the success closed the circuit)", got)
	}
	if got := h.metric("webhook_holds_total", "reason", "release_pacing"); got < 1 {
		t.Fatalf("no release_pacing hold: the held events left unpaced")
	}
	// paced: after the probe (hits[1]), at most one released event per second (floor 1/s, capacity 1)
	released := hits[2:]
	for i := 1; i < len(released); i++ {
		if released[i]-released[i-1] < 1_000 {
			t.Fatalf("released events %d ms apart (requests %v), want >= 1000 (1/s)", released[i]-released[i-1], hits)
		}
	}
}

func TestABudgetRefusalHoldsInsteadOfDeadLetteringAndEachWakeMakesOneReserve(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	rcv := newReceiver(t, h.clock, func(now uint64, w http.ResponseWriter) {
		if now < t0+1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h.enqueue("b1", "ep", rcv.URL, "paced")
	h.step()
	r := h.state("b1")
	if r.State != StateHeld || r.HoldReason != "budget_refused" || !r.NeedsReserve || r.Attempts != 1 {
		t.Fatalf("want a budget-held retry needing a reserve, got %s %q needs_reserve=%v attempts=%d", r.State, r.HoldReason, r.NeedsReserve, r.Attempts)
	}
	h.run()
	if r := h.state("b1"); r.State != StateDelivered || r.Attempts != 2 {
		t.Fatalf("b1: %s after %d attempts, want delivered on its second", r.State, r.Attempts)
	}
	if len(h.deadLetters()) != 0 {
		t.Fatalf("dead letters %v: a refusal must hold, not dead-letter", h.deadLetters())
	}
	holds, wakes := h.metric("webhook_holds_total", "reason", "budget_refused"), h.metric("webhook_wake_calls_total")
	if holds < 1 || wakes != holds {
		t.Fatalf("%v budget holds and %v wake calls: want one reserve per wake", holds, wakes)
	}
}

func TestAHeldEventSurvivesARestartAndIsDeliveredAfterResume(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	until := t0 + 30_000
	rcv := newReceiver(t, h.clock, func(now uint64, w http.ResponseWriter) {
		if now < until {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h.enqueue("r1", "ep", rcv.URL, "guarded")
	h.step()
	h.enqueue("r2", "ep", rcv.URL, "guarded")
	h.step()
	if r := h.state("r2"); r.State != StateHeld {
		t.Fatalf("r2 %s, want held before the restart", r.State)
	}
	h.start() // a new process over the same journal: no view, no pacer
	if r := h.state("r2"); r.State != StateHeld || r.HoldReason != "paused" || r.HeldUntilMs != until {
		t.Fatalf("after the restart r2 is %s %q until %d, want held paused until %d", r.State, r.HoldReason, r.HeldUntilMs, until)
	}
	if got := h.metric("webhook_held_events"); got != 1 {
		t.Fatalf("webhook_held_events %v after the restart, want 1", got)
	}
	h.run()
	if r := h.state("r2"); r.State != StateDelivered || r.HeldMs < 30_000 {
		t.Fatalf("r2: %s with held_ms %d, want delivered after >= 30000 ms held", r.State, r.HeldMs)
	}
	for _, at := range rcv.hits()[1:] {
		if at < until {
			t.Fatalf("a request at %d before %d", at, until)
		}
	}
}

func TestAnEventHeldPastItsWindowIsDeadLetteredRetryWindowElapsedWithItsHeldMs(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	rcv := newReceiver(t, h.clock, func(now uint64, w http.ResponseWriter) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	h.enqueue("w1", "ep", rcv.URL, "short")
	h.step() // a pause far past the 10 s window
	h.enqueue("w2", "ep", rcv.URL, "short")
	h.run()
	dl, ok := h.deadLetters()["w2"]
	if !ok || dl.StopReason != rp.StopReasonRetryWindowElapsed || dl.Attempts != 0 || dl.HeldMs != 10_000 {
		t.Fatalf("w2's dead letter %+v, want retry_window_elapsed after 0 attempts with held_ms 10000", dl)
	}
	if len(rcv.hits()) != 1 {
		t.Fatalf("%d requests, want only w1's", len(rcv.hits()))
	}
}

func TestAFormatTwoClassOfAHealthDocumentIsNeverGatedNorHeld(t *testing.T) {
	h := newHarness(t, "")
	useHealth(h)
	h.enqueue("p1", "ep_503", h.endpoints.Unavailable.URL, "plain")
	h.run()
	if r := h.state("p1"); r.State != StateDeadLettered || r.Health != nil || r.HeldMs != 0 {
		t.Fatalf("p1: %+v", r)
	}
	for _, reason := range rp.HoldReasonValues() {
		if got := h.metric("webhook_holds_total", "reason", reason.String()); got != 0 {
			t.Fatalf("holds{%s} = %v for a format-2 class", reason, got)
		}
	}
}

func TestAGrantedWakeWhoseReplyShowsAPauseHoldsKeepingItsReservation(t *testing.T) {
	h := newHarness(t, "")
	var mem *rp.MemoryCallStore
	h.configure = func(cfg *Config) {
		doc, err := cfg.Engine.LoadHealthDocument(context.Background(), []byte(healthDocument))
		if err != nil {
			h.t.Fatal(err)
		}
		mem = rp.NewMemoryCallStore(cfg.Engine)
		cfg.HealthDocument, cfg.Budget, cfg.Calls = &doc, mem.Budget(), mem
	}
	h.start()
	start := t0 + 59_999 // the last instant of a budget bucket: the wake's reserve is judged in the next one, and granted
	h.clock.Advance(start - t0)
	rcv := newReceiver(t, h.clock, func(now uint64, w http.ResponseWriter) {
		if now == start {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	h.enqueue("b1", "ep", rcv.URL, "paced")
	h.step() // refused by the budget: held, its wake will reserve
	if r := h.state("b1"); r.State != StateHeld || !r.NeedsReserve {
		t.Fatalf("b1 %s needs_reserve=%v, want budget-held", r.State, r.NeedsReserve)
	}
	// another replica reports a 2-minute pause: only the store knows it
	ctx := context.Background()
	c, err := h.engine.Compile(ctx, h.state("b1").Policy, h.state("b1").Health)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pause, err := c.CallFor(ctx, rp.CallOpReserve, "ep", start)
	if err != nil {
		t.Fatal(err)
	}
	pauseEnd := start + 120_000
	pause.Op, pause.Health.PauseUntilMs = rp.CallOpReport, pauseEnd
	if _, err := mem.Call(ctx, pause, start); err != nil {
		t.Fatal(err)
	}
	h.run()
	if r := h.state("b1"); r.State != StateDelivered || r.Attempts != 2 {
		t.Fatalf("b1: %s after %d attempts, want delivered on its second", r.State, r.Attempts)
	}
	hits := rcv.hits()
	if len(hits) != 2 || hits[1] < pauseEnd {
		t.Fatalf("requests %v: want the retry after the pause's end %d", hits, pauseEnd)
	}
	if h.metric("webhook_holds_total", "reason", "paused") < 1 {
		t.Fatal("the granted wake was not held by its reply's pause")
	}
	if holds, wakes := h.metric("webhook_holds_total", "reason", "budget_refused"), h.metric("webhook_wake_calls_total"); holds != 1 || wakes != 1 {
		t.Fatalf("%v budget holds, %v wake reserves: want 1 and 1 (the granted reservation is kept through the pause: no second reserve)", holds, wakes)
	}
}
