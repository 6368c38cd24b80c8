package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// deliver POSTs the event and reports how the attempt ended: the status
// and Retry-After of a response, or the kind of transport error. The
// component classifies both; this file only names what happened.
func deliver(ctx context.Context, client *http.Client, ev Event, nowMs uint64) rp.Outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ev.URL, bytes.NewReader(ev.Payload))
	if err != nil {
		return rp.TransportErrorOutcome("invalid_url")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Webhook-Id", ev.ID)
	resp, err := client.Do(req)
	if err != nil {
		return rp.TransportErrorOutcome(errorKind(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 0 || resp.StatusCode > 0xffff {
		return rp.TransportErrorOutcome("remote_protocol_error")
	}
	status := uint16(resp.StatusCode)
	if ms, ok := parseRetryAfter(resp.Header.Get("Retry-After"), nowMs); ok {
		return rp.ResponseOutcomeRetryAfter(status, ms)
	}
	return rp.ResponseOutcome(status)
}

// errorKind names a Go transport error with the SPEC's kinds
// (connect_timeout, read_timeout, connect_error, remote_protocol_error,
// unsupported_protocol, invalid_url, too_many_redirects); anything else is
// "unknown", which the component treats as terminal.
func errorKind(err error) string {
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

// parseRetryAfter reads delay-seconds or an HTTP-date into milliseconds
// from nowMs; a malformed header counts as absent.
func parseRetryAfter(v string, nowMs uint64) (uint64, bool) {
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

// newHTTPClient is the delivery client: a per-attempt timeout, no
// redirects beyond a few.
func newHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return errors.New("stopped after 3 redirects")
			}
			return nil
		},
	}
}
