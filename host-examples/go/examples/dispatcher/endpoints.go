package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// Endpoints are webhook receivers started in-process on loopback: one
// healthy, one that always answers 503, one that answers 410 Gone, and the
// address of a closed port (connection refused).
type Endpoints struct {
	Healthy, Unavailable, Gone *httptest.Server
	Unreachable                string
	// Hits counts requests per endpoint.
	HealthyHits, UnavailableHits, GoneHits atomic.Int64
}

// StartEndpoints starts the receivers on 127.0.0.1; Close stops them.
func StartEndpoints(retryAfter string) (*Endpoints, error) {
	e := &Endpoints{}
	e.Healthy = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.HealthyHits.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	e.Unavailable = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.UnavailableHits.Add(1)
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	e.Gone = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.GoneHits.Add(1)
		w.WriteHeader(http.StatusGone)
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.Close()
		return nil, err
	}
	e.Unreachable = "http://" + l.Addr().String() + "/hook"
	_ = l.Close() // nothing listens there any more
	return e, nil
}

// Close stops the receivers.
func (e *Endpoints) Close() {
	for _, s := range []*httptest.Server{e.Healthy, e.Unavailable, e.Gone} {
		if s != nil {
			s.Close()
		}
	}
}
