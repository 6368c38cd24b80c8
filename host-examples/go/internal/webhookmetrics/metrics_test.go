package webhookmetrics

import (
	"context"
	"errors"
	"testing"
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
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

func TestTheStoreWrapperCountsARefusedReserveButNotARecordOrAnError(t *testing.T) {
	m := New()
	reply := rp.Reservation{Reserved: false}
	var fail error
	store := m.Store(rp.BudgetStoreFunc(func(context.Context, rp.StoreRequest, rp.Budget, uint64) (rp.Reservation, error) {
		time.Sleep(time.Millisecond)
		return reply, fail
	}))
	ctx := context.Background()
	_, _ = store.Call(ctx, rp.StoreRequest{Op: rp.StoreOpRecord}, rp.Budget{}, 0)
	_, _ = store.Call(ctx, rp.StoreRequest{Op: rp.StoreOpReserve}, rp.Budget{}, 0)
	_, _ = store.Call(ctx, rp.StoreRequest{Op: rp.StoreOpRecordReserve}, rp.Budget{}, 0)
	reply.Reserved = true
	_, _ = store.Call(ctx, rp.StoreRequest{Op: rp.StoreOpReserve}, rp.Budget{}, 0)
	reply.Reserved, fail = false, errors.New("down")
	_, _ = store.Call(ctx, rp.StoreRequest{Op: rp.StoreOpReserve}, rp.Budget{}, 0)
	if got := m.Value("webhook_budget_refusals_total"); got != 2 {
		t.Errorf("webhook_budget_refusals_total = %v, want 2", got)
	}
	fams, _ := m.registry.Gather()
	for _, f := range fams {
		if f.GetName() == "webhook_budget_store_duration_seconds" {
			h := f.GetMetric()[0].GetHistogram()
			if h.GetSampleCount() != 5 || h.GetSampleSum() < 0.005 {
				t.Errorf("store duration: %d calls, %v s; want 5 calls of at least 1 ms", h.GetSampleCount(), h.GetSampleSum())
			}
		}
	}
}

func TestA410IsADisableSignalAndATransportErrorIsCountedByKind(t *testing.T) {
	m := New()
	m.AttemptEnded(rp.ResponseOutcome(410))
	m.AttemptEnded(rp.ResponseOutcome(503))
	m.AttemptEnded(httpoutcome.Failed(httpoutcome.ConnectTimeout))
	if got := m.Value("webhook_endpoint_disable_signals_total"); got != 1 {
		t.Errorf("disable signals %v, want 1", got)
	}
	if got := m.Value("webhook_transport_errors_total", "kind", string(httpoutcome.ConnectTimeout)); got != 1 {
		t.Errorf("connect_timeout %v, want 1", got)
	}
	done := m.InFlight()
	if got := m.Value("webhook_in_flight"); got != 1 {
		t.Errorf("in flight %v, want 1", got)
	}
	done()
	if got := m.Value("webhook_in_flight"); got != 0 {
		t.Errorf("in flight %v after the attempt, want 0", got)
	}
}
