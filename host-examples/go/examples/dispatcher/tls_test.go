package main

import (
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/testpki"
)

func TestAnHTTPSReceiverIsDeliveredWithTheCAFileAndDeadLetteredAsTLSCertificateWithout(t *testing.T) {
	pki := testpki.New(t)
	var hits atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Loopback}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	roots, err := safehttp.TrustWithCAFile(pki.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, "")
	h.configure = func(c *Config) { c.RootCAs = roots }
	h.start()
	h.enqueue("evt_tls", "ep_tls", srv.URL+"/hook", "notification")
	h.run()
	if hits.Load() != 1 || len(h.deadLetters()) != 0 {
		t.Fatalf("with the CA: receiver saw %d requests, dead letters %+v; want 1 delivery", hits.Load(), h.deadLetters())
	}
	h = newHarness(t, "")
	h.enqueue("evt_untrusted", "ep_tls", srv.URL+"/hook", "notification")
	h.run()
	dl, ok := h.deadLetters()["evt_untrusted"]
	if !ok || dl.StopReason.String() != "terminal_response" || dl.LastOutcome != string(httpoutcome.TLSCertificate) || dl.Attempts != 1 {
		t.Fatalf("without the CA: dead letter %+v, want terminal_response after one tls_certificate", dl)
	}
	if hits.Load() != 1 {
		t.Fatalf("an untrusted receiver got a request")
	}
}
