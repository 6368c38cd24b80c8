// Package httpoutcome names how an HTTP delivery attempt ended, for the
// dispatcher example and the fleet replica: the SPEC's transport error
// kinds and the Retry-After header in milliseconds. It decides nothing;
// the component classifies what it names.
package httpoutcome

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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

// RetryAfterMs reads delay-seconds or an HTTP-date into milliseconds from
// nowMs; a malformed header counts as absent.
func RetryAfterMs(v string, nowMs uint64) (uint64, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseUint(v, 10, 64); err == nil {
		if secs > (1<<63)/1000 {
			return 1 << 63, true
		}
		return secs * 1000, true
	}
	when, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	at := when.UnixMilli()
	if at <= int64(nowMs) {
		return 0, true
	}
	return uint64(at) - nowMs, true
}
