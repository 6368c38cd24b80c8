// Package httpoutcome names how an HTTP delivery attempt ended, for the
// dispatcher example and the fleet replica: the SPEC's transport error
// kinds, and the response's outcome with its Retry-After read by the
// component. It decides nothing; the component classifies what it names.
package httpoutcome

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// ErrorKind names a Go transport error with the SPEC's kinds
// (connect_timeout, read_timeout, connect_error, remote_protocol_error,
// unsupported_protocol, invalid_url, too_many_redirects); anything else is
// "unknown", which the component treats as terminal.
func ErrorKind(err error) string {
	var opErr *net.OpError
	dial := errors.As(err, &opErr) && opErr.Op == "dial"
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		if dial {
			return "connect_timeout"
		}
		return "read_timeout"
	case dial:
		return "connect_error"
	case strings.Contains(err.Error(), "unsupported protocol scheme"):
		return "unsupported_protocol"
	case strings.Contains(err.Error(), "stopped after") && strings.Contains(err.Error(), "redirects"):
		return "too_many_redirects"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), isTLS(err), strings.Contains(err.Error(), "malformed HTTP"):
		return "remote_protocol_error"
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Op == "parse" {
		return "invalid_url"
	}
	return "unknown"
}

func isTLS(err error) bool {
	var re tls.RecordHeaderError
	return errors.As(err, &re)
}

// Outcome is the attempt outcome of a response: its status, and its
// Retry-After as the component reads it (ParseRetryAfter; an unusable
// header counts as absent). A status outside 100..=599 is the transport
// kind unexpected_status (terminal by the contract's rule for unknown kinds).
func Outcome(ctx context.Context, e *rp.Engine, resp *http.Response, nowMs uint64) (rp.AttemptOutcome, error) {
	if resp.StatusCode < 100 || resp.StatusCode > 599 {
		return rp.TransportErrorOutcome("unexpected_status"), nil
	}
	status := uint16(resp.StatusCode)
	if h := resp.Header.Values("Retry-After"); len(h) > 0 {
		ms, ok, err := e.ParseRetryAfter(ctx, h[0], nowMs)
		var pe *rp.PolicyError
		if err != nil && !errors.As(err, &pe) { // a header the WIT cannot carry (not UTF-8) is unusable
			return rp.AttemptOutcome{}, err
		}
		if ok {
			return rp.ResponseOutcomeRetryAfter(status, ms), nil
		}
	}
	return rp.ResponseOutcome(status), nil
}
