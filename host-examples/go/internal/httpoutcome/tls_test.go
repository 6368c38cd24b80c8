package httpoutcome

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/testpki"
)

// httpsServer serves 204 over TLS with cert on loopback.
func httpsServer(t *testing.T, cert tls.Certificate) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func clientTrusting(t *testing.T, caFile string) *safehttp.Client {
	t.Helper()
	opts := safehttp.Options{AttemptDeadline: 2 * time.Second, AllowPrivateTargets: true}
	if caFile != "" {
		roots, err := safehttp.TrustWithCAFile(caFile)
		if err != nil {
			t.Fatal(err)
		}
		opts.RootCAs = roots
	}
	return safehttp.NewClient(opts)
}

func TestAnHTTPSTargetIsDeliveredWithTheCAAndRefusedAsTLSCertificateOtherwise(t *testing.T) {
	pki := testpki.New(t)
	good := httpsServer(t, pki.Loopback)
	wrongName := httpsServer(t, pki.OtherName)
	withCA, withoutCA := clientTrusting(t, pki.CAFile), clientTrusting(t, "")
	for name, c := range map[string]struct {
		client *safehttp.Client
		url    string
		want   string
	}{
		"the CA, a certificate for 127.0.0.1":     {withCA, good, "answered"},
		"no CA (untrusted issuer)":                {withoutCA, good, "tls_certificate"},
		"the CA, a certificate for another name":  {withCA, wrongName, "tls_certificate"},
		"localhost resolves to a checked address": {withCA, strings.Replace(good, "127.0.0.1", "localhost", 1), "answered"},
	} {
		if got := kind(t, c.client, c.url); got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
	}
}

func TestAnHTTPSTargetOnALoopbackAddressIsStillRefusedWithoutTheAllowOption(t *testing.T) {
	pki := testpki.New(t)
	url := httpsServer(t, pki.Loopback)
	roots, err := safehttp.TrustWithCAFile(pki.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	c := safehttp.NewClient(safehttp.Options{AttemptDeadline: 2 * time.Second, RootCAs: roots})
	if got := kind(t, c, url); got != "destination_refused" {
		t.Fatalf("https to loopback without the allow option: %s, want destination_refused", got)
	}
}

func TestAHandshakeThatFailsForAnotherReasonIsRetryable(t *testing.T) {
	c := clientTrusting(t, "")
	// a server that answers the ClientHello with reply (nil: closes at once)
	answering := func(reply []byte) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				conn, err := l.Accept()
				if err != nil {
					return
				}
				_, _ = conn.Write(reply)
				conn.Close()
			}
		}()
		return "https://" + l.Addr().String() + "/"
	}
	closing, notTLS := answering(nil), answering([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
	stall := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return "https://" + l.Addr().String() + "/" // accepted by the kernel, never answered
	}()
	short := safehttp.NewClient(safehttp.Options{AttemptDeadline: 2 * time.Second, ConnectTimeout: 200 * time.Millisecond, AllowPrivateTargets: true})
	for name, want := range map[string]struct {
		client *safehttp.Client
		url    string
		kind   string
	}{
		"a connection closed during the handshake": {c, closing, "connect_error"},
		"a server that does not speak TLS":         {c, notTLS, "connect_error"},
		"a handshake that stalls":                  {short, stall, "connect_timeout"},
	} {
		if got := kind(t, want.client, want.url); got != want.kind {
			t.Errorf("%s: %s, want %s", name, got, want.kind)
		}
	}
}

func TestTheCAFileIsTrustedInAdditionToThePlatformStore(t *testing.T) {
	pki := testpki.New(t)
	roots, err := safehttp.TrustWithCAFile(pki.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		t.Skipf("no platform bundle file to pick a root from: %v", err)
	}
	block, _ := pem.Decode(bundle)
	root, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := root.Verify(x509.VerifyOptions{Roots: roots}); err != nil {
		t.Errorf("a platform root (%s) is not trusted with --ca-file: %v", root.Subject, err)
	}
	leaf, _ := x509.ParseCertificate(pki.Loopback.Certificate[0])
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost"}); err != nil {
		t.Errorf("the CA file's server certificate is not trusted: %v", err)
	}
}

func TestAnUnreadableOrEmptyCAFileIsRefusedNamingIt(t *testing.T) {
	dir := t.TempDir()
	empty := dir + "/no-pem.txt"
	if err := os.WriteFile(empty, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dir + "/missing.pem", empty} {
		_, err := safehttp.TrustWithCAFile(path)
		var ce *safehttp.CAFileError
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming the file", path, err)
		} else if !errors.As(err, &ce) {
			t.Errorf("%s: %T, want *safehttp.CAFileError", path, err)
		}
	}
}
