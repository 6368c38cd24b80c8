// Package httpoutcome names how an HTTP delivery attempt ended, for the
// dispatcher: the contract's transport error kinds (a response's status
// and raw Retry-After go to the engine as they are). It decides nothing;
// the component classifies what it names.
//
// The table (net/http, through internal/safehttp; the same for every host):
//
//	what happened                                                 outcome
//	status 100..=599                                              that status (Retry-After parsed by the policy)
//	status outside 100..=599 (999, 099)                           unexpected_status (terminal)
//	a loopback/private/... destination (unless allowed)           destination_refused (terminal)
//	connection refused, unreachable, host not found               connect_error
//	the connect (or TLS handshake) took too long                  connect_timeout
//	a write stalled past its deadline                             write_timeout
//	waiting for or reading the response stalled, or the attempt   read_timeout
//	  deadline passed
//	garbage status line, bytes that are not HTTP, headers over    remote_protocol_error
//	  the cap, too many 1xx, a reset/abort/EOF mid-exchange
//	an https:// certificate that fails verification (untrusted    tls_certificate (terminal)
//	  issuer, name mismatch, expired, not yet valid)
//	any other TLS handshake failure (reset, alert, not TLS)        connect_error (connect_timeout if it stalled)
//	schemes net/http cannot speak                                 unsupported_protocol
//	a malformed URL                                               invalid_url
//	anything else (the client refused the request as built)       local_protocol_error (terminal: never retried blind)
package httpoutcome

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
)

// ErrorKind names a Go transport error with the contract's kinds.
func ErrorKind(err error) TransportKind {
	if errors.Is(err, safehttp.ErrDestinationRefused) {
		return DestinationRefused
	}
	if errors.As(err, new(*tls.CertificateVerificationError)) || errors.As(err, new(x509.UnknownAuthorityError)) ||
		errors.As(err, new(x509.HostnameError)) || errors.As(err, new(x509.CertificateInvalidError)) {
		return TLSCertificate // a server certificate that failed verification
	}
	var he *safehttp.HandshakeError
	if errors.As(err, &he) {
		if he.Timeout() {
			return ConnectTimeout
		}
		return ConnectError
	}
	var opErr *net.OpError
	dial := errors.As(err, &opErr) && opErr.Op == "dial"
	var dnsErr *net.DNSError
	var ne net.Error
	msg := err.Error()
	switch {
	case errors.As(err, &dnsErr) && !dnsErr.IsTimeout:
		return ConnectError
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		switch {
		case dial, strings.Contains(msg, "TLS handshake timeout"):
			return ConnectTimeout
		case opErr != nil && opErr.Op == "write":
			return WriteTimeout
		}
		return ReadTimeout
	case dial:
		return ConnectError
	case strings.Contains(msg, "unsupported protocol scheme"):
		return UnsupportedProtocol
	case strings.Contains(msg, "stopped after") && strings.Contains(msg, "redirects"):
		return TooManyRedirects
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, net.ErrClosed), errors.As(err, new(tls.RecordHeaderError)),
		strings.Contains(msg, "malformed"), strings.Contains(msg, "server response headers exceeded"),
		strings.Contains(msg, "too many 1xx"), strings.Contains(msg, "HTTP/1.x transport connection broken"):
		return RemoteProtocolError
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Op == "parse" {
		return InvalidURL
	}
	return LocalProtocolError
}
