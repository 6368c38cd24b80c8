package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// useEmbedded makes h's engine run the shipped artifact with doc appended
// as its embedded document, and h's dispatcher admit under Documents
// following it (no document of its own), with one in-memory store for
// both kinds of call.
func useEmbedded(h *harness, doc string) {
	h.configure = func(cfg *Config) {
		ctx := context.Background()
		raw := rp.AppendCustomSection(rp.EmbeddedArtifact(), "webhook-retry-policy:document", []byte(doc))
		if _, err := cfg.Engine.SwapArtifact(ctx, raw, ""); err != nil {
			h.t.Fatal(err)
		}
		docs, err := rp.NewDocuments(ctx, cfg.Engine, nil)
		if err != nil {
			h.t.Fatal(err)
		}
		mem := rp.NewMemoryCallStore(cfg.Engine)
		cfg.Document, cfg.Documents, cfg.Budget, cfg.Calls = rp.PolicyDocument{}, docs, mem.Budget(), mem
	}
	h.start()
}

// pausedThenOK answers 429 Retry-After: 60 until until, then 200.
func pausedThenOK(until uint64) func(uint64, http.ResponseWriter) {
	return func(now uint64, w http.ResponseWriter) {
		if now < until {
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}

func TestADispatcherOnTheEmbeddedFormatThreeDocumentHoldsDuringARetryAfterPause(t *testing.T) {
	h := newHarness(t, "")
	useEmbedded(h, healthDocument)
	until := t0 + 60_000
	rcv := newReceiver(t, h.clock, pausedThenOK(until))
	h.enqueue("e1", "ep", rcv.URL, "guarded")
	h.step() // e1's first attempt: a 429 that pauses the endpoint for 60 s
	h.enqueue("e2", "ep", rcv.URL, "guarded")
	h.step()
	if r := h.state("e2"); r.State != StateHeld || r.HoldReason != "paused" || r.Health == nil {
		t.Fatalf("e2: %s %q (health %v), want held (paused) under the embedded health section", r.State, r.HoldReason, r.Health)
	}
	h.run()
	for _, at := range rcv.hits()[1:] {
		if at < until {
			t.Fatalf("a request at %d, before the Retry-After instant %d", at, until)
		}
	}
	if got := h.metric("webhook_holds_total", "reason", "paused"); got < 1 {
		t.Fatalf("webhook_holds_total{reason=paused} = %v, want >= 1", got)
	}
}

func TestADispatcherOnAFormatTwoEmbeddedDocumentMakesNoHold(t *testing.T) {
	h := newHarness(t, "")
	useEmbedded(h, healthDocument)
	// the same classes without any health section, swapped in: new events
	// are admitted under the new document (format 2)
	formatTwo := `{"version":"f2","classes":{"guarded":{"window_ms":900000,
	  "backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000,"jitter":"full"},
	  "budget":{"ratio":0.5,"window_ms":60000,"min_sample":100,"sliding":false}}}}`
	if _, err := h.engine.SwapArtifact(context.Background(), rp.AppendCustomSection(rp.EmbeddedArtifact(), "webhook-retry-policy:document", []byte(formatTwo)), ""); err != nil {
		t.Fatal(err)
	}
	rcv := newReceiver(t, h.clock, pausedThenOK(t0+60_000))
	h.enqueue("e1", "ep", rcv.URL, "guarded")
	h.step()
	h.enqueue("e2", "ep", rcv.URL, "guarded")
	h.step()
	if r := h.state("e2"); r.State == StateHeld || r.Health != nil || r.Attempts != 1 {
		t.Fatalf("e2: %s %q (health %v, %d attempts), want sent at once under format 2", r.State, r.HoldReason, r.Health, r.Attempts)
	}
	if got := h.metric("webhook_holds_total", "reason", "paused"); got != 0 {
		t.Fatalf("webhook_holds_total{reason=paused} = %v on a format-2 embedded document, want 0", got)
	}
}

func TestAnEmbeddedHealthSectionWithoutCallsIsRefusedNotIgnored(t *testing.T) {
	h := newHarness(t, "")
	h.configure = func(cfg *Config) { // the artifact's health sections, no format-3 store
		raw := rp.AppendCustomSection(rp.EmbeddedArtifact(), "webhook-retry-policy:document", []byte(healthDocument))
		if _, err := cfg.Engine.SwapArtifact(context.Background(), raw, ""); err != nil {
			h.t.Fatal(err)
		}
		docs, err := rp.NewDocuments(context.Background(), cfg.Engine, nil)
		if err != nil {
			h.t.Fatal(err)
		}
		cfg.Document, cfg.Documents = rp.PolicyDocument{}, docs
	}
	h.start()
	_, err := h.d.Enqueue(context.Background(), Event{ID: "x", EndpointID: "ep", URL: "http://127.0.0.1:1/", Class: "guarded", Payload: []byte(`{}`)})
	if err == nil || !strings.Contains(err.Error(), "Calls is not set") {
		t.Fatalf("enqueue of a health class without Calls: %v, want an explicit refusal", err)
	}
}

func TestTheExampleWithoutPolicyRunsOnTheArtifactsEmbeddedDocument(t *testing.T) {
	doc := strings.Replace(strings.Replace(string(policyJSON), "dispatcher-example-1", "embedded-demo", 1),
		`"budget": { "ratio": 0.5, "window_ms": 10000, "min_sample": 20 }`,
		`"budget": { "ratio": 0.5, "window_ms": 10000, "min_sample": 20 }, "health": {}`, 1)
	if !strings.Contains(doc, `"health": {}`) || !strings.Contains(doc, "embedded-demo") {
		t.Fatal("the test's document did not get its version and health section")
	}
	path := filepath.Join(t.TempDir(), "retry_policy.wasm")
	if err := os.WriteFile(path, rp.AppendCustomSection(rp.EmbeddedArtifact(), "webhook-retry-policy:document", []byte(doc)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, log strings.Builder
	if err := run(options{class: "demo", perEndpoint: 1, storeDir: t.TempDir(), allowPrivate: true, metricsAddr: "127.0.0.1:0",
		artifactPath: path, log: &log}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`document_version="embedded-demo"`, "webhook_delivered_total 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
