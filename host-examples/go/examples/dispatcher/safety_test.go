package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/signing"
)

const (
	oldSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
	newSecret = "whsec_bmV3IGtleSBmb3IgdGhlIHJvdGF0aW9uIQ=="
)

// countingSecrets counts the reloads asked of a SecretSource.
type countingSecrets struct {
	SecretSource
	reloads atomic.Int64
}

func (c *countingSecrets) Secrets(ctx context.Context, endpointID string, reload bool) ([]signing.Secret, error) {
	if reload {
		c.reloads.Add(1)
	}
	return c.SecretSource.Secrets(ctx, endpointID, reload)
}

func writeSecrets(t *testing.T, path, json string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A receiver that only knows the new secret answers 401 until the
// dispatcher reloads its secrets: the policy's refresh_credentials.
func TestA401ReloadsTheEndpointsSecretBeforeTheRetryAndTheSignedRetryIsDelivered(t *testing.T) {
	receiverKey, _ := signing.ParseSecret(newSecret)
	var hits, verified atomic.Int64
	var clockAt atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		body, _ := io.ReadAll(r.Body)
		if err := signing.Verify([]signing.Secret{receiverKey}, r.Header, body, time.UnixMilli(clockAt.Load()), 0); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		verified.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	secrets := filepath.Join(t.TempDir(), "secrets.json")
	writeSecrets(t, secrets, `{"ep_signed": ["`+oldSecret+`"]}`)
	h := newHarness(t, "")
	source := &countingSecrets{SecretSource: &SecretsFile{Path: secrets}}
	h.configure = func(c *Config) { c.Secrets = source }
	h.start()
	clockAt.Store(int64(h.clock.NowMs()))
	h.enqueue("evt_signed", "ep_signed", srv.URL+"/hook", "notification")
	if _, _, err := h.d.Step(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The rotation: the new secret first, the old one still signing.
	writeSecrets(t, secrets, `{"ep_signed": ["`+newSecret+`", "`+oldSecret+`"]}`)
	h.run()
	if hits.Load() != 2 || verified.Load() != 1 {
		t.Fatalf("receiver saw %d requests, %d verified; want 2 and 1", hits.Load(), verified.Load())
	}
	if got := source.reloads.Load(); got != 1 {
		t.Fatalf("%d secret reloads, want 1 (before the retry after the 401)", got)
	}
	if len(h.deadLetters()) != 0 {
		t.Fatalf("dead letters: %+v", h.deadLetters())
	}
}

func TestALoopbackTargetIsRefusedByDefaultCountedAndDeadLetteredAsTerminal(t *testing.T) {
	h := newHarness(t, "")
	h.configure = func(c *Config) { c.AllowPrivateTargets = false }
	h.start()
	h.enqueue("evt_internal", "ep_internal", h.endpoints.Healthy.URL+"/hook", "notification")
	h.run()
	dl, ok := h.deadLetters()["evt_internal"]
	if !ok || dl.StopReason.String() != "terminal_response" || dl.LastOutcome != string(httpoutcome.DestinationRefused) {
		t.Fatalf("dead letter %+v, want terminal_response after destination_refused", dl)
	}
	if h.endpoints.HealthyHits.Load() != 0 {
		t.Fatal("a request reached the loopback receiver")
	}
	if got := h.metrics.Value("webhook_transport_errors_total", "kind", "destination_refused"); got != 1 {
		t.Fatalf("webhook_transport_errors_total{kind=\"destination_refused\"} = %v, want 1", got)
	}
	if got := h.metrics.Value("webhook_attempts_total", "kind", "first"); got != 1 {
		t.Fatalf("webhook_attempts_total{kind=\"first\"} = %v, want 1 (a refused attempt was allowed, then refused)", got)
	}
}

func TestQueryStringsUserInfoAndSecretsStayOutOfDeadLettersMetricsAndErrors(t *testing.T) {
	h := newHarness(t, "")
	url := strings.Replace(h.endpoints.Gone.URL, "http://", "http://user:hunter2@", 1) + "/hook?token=s3cr3t#frag"
	h.enqueue("evt_gone", "ep_gone", url, "notification")
	h.run()
	dl := h.deadLetters()["evt_gone"]
	if dl.URL != h.endpoints.Gone.URL+"/hook" {
		t.Fatalf("dead-letter URL %q, want it without user info, query and fragment", dl.URL)
	}
	// The journal keeps a pending event's URL (it is where the event goes,
	// in a 0600 file); what operators read, the dead letters, does not.
	dls, _ := h.store.DeadLetters()
	raw, err := json.Marshal(dls)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.metrics.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	metrics, _ := io.ReadAll(resp.Body)
	for what, text := range map[string]string{"dead letters": string(raw), "metrics": string(metrics)} {
		for _, secret := range []string{"hunter2", "s3cr3t", "frag"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s contain %q", what, secret)
			}
		}
	}
	bad := filepath.Join(t.TempDir(), "secrets.json")
	writeSecrets(t, bad, `{"ep": ["whsec_not base64 hunter2!"]}`)
	_, err = (&SecretsFile{Path: bad}).Secrets(context.Background(), "ep", false)
	if err == nil || strings.Contains(err.Error(), "hunter2") || !errors.Is(err, signing.ErrBadSecret) {
		t.Fatalf("a bad secret's error: %v", err)
	}
}

func TestMetricsRefuseANonLoopbackAddressUnlessMadePublic(t *testing.T) {
	if _, _, err := serveMetrics("0.0.0.0:0", false, http.NotFoundHandler()); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("0.0.0.0 without -metrics-public: %v", err)
	}
	url, stop, err := serveMetrics("127.0.0.1:0", false, http.NotFoundHandler())
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("loopback: %q %v", url, err)
	}
	stop()
}

