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
// and Retry-After of a response (read by the component), or the kind of
// transport error. The component classifies both; nothing here decides.
func deliver(ctx context.Context, e *rp.Engine, client *http.Client, ev Event, clock rp.Clock) (rp.AttemptOutcome, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ev.URL, bytes.NewReader(ev.Payload))
	if err != nil {
		return rp.TransportErrorOutcome("invalid_url"), nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Webhook-Id", ev.ID)
	resp, err := client.Do(req)
	if err != nil {
		return rp.TransportErrorOutcome(httpoutcome.ErrorKind(err)), nil
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return httpoutcome.Outcome(ctx, e, resp, clock.NowMs())
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
