package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// post sends one attempt of an event and names how it ended: the status
// (and Retry-After) of a response, or the SPEC kind of a transport error.
// The component classifies both; nothing here decides anything.
func post(ctx context.Context, client *http.Client, target, eventID string, attempt uint32) rp.Outcome {
	body := fmt.Sprintf(`{"event_id":%q,"attempt":%d}`, eventID, attempt)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader([]byte(body)))
	if err != nil {
		return rp.TransportErrorOutcome("invalid_url")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Event-Id", eventID)
	req.Header.Set("X-Attempt", strconv.FormatUint(uint64(attempt), 10))
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
	if v := strings.TrimSpace(resp.Header.Get("Retry-After")); v != "" {
		if secs, err := strconv.ParseUint(v, 10, 32); err == nil {
			return rp.ResponseOutcomeRetryAfter(status, secs*1000)
		}
		if when, err := http.ParseTime(v); err == nil {
			ms := time.Until(when).Milliseconds()
			if ms < 0 {
				ms = 0
			}
			return rp.ResponseOutcomeRetryAfter(status, uint64(ms))
		}
	}
	return rp.ResponseOutcome(status)
}

// errorKind names a transport error with the SPEC's kinds; anything else
// is "unknown", which the component treats as terminal.
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
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), strings.Contains(err.Error(), "malformed HTTP"):
		return "remote_protocol_error"
	}
	return "unknown"
}

// newHTTPClient keeps connections to the one target alive across workers.
func newHTTPClient(concurrency int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = concurrency
	tr.MaxIdleConns = concurrency
	return &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