// clockJumpingSecrets moves the clock past every window when asked for
// secrets: after Resume judged the record, before the request is written.
type clockJumpingSecrets struct{ clock *FakeClock }

func (c clockJumpingSecrets) Secrets(context.Context, string, bool) ([]signing.Secret, error) {
	c.clock.Advance(24 * 60 * 60 * 1000)
	return nil, nil
}

func TestAnAttemptPastTheWindowsEdgeWhenItIsToBeWrittenIsNotSentAndDeadLettered(t *testing.T) {
	h := newHarness(t, "")
	h.configure = func(c *Config) { c.Secrets = clockJumpingSecrets{h.clock} }
	h.start()
	h.enqueue("evt_edge", "ep_edge", h.endpoints.Healthy.URL+"/hook", "notification")
	h.run()
	dl, ok := h.deadLetters()["evt_edge"]
	if !ok || dl.StopReason.String() != "retry_window_elapsed" || dl.Attempts != 0 {
		t.Fatalf("dead letter %+v, want retry_window_elapsed with no attempt", dl)
	}
	if h.endpoints.HealthyHits.Load() != 0 {
		t.Fatal("a request past the window's edge reached the receiver")
	}
	if got := h.metrics.Value("webhook_deadletter_total", "stop_reason", "retry_window_elapsed"); got != 1 {
		t.Fatalf("webhook_deadletter_total{stop_reason=\"retry_window_elapsed\"} = %v, want 1", got)
	}
}

// failingSecrets cannot read any secret (an unreadable or invalid file).
type failingSecrets struct{}

func (failingSecrets) Secrets(context.Context, string, bool) ([]signing.Secret, error) {
	return nil, errors.New("signing secrets: unreadable")
}

func TestAnEventWhoseSecretsCannotBeReadIsNeverSentUnsignedAndEndsAsCredentialsUnavailable(t *testing.T) {
	h := newHarness(t, "")
	h.configure = func(c *Config) { c.Secrets = failingSecrets{} }
	h.start()
	h.enqueue("evt_nosecret", "ep_healthy", h.endpoints.Healthy.URL+"/hook", "notification")
	h.run()
	dl, ok := h.deadLetters()["evt_nosecret"]
	if !ok || dl.StopReason.String() != "terminal_response" || dl.Attempts != 1 {
		t.Fatalf("dead letter %+v (found %v), want terminal_response after 1 attempt", dl, ok)
	}
	if n := h.endpoints.HealthyHits.Load(); n != 0 {
		t.Fatalf("the endpoint saw %d requests, want none (never sent unsigned)", n)
	}
}
