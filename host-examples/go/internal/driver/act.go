package driver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	"example.invalid/webhook-retry-policy/host-examples/go/signing"
)

// act performs the engine's actions in order (docs/engine.md section 14).
// Journal lines are written (one fdatasync for the batch's lines so far)
// before any later send starts.
func (d *driver) act(actions []action) {
	for i := range actions {
		a := &actions[i]
		switch a.Action {
		case "journal":
			d.lines = append(d.lines, a.Line)
		case "journal_truncate":
			d.flush()
			if d.journal != nil {
				if err := d.journal.Truncate(a.KeepBytes); err != nil {
					d.journalError(err)
				} else {
					fmt.Fprintf(d.stderr, "replica: --store %s: cut a torn last record (kept %d bytes; never acknowledged)\n", d.cfg.StorePath, a.KeepBytes)
				}
			}
		case "journal_compact": // the engine's compaction: the live records replace the file
			d.flush()
			if d.journal != nil {
				if err := d.journal.Replace(a.Journal); err != nil {
					d.journalError(err)
				}
			}
		case "resumed":
			for _, id := range a.IDs {
				d.see(id)
			}
		case "snapshot":
			d.snapshot = a.Journal
		case "send":
			d.flush()
			d.see(a.EventID)
			d.sending[a.EventID] = a.Attempt
			go d.post(*a)
		case "store_call":
			d.calls++
			go d.storeCall(*a)
		case "delivered":
			d.stopped(a.EventID, "delivered")
		case "dead_letter":
			if a.DeadLetter != nil {
				d.stopped(a.DeadLetter.EventID, a.DeadLetter.StopReason)
			}
		case "hold":
			d.see(a.EventID)
			d.sum.Holds[a.Reason]++
		case "count":
			value := ""
			for _, v := range a.Label {
				value = v
			}
			if err := d.metrics.Count(a.Name, value, a.Delta); err != nil {
				d.logOnce("metric "+a.Name, "%v", err)
			}
			d.sum.counted(a)
		case "gauge":
			if err := d.metrics.SetGauge(a.Name, a.Value); err != nil {
				d.logOnce("metric "+a.Name, "%v", err)
			}
			d.sum.Held = a.Value
		case "replayed":
			d.replayed = a
		case "drained":
			d.drained = true
		case "warn":
			fmt.Fprintf(d.stderr, "replica: engine: %s\n", a.Message)
		}
	}
	d.flush()
}

// flush writes the journal lines not yet written and makes them durable
// (without --store they go nowhere). A failed write is logged and the run
// goes on (the file was cut back to whole lines).
func (d *driver) flush() {
	if len(d.lines) == 0 {
		return
	}
	if d.journal != nil {
		if err := d.journal.Append(d.lines...); err != nil {
			d.journalError(err)
		}
	}
	d.lines = d.lines[:0]
}

func (d *driver) journalError(err error) {
	d.journalErrors++
	d.logOnce("journal", "--store: %v", err)
}

// give hands an input to the loop (dropped once the run is over).
func (d *driver) give(in input) {
	select {
	case d.inputs <- in:
	case <-d.done:
	}
}

// post makes one attempt (docs/replica.md): a POST of {"event_id",
// "attempt"} (or the event's body), X-Event-Id and X-Attempt, refused
// immediately before its first byte is written at or after
// start_before_ms (then not_started); its status and raw Retry-After, or
// its transport kind, go back to the engine.
func (d *driver) post(a action) {
	res := input{Op: "result", EventID: a.EventID, Attempt: a.Attempt}
	body, err := requestBody(&a)
	var req *http.Request
	if err == nil {
		req, err = http.NewRequestWithContext(d.sendCtx, http.MethodPost, a.Target, bytes.NewReader(body))
	}
	if err != nil {
		res.ErrorKind = string(httpoutcome.InvalidURL)
		d.give(res)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Event-Id", a.EventID) // net/http refuses CR/LF: no header injection
	req.Header.Set("X-Attempt", strconv.FormatUint(uint64(a.Attempt), 10))
	if d.secrets != nil { // --signing-secrets: reread when the engine asks to refresh credentials
		secrets, err := d.secrets.Secrets(a.EndpointID, a.RefreshCredentials)
		if err != nil { // no usable secret: never sent unsigned (an endpoint the file lacks is)
			d.logOnce("secrets", "event %s: not sent: %v", a.EventID, err)
			res.ErrorKind = string(httpoutcome.CredentialsUnavailable)
			d.give(res)
			return
		}
		if len(secrets) > 0 {
			signing.SetHeaders(req.Header, secrets, a.EventID, time.Now(), body)
		}
	}
	gate := safehttp.WithSendGate(d.sendCtx, func() bool { return d.wallNow() < a.StartBeforeMs })
	inFlight := d.metrics.InFlight()
	resp, err := d.client.Post(gate, req)
	inFlight()
	switch { // a status 100..=599 with its raw Retry-After (the engine reads it), else a transport kind
	case errors.Is(err, safehttp.ErrNotSent):
		res.NotStarted = true
	case err != nil:
		res.ErrorKind = string(httpoutcome.ErrorKind(err))
	case resp.StatusCode < 100 || resp.StatusCode > 599:
		res.ErrorKind = string(httpoutcome.UnexpectedStatus)
	default:
		res.Status = resp.StatusCode
		if h := resp.Header.Values("Retry-After"); len(h) > 0 {
			res.RetryAfter = &h[0]
		}
	}
	d.give(res)
}

// requestBody is the event's body_b64 when it has one, else
// {"event_id", "attempt"}.
func requestBody(a *action) ([]byte, error) {
	if a.BodyB64 != nil {
		return base64.StdEncoding.DecodeString(*a.BodyB64)
	}
	return json.Marshal(struct {
		EventID string `json:"event_id"`
		Attempt uint32 `json:"attempt"`
	}{a.EventID, a.Attempt})
}

// storeCall makes one store call on Redis (timed) and answers it.
func (d *driver) storeCall(a action) {
	start := time.Now()
	reply, err := d.redis.store.Call(context.Background(), a.Key, a.Argv)
	d.metrics.ObserveStore(time.Since(start))
	in := input{Op: "store", CallID: a.CallID}
	if err != nil {
		in.Failed = true
		in.storeErr = err
	} else {
		in.Reply = &reply
	}
	d.give(in)
}
