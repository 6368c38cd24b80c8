package webhookmetrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// healthFamilies are the format-3 families of docs/metrics.md
// (docs/health-dispatch.md section 5), exported at zero by a format-2
// dispatcher too.
type healthFamilies struct {
	holds      *prometheus.CounterVec
	held       prometheus.Gauge
	probeCalls *prometheus.CounterVec
	wakeCalls  prometheus.Counter
	replayed   prometheus.Counter
}

func newHealthFamilies(reg *prometheus.Registry) healthFamilies {
	h := healthFamilies{
		holds: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_holds_total",
			Help: "Holds started (format 3): the event waits, spending no attempt, by reason."}, []string{"reason"}),
		held: prometheus.NewGauge(prometheus.GaugeOpts{Name: "webhook_held_events",
			Help: "Events held now (journaled as held)."}),
		probeCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_probe_calls_total",
			Help: "Probe store calls made because the gate asked (an open circuit after its cooldown)."}, []string{"granted"}),
		wakeCalls: prometheus.NewCounter(prometheus.CounterOpts{Name: "webhook_wake_calls_total",
			Help: "Reserve calls made by budget-held events at their wake."}),
		replayed: prometheus.NewCounter(prometheus.CounterOpts{Name: "webhook_replayed_total",
			Help: "Dead letters replayed as new events."}),
	}
	reg.MustRegister(h.holds, h.held, h.probeCalls, h.wakeCalls, h.replayed)
	for _, r := range rp.HoldReasonValues() {
		h.holds.WithLabelValues(r.String())
	}
	for _, g := range []string{"true", "false", "error"} {
		h.probeCalls.WithLabelValues(g)
	}
	return h
}

// HoldStarted counts a hold that began, by reason.
func (m *Metrics) HoldStarted(reason rp.HoldReason) {
	m.health.holds.WithLabelValues(reason.String()).Inc()
}

// HeldNow moves the held-events gauge by delta (+1 a hold began on a
// free event, -1 it left its hold).
func (m *Metrics) HeldNow(delta int) { m.health.held.Add(float64(delta)) }

// SetHeld sets the held-events gauge (after a restart: the journal's held records).
func (m *Metrics) SetHeld(n int) { m.health.held.Set(float64(n)) }

// ProbeCalled counts a probe call: granted, refused, or failed (err).
func (m *Metrics) ProbeCalled(granted bool, err error) {
	label := "false"
	switch {
	case err != nil:
		label = "error"
	case granted:
		label = "true"
	}
	m.health.probeCalls.WithLabelValues(label).Inc()
}

// WakeCalled counts a budget-held event's reserve call at its wake.
func (m *Metrics) WakeCalled() { m.health.wakeCalls.Inc() }

// Replayed counts n dead letters replayed.
func (m *Metrics) Replayed(n int) { m.health.replayed.Add(float64(n)) }

// CallStore wraps a format-3 store: every call timed, every failure and
// every refused reserve counted, like Store.
func (m *Metrics) CallStore(s rp.CallStore) rp.CallStore {
	return callStoreFunc(func(ctx context.Context, call rp.StoreCall, nowMs uint64) (rp.CallReply, error) {
		start := time.Now()
		reply, err := s.Call(ctx, call, nowMs)
		m.storeDuration.Observe(time.Since(start).Seconds())
		if err != nil {
			m.storeErrors.Inc()
		} else if call.Op != rp.CallOpRecord && reply.Reservation != nil && !reply.Reservation.Reserved &&
			(call.Op == rp.CallOpReserve || call.Op == rp.CallOpRecordReserve) {
			m.budgetRefusals.Inc()
		}
		return reply, err
	})
}

type callStoreFunc func(ctx context.Context, call rp.StoreCall, nowMs uint64) (rp.CallReply, error)

func (f callStoreFunc) Call(ctx context.Context, call rp.StoreCall, nowMs uint64) (rp.CallReply, error) {
	return f(ctx, call, nowMs)
}
