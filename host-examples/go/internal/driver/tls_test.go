package driver

import (
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/testpki"
)

// httpsTarget answers 200 over TLS with cert and counts the requests.
func httpsTarget(t *testing.T, cert tls.Certificate) (string, *atomic.Uint64) {
	t.Helper()
	var got atomic.Uint64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		got.Add(1)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL, &got
}

func TestAnHTTPSTargetIsDeliveredWithTheCAFileAndDeadLetteredOnItsFirstAttemptWithout(t *testing.T) {
	pki := testpki.New(t)
	policy := writePolicy(t, "1.0", "1000000")
	good, goodGot := httpsTarget(t, pki.Loopback)
	wrongName, wrongGot := httpsTarget(t, pki.OtherName)
	for name, c := range map[string]struct {
		target, caFile string
		got            *atomic.Uint64
		delivered      bool
	}{
		"the CA":                      {good, pki.CAFile, goodGot, true},
		"no CA":                       {good, "", goodGot, false},
		"the CA, another name's cert": {wrongName, pki.CAFile, wrongGot, false},
	} {
		before := c.got.Load()
		args := []string{"--target", c.target, "--endpoint-id", "ep-tls", "--events", "5",
			"--policy", policy, "--allow-private-targets"}
		if c.caFile != "" {
			args = append(args, "--ca-file", c.caFile)
		}
		s, stderr, code := runReplica(t, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		checkNothingLost(t, s)
		if c.delivered {
			if s.StopReasons["delivered"] != 5 || c.got.Load()-before != 5 {
				t.Errorf("%s: want 5 delivered: %+v (endpoint saw %d)", name, s, c.got.Load()-before)
			}
			continue
		}
		if s.StopReasons["terminal_response"] != 5 || s.Attempts != 5 || c.got.Load() != before {
			t.Errorf("%s: want 5 terminal_response after one attempt each, nothing received: %+v (endpoint saw %d)",
				name, s, c.got.Load()-before)
		}
		if s.TransportErrors["tls_certificate"] != 5 {
			t.Errorf("%s: want 5 tls_certificate transport errors: %v", name, s.TransportErrors)
		}
	}
}

func TestACAFileThatCannotBeReadOrHoldsNoCertificateExitsWith2NamingIt(t *testing.T) {
	dir := t.TempDir()
	noPEM := filepath.Join(dir, "empty.pem")
	if err := os.WriteFile(noPEM, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.pem"), noPEM} {
		_, stderr, code := runReplica(t, "--target", "https://127.0.0.1:1/", "--endpoint-id", "ep",
			"--events", "1", "--ca-file", path)
		if code != 2 || !strings.Contains(stderr, "--ca-file") || !strings.Contains(stderr, path) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming the flag and the file", path, code, stderr)
		}
	}
}
