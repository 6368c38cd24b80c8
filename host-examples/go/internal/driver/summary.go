package driver

import (
	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Summary is the REPLICA contract's one JSON line (docs/replica.md).
type Summary struct {
	Host            string            `json:"host"`
	Events          uint64            `json:"events"`
	Attempts        uint64            `json:"attempts"`
	FirstAttempts   uint64            `json:"first_attempts"`
	Retries         uint64            `json:"retries"`
	StopReasons     map[string]uint64 `json:"stop_reasons"`
	Pending         uint64            `json:"pending"`
	Drained         bool              `json:"drained"`
	TransportErrors map[string]uint64 `json:"transport_errors"`
	RedisRoundTrips uint64            `json:"redis_round_trips"`
	StoreErrors     uint64            `json:"store_errors"`
	Disagreements   uint64            `json:"budget_disagreements"`
	ElapsedMs       uint64            `json:"elapsed_ms"`
	// format 3 (docs/replica.md; zeros for a format-2 policy)
	Holds      map[string]uint64 `json:"holds"`
	Held       uint64            `json:"held"`
	ProbeCalls uint64            `json:"probe_calls"`
}

// newSummary has every stop reason, transport kind and hold reason (the
// closed set of webhook_holds_total{reason} in the metrics schema) at 0.
func newSummary(holdReasons []string) Summary {
	s := Summary{Host: "go", StopReasons: map[string]uint64{}, TransportErrors: map[string]uint64{}, Holds: map[string]uint64{}}
	for _, r := range rp.StopReasonValues() {
		s.StopReasons[r.String()] = 0
	}
	for _, k := range httpoutcome.TransportKinds() {
		s.TransportErrors[string(k)] = 0
	}
	for _, r := range holdReasons {
		s.Holds[r] = 0
	}
	return s
}

// attempt counts one attempt made (sent, or abandoned at the drain deadline).
func (s *Summary) attempt(n uint32) {
	if n <= 1 {
		s.FirstAttempts++
	} else {
		s.Retries++
	}
	s.Attempts++
}

// counted adds an engine count action to the figures it feeds.
func (s *Summary) counted(a *action) {
	switch a.Name {
	case "webhook_transport_errors_total":
		s.TransportErrors[a.Label["kind"]] += a.Delta
	case "webhook_budget_disagreements_total":
		s.Disagreements += a.Delta
	case "webhook_probe_calls_total":
		s.ProbeCalls += a.Delta
	}
}
