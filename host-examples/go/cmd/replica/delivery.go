package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// post sends one attempt of an event and names how it ended: the status
// (and Retry-After, read by the component) of a response, or the SPEC kind
// of a transport error. The component classifies both; nothing here decides.
func post(ctx context.Context, e *rp.Engine, client *http.Client, target, eventID string, attempt uint32, nowMs func() uint64) (rp.AttemptOutcome, error) {
	body := fmt.Sprintf(`{"event_id":%q,"attempt":%d}`, eventID, attempt)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader([]byte(body)))
	if err != nil {
		return rp.TransportErrorOutcome("invalid_url"), nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Event-Id", eventID)
	req.Header.Set("X-Attempt", strconv.FormatUint(uint64(attempt), 10))
	resp, err := client.Do(req)
	if err != nil {
		return rp.TransportErrorOutcome(httpoutcome.ErrorKind(err)), nil
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return httpoutcome.Outcome(ctx, e, resp, nowMs())
}

// newHTTPClient keeps connections to the one target alive across workers.
func newHTTPClient(concurrency int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = concurrency
	tr.MaxIdleConns = concurrency
	return &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
