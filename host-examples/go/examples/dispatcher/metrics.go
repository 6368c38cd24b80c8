package main

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Metrics are the dispatcher's Prometheus metrics, in their own registry.
type Metrics struct {
	registry    *prometheus.Registry
	deadLetters *prometheus.CounterVec
	delivered   prometheus.Counter
}

// NewMetrics registers webhook_deadletter_total{stop_reason} (every
// reason but delivered starts at 0, so dashboards see them all) and
// webhook_delivered_total.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		deadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "webhook_deadletter_total",
			Help: "Events dead-lettered, by the policy's stop reason.",
		}, []string{"stop_reason"}),
		delivered: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "webhook_delivered_total",
			Help: "Events delivered.",
		}),
	}
	m.registry.MustRegister(m.deadLetters, m.delivered)
	for _, r := range rp.StopReasons() {
		if r != rp.Delivered {
			m.deadLetters.WithLabelValues(r.String())
		}
	}
	return m
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	return mux
}
