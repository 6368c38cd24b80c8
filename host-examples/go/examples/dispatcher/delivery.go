package main

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/redact"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
	"example.invalid/webhook-retry-policy/host-examples/go/signing"
)

// deliver POSTs the event, signed with the endpoint's secrets (Standard
// Webhooks), and reports how the attempt ended: the status and
// Retry-After of a response (read by the component), or the kind of
// transport error. The component classifies both; nothing here decides.
// Header values go through net/http, which refuses CR/LF in them: such an
// id fails the attempt as invalid_url instead of injecting a header.
func deliver(ctx context.Context, e *rp.Engine, client *safehttp.Client, ev Event, secrets []signing.Secret, clock rp.Clock) (rp.AttemptOutcome, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ev.URL, bytes.NewReader(ev.Payload))
	if err != nil {
		return httpoutcome.Failed(httpoutcome.InvalidURL), nil
	}
	req.Header.Set("Content-Type", "application/json")
	signing.SetHeaders(req.Header, secrets, ev.ID, time.UnixMilli(int64(clock.NowMs())), ev.Payload)
	return httpoutcome.Attempt(ctx, e, client, req, clock.NowMs)
}

// redactURL is a URL fit for a dead letter, a log line or a metric.
func redactURL(raw string) string { return redact.URL(raw) }
