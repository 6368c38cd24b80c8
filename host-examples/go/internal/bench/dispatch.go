package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/safehttp"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The dispatcher row (issue 20): one worker delivering to a loopback
// endpoint as fast as it can, each attempt the way the fleet replica makes
// it (cmd/replica/deliver.go): Admit under the current document, POST
// through the replica's delivery client (internal/safehttp, send gate on
// the window's edge), the outcome named by internal/httpoutcome (the
// component reads Retry-After), then Engine.Step with the replica's
// default budget store (rp.MemoryStore: the component's store-apply).
// Every policy call is timed here; the process's CPU time is read around
// the run.
//
// Left out (so the policy's share is, if anything, overstated): the
// journal, metrics and the per-kind counters. Retries are made at once:
// their delays are not waited, the row is CPU per delivery, not a schedule.

// DispatchClass is the class every bench event is admitted under.
const DispatchClass = "bench"

// dispatchDocument is the policy of the step rows (2 s full-jitter
// backoff, 15-minute window, a 10% retry budget) as a document.
const dispatchDocument = `{"version":"bench","classes":{"bench":{"window_ms":900000,"hard_cap":16,
  "backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000,"jitter":"full"},
  "budget":{"ratio":0.1,"window_ms":60000,"min_sample":50,"sliding":true}}}}`

// FailEvery: every FailEvery-th request is answered 503 (every other one
// of those with Retry-After: 1), the rest 200.
const FailEvery = 4

// Dispatched is one run of the dispatcher row.
type Dispatched struct {
	Deliveries   int
	Events       int
	Wall         time.Duration
	ProcessCPU   time.Duration // getrusage(RUSAGE_SELF) user + system over the run
	Policy       time.Duration // inside Admit, the Retry-After read and Engine.Step: the sum of the three below
	Admit        time.Duration // docs.Current, Admit and the class's policy, once per event
	RetryAfter   time.Duration // httpoutcome.Outcome (the component's ParseRetryAfter when the header is there)
	Step         time.Duration // Engine.Step with the MemoryStore (its store-apply included)
	StopsByCause map[string]int
}

// ServeMix starts an in-process server on 127.0.0.1 answering the 200/503
// mix; close it when done.
func ServeMix() *httptest.Server {
	var n atomic.Uint64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		i := n.Add(1)
		switch {
		case i%(2*FailEvery) == 0:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		case i%FailEvery == 0:
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
}

func wallMs() uint64 { return uint64(time.Now().UnixMilli()) }

// Dispatch makes `deliveries` attempts (POSTs) to url from one worker,
// events one after another, each until the policy stops it.
func Dispatch(ctx context.Context, e *rp.Engine, url string, deliveries int) (Dispatched, error) {
	docs, err := rp.NewDocuments(ctx, e, []byte(dispatchDocument))
	if err != nil {
		return Dispatched{}, err
	}
	client := safehttp.NewClient(safehttp.Options{AllowPrivateTargets: true, IdlePerHost: 1})
	store := rp.NewMemoryStore(e)
	out := Dispatched{StopsByCause: map[string]int{}}
	cpu0, err := processCPU()
	if err != nil {
		return Dispatched{}, err
	}
	t0 := time.Now()
	for out.Deliveries < deliveries {
		out.Events++
		eventID, endpointID := fmt.Sprintf("evt_%08d", out.Events), fmt.Sprintf("ep_%d", out.Events%7)
		t := time.Now()
		doc := docs.Current()
		admission, err := e.AdmitClass(ctx, doc, DispatchClass, wallMs())
		policy, ok := classPolicy(doc, DispatchClass)
		out.Admit += time.Since(t)
		if err != nil || !ok {
			return Dispatched{}, fmt.Errorf("admit %s: %v (class found: %v)", eventID, err, ok)
		}
		edgeMs := admission.FirstAttemptedAtMs + policy.WindowMs
		gate := safehttp.WithSendGate(ctx, func() bool { return wallMs() < edgeMs })
		for attempt := uint32(1); out.Deliveries < deliveries; attempt++ {
			body := fmt.Appendf(nil, `{"event_id":%q,"attempt":%d}`, eventID, attempt)
			req, err := http.NewRequestWithContext(gate, http.MethodPost, url, bytes.NewReader(body))
			if err != nil {
				return Dispatched{}, err
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Event-Id", eventID)
			req.Header.Set("X-Attempt", strconv.FormatUint(uint64(attempt), 10))
			resp, err := client.Post(gate, req)
			if err != nil {
				return Dispatched{}, fmt.Errorf("POST %s: %w", url, err)
			}
			out.Deliveries++
			now := wallMs()
			t := time.Now()
			outcome, err := httpoutcome.Outcome(ctx, e, resp.StatusCode, resp.Header, now)
			t1 := time.Now()
			out.RetryAfter += t1.Sub(t)
			if err != nil {
				return Dispatched{}, err
			}
			state := rp.DeliveryState{EventID: eventID, EndpointID: endpointID, Attempt: attempt,
				MaxAttempts: admission.Schedule.MaxAttempts, FirstAttemptedAtMs: admission.FirstAttemptedAtMs}
			res, err := e.Step(ctx, store, policy, state, outcome, now)
			out.Step += time.Since(t1)
			if err != nil {
				return Dispatched{}, fmt.Errorf("step %s: %w", eventID, err)
			}
			if res.Decision.Stop != nil {
				out.StopsByCause[res.Decision.Stop.Reason.String()]++
				break
			}
		}
	}
	out.Wall = time.Since(t0)
	out.Policy = out.Admit + out.RetryAfter + out.Step
	cpu1, err := processCPU()
	out.ProcessCPU = cpu1 - cpu0
	return out, err
}

func classPolicy(doc rp.PolicyDocument, name string) (rp.Policy, bool) {
	for _, c := range doc.Classes {
		if c.Name == name {
			return c.Policy, true
		}
	}
	return rp.Policy{}, false
}
