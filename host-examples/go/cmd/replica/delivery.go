package main

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// post sends one attempt of an event and names how it ended: the status
// (and Retry-After, read by the component) of a response, or the contract
// kind of a transport error. The component classifies both; nothing here
// decides. Header values are set through net/http, which refuses CR/LF
// (the request then fails as invalid_url instead of injecting a header).
func post(ctx context.Context, e *rp.Engine, client *safehttp.Client, target, eventID string, attempt uint32, body []byte, nowMs func() uint64) (rp.AttemptOutcome, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return httpoutcome.Failed(httpoutcome.InvalidURL), nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Event-Id", eventID)
	req.Header.Set("X-Attempt", strconv.FormatUint(uint64(attempt), 10))
	return httpoutcome.Attempt(ctx, e, client, req, nowMs)
}

// newHTTPClient keeps connections to the one target alive across workers;
// observe is told each attempt's duration.
func newHTTPClient(cfg Config, observe func(time.Duration)) *safehttp.Client {
	return safehttp.NewClient(safehttp.Options{
		AttemptDeadline:     time.Duration(cfg.AttemptDeadlineMs) * time.Millisecond,
		AllowPrivateTargets: cfg.AllowPrivate,
		IdlePerHost:         cfg.Concurrency,
		RootCAs:             cfg.Roots,
		Observe:             observe,
	})
}
