package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
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
		return rp.TransportErrorOutcome(httpoutcome.ErrorKind(err))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 0 || resp.StatusCode > 0xffff {
		return rp.TransportErrorOutcome("remote_protocol_error")
	}
	status := uint16(resp.StatusCode)
	if ms, ok := httpoutcome.RetryAfterMs(resp.Header.Get("Retry-After"), nowMs); ok {
		return rp.ResponseOutcomeRetryAfter(status, ms)
	}
	return rp.ResponseOutcome(status)
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
