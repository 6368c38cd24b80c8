package safehttp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// HandshakeError is a TLS handshake that failed on a connection the Guard
// dialled. Its certificate verification failures are
// *tls.CertificateVerificationError inside (transport kind
// tls_certificate); any other (a reset, a protocol alert, bytes that are
// not TLS, a stall) is connect_error, or connect_timeout when Timeout.
type HandshakeError struct {
	Host string
	Err  error
}

func (e *HandshakeError) Error() string {
	return fmt.Sprintf("TLS handshake with %s: %v", e.Host, e.Err)
}

func (e *HandshakeError) Unwrap() error { return e.Err }

// Timeout reports whether the handshake ran out of time.
func (e *HandshakeError) Timeout() bool {
	var ne net.Error
	return errors.Is(e.Err, context.DeadlineExceeded) || (errors.As(e.Err, &ne) && ne.Timeout())
}

// CAFileError is a --ca-file that cannot be read or holds no PEM certificate.
type CAFileError struct {
	Path   string
	Reason string
}

func (e *CAFileError) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Reason) }

// TrustWithCAFile is the platform's trust store plus every PEM certificate
// of path (both: a server is trusted when either vouches for it). A file
// that cannot be read or holds no PEM certificate is a *CAFileError.
func TrustWithCAFile(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, &CAFileError{Path: path, Reason: err.Error()}
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil { // no platform store here: the file alone
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, &CAFileError{Path: path, Reason: "no PEM certificate in it"}
	}
	return pool, nil
}

// dialTLS is the Transport's DialTLSContext: a TCP connection through the
// Guard (only a checked address is dialled), then a TLS handshake that
// verifies the certificate against roots (nil: the platform's store) and
// the URL's host name (SNI too), never skipped. The handshake is bounded
// by timeout.
func dialTLS(g *Guard, roots *x509.CertPool, timeout time.Duration) func(context.Context, string, string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		raw, err := g.DialContext(ctx, network, address)
		if err != nil {
			return nil, err
		}
		conn := tls.Client(raw, &tls.Config{
			ServerName: host, // a name or an IP literal: checked against the certificate's SANs
			RootCAs:    roots,
			NextProtos: []string{"http/1.1"},
			MinVersion: tls.VersionTLS12,
		})
		hctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := conn.HandshakeContext(hctx); err != nil {
			raw.Close()
			return nil, &HandshakeError{Host: host, Err: err}
		}
		return conn, nil
	}
}
