package webhookmetrics

import (
	"testing"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
)

func TestEveryClosedLabelSetStartsAtZero(t *testing.T) {
	m := New()
	for _, c := range [][]string{
		{"webhook_attempts_total", "kind", "first"}, {"webhook_attempts_total", "kind", "retry"},
		{"webhook_deadletter_total", "stop_reason", "retry_budget_exhausted"},
		{"webhook_transport_errors_total", "kind", string(httpoutcome.TLSCertificate)},
		{"webhook_delivered_total"}, {"webhook_in_flight"}, {"webhook_budget_refusals_total"},
	} {
		if got := m.Value(c[0], c[1:]...); got != 0 {
			t.Errorf("%v = %v, want a series at 0", c, got)
		}
	}
	if got := m.Value("webhook_deadletter_total", "stop_reason", "delivered"); got != -1 {
		t.Errorf("webhook_deadletter_total{stop_reason=delivered} exists (%v): delivered is its own counter", got)
	}
}

func TestCountersMoveOnlyByTheEnginesDeltasAndRefuseNamesOutsideTheTables(t *testing.T) {
	m := New()
	for _, c := range []struct {
		name, value string
		delta       uint64
	}{
		{"webhook_endpoint_disable_signals_total", "", 1},
		{"webhook_transport_errors_total", string(httpoutcome.ConnectTimeout), 2},
		{"webhook_holds_total", "paused", 3},
	} {
		if err := m.Count(c.name, c.value, c.delta); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Value("webhook_endpoint_disable_signals_total"); got != 1 {
		t.Errorf("disable signals %v, want 1", got)
	}
	if got := m.Value("webhook_transport_errors_total", "kind", string(httpoutcome.ConnectTimeout)); got != 2 {
		t.Errorf("connect_timeout %v, want 2", got)
	}
	if got := m.Value("webhook_holds_total", "reason", "paused"); got != 3 {
		t.Errorf("paused holds %v, want 3", got)
	}
	if err := m.SetGauge("webhook_held_events", 4); err != nil || m.Value("webhook_held_events") != 4 {
		t.Errorf("held gauge %v (%v), want 4", m.Value("webhook_held_events"), err)
	}
	for _, bad := range [][2]string{{"webhook_nope_total", ""}, {"webhook_attempts_total", "third"}, {"webhook_attempts_total", ""}} {
		if err := m.Count(bad[0], bad[1], 1); err == nil {
			t.Errorf("%v was counted", bad)
		}
	}
	if err := m.SetGauge("webhook_in_flight", 1); err == nil {
		t.Error("webhook_in_flight is the host's gauge, not the engine's")
	}
}

func TestInFlightCountsAnAttemptUntilItEnds(t *testing.T) {
	m := New()
	done := m.InFlight()
	if got := m.Value("webhook_in_flight"); got != 1 {
		t.Errorf("in flight %v, want 1", got)
	}
	done()
	if got := m.Value("webhook_in_flight"); got != 0 {
		t.Errorf("in flight %v after the attempt, want 0", got)
	}
}
