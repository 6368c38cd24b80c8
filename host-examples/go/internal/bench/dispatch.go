package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"
)

// The dispatcher row (issue 20): the Go dispatcher program itself
// (internal/driver.Bench: the delivery engine, its in-memory store, no
// journal) delivering to a loopback endpoint as fast as it can. Its
// retries wait their (short) backoff; every call into the engine is timed
// by the driver; the process's CPU time is read around the run.

// DispatchClass is the class of the admit rows' document.
const DispatchClass = "bench"

// dispatchDocument is the policy of the step rows (2 s full-jitter
// backoff, 15-minute window, a 10% retry budget) as a document (the admit rows').
const dispatchDocument = `{"version":"bench","classes":{"bench":{"window_ms":900000,"hard_cap":16,
  "backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000,"jitter":"full"},
  "budget":{"ratio":0.1,"window_ms":60000,"min_sample":50,"sliding":true}}}}`

// DispatchDocument is the dispatcher row's policy: the step rows' budget and window,
// a 1..10 ms backoff so retries do not idle the run.
const DispatchDocument = `{"version":"bench","classes":{"storm":{"window_ms":900000,"hard_cap":16,
  "backoff":{"base_ms":1,"factor":2.0,"cap_ms":10,"jitter":"full"},
  "budget":{"ratio":0.1,"window_ms":60000,"min_sample":50,"sliding":true}}}}`

// FailEvery: every FailEvery-th request is answered 503 (every other one
// of those with Retry-After: 1), the rest 200.
const FailEvery = 4

// ProcessCPU is this process's user plus system CPU time so far.
func ProcessCPU() (time.Duration, error) { return processCPU() }

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
