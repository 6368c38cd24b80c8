// Package webhookmetrics is docs/metrics.md for the Go dispatcher: every
// family of the schema, with its labels, type and buckets, in a private
// client_golang registry, every closed label set present from the first
// scrape with 0, and no other webhook_* family. The counters and the
// held-events gauge move ONLY by the delivery engine's deltas (Count,
// SetGauge: its count and gauge actions, docs/engine.md section 13); the
// histograms and webhook_in_flight measure the host's own I/O;
// webhook_policy_info and webhook_policy_reloads_total are
// internal/policyinfo's, registered by ShowPolicy.
package webhookmetrics

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/httpoutcome"
	"example.invalid/webhook-retry-policy/host-examples/go/internal/policyinfo"
	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Histogram buckets (seconds, upper bounds; +Inf implied), docs/metrics.md.
var (
	StoreBuckets    = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}
	DeliveryBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}
)

// counter is one row of the engine's counter table (policy-core
// engine::COUNTERS): its name, help, label name and closed label values.
type counter struct {
	name, help, label string
	values            []string
}

// HoldReasons are why the engine holds an event (docs/health-dispatch.md
// section 3), the closed set of webhook_holds_total{reason} as
// docs/metrics.md lists it (ABI 1.0 has no WIT enum of them: the engine
// names them in its outputs).
var HoldReasons = []string{"paused", "circuit_open", "probe_refused", "release_pacing", "budget_refused"}

func counters() []counter {
	stops := []string{}
	for _, r := range rp.StopReasonValues() {
		if r != rp.StopReasonDelivered {
			stops = append(stops, r.String())
		}
	}
	kinds := []string{}
	for _, k := range httpoutcome.TransportKinds() {
		kinds = append(kinds, string(k))
	}
	holds := HoldReasons
	return []counter{
		{"webhook_attempts_total", "Delivery attempts the policy allowed and the dispatcher started (a destination_refused one included).", "kind", []string{"first", "retry"}},
		{"webhook_delivered_total", "Events delivered (a 2xx).", "", nil},
		{"webhook_deadletter_total", "Events dead-lettered, by the reason their retries stopped.", "stop_reason", stops},
		{"webhook_transport_errors_total", "Attempts that ended without a response, by transport kind (fleet/transport-kinds.json).", "kind", kinds},
		{"webhook_endpoint_disable_signals_total", "410 Gone responses: the receiver asks to be disabled.", "", nil},
		{"webhook_budget_refusals_total", "Retries the fleet budget refused (the store's verdict reserved = false).", "", nil},
		{"webhook_budget_disagreements_total", "Store replies whose verdict differs from the policy's rule on the same counts (the store's verdict stands).", "", nil},
		{"webhook_budget_store_errors_total", "Budget store calls that failed or timed out (those retries fail closed: budget_unavailable).", "", nil},
		{"webhook_holds_total", "Holds started (format 3): the event waits, spending no attempt, by reason.", "reason", holds},
		{"webhook_probe_calls_total", "Probe store calls made because the gate asked (an open circuit after its cooldown).", "granted", []string{"true", "false", "error"}},
		{"webhook_replayed_total", "Dead letters replayed as new events.", "", nil},
	}
}

// Metrics are one dispatcher's families. Every method is safe for
// concurrent use.
type Metrics struct {
	registry         *prometheus.Registry
	counters         map[string]*prometheus.CounterVec // by name; no label: one series with no label values
	closed           map[string]map[string]bool        // a labelled counter's closed label values
	held             prometheus.Gauge
	storeDuration    prometheus.Histogram
	deliveryDuration prometheus.Histogram
	inFlight         prometheus.Gauge
}

// New registers every family but the policy's in a new private registry
// (ShowPolicy adds those).
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		counters: map[string]*prometheus.CounterVec{},
		closed:   map[string]map[string]bool{},
		held: prometheus.NewGauge(prometheus.GaugeOpts{Name: "webhook_held_events",
			Help: "Events held now (journaled as held)."}),
		storeDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "webhook_budget_store_duration_seconds",
			Help: "One budget store call, from the request to the reply or the error.", Buckets: StoreBuckets}),
		deliveryDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "webhook_delivery_duration_seconds",
			Help:    "One HTTP attempt, from the start of its connection to the end of the response body read or the transport error.",
			Buckets: DeliveryBuckets}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "webhook_in_flight",
			Help: "HTTP attempts in progress now."}),
	}
	m.registry.MustRegister(m.held, m.storeDuration, m.deliveryDuration, m.inFlight)
	for _, c := range counters() {
		labels := []string{}
		if c.label != "" {
			labels = []string{c.label}
		}
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: c.name, Help: c.help}, labels)
		m.registry.MustRegister(v)
		m.counters[c.name] = v
		if c.label == "" {
			v.WithLabelValues()
		}
		for _, value := range c.values {
			v.WithLabelValues(value)
			if m.closed[c.name] == nil {
				m.closed[c.name] = map[string]bool{}
			}
			m.closed[c.name][value] = true
		}
	}
	return m
}

// Count moves counter name (its label's value, "" for none) by delta: an
// engine count action. A name or label value outside docs/metrics.md's
// tables is an error (the family's closed set never grows).
func (m *Metrics) Count(name, value string, delta uint64) error {
	v, ok := m.counters[name]
	if !ok {
		return fmt.Errorf("webhookmetrics: no counter %q", name)
	}
	closed := m.closed[name]
	if (closed == nil) != (value == "") || (closed != nil && !closed[value]) {
		return fmt.Errorf("webhookmetrics: %s: label value %q is not in docs/metrics.md's closed set", name, value)
	}
	if value == "" {
		v.WithLabelValues().Add(float64(delta))
	} else {
		v.WithLabelValues(value).Add(float64(delta))
	}
	return nil
}

// SetGauge sets gauge name: an engine gauge action.
func (m *Metrics) SetGauge(name string, value uint64) error {
	if name != "webhook_held_events" {
		return fmt.Errorf("webhookmetrics: no gauge %q", name)
	}
	m.held.Set(float64(value))
	return nil
}

// ShowPolicy registers webhook_policy_info and webhook_policy_reloads_total
// (call it once) and returns what logs the artifact's load, swaps and
// refusals on log and moves them; documentVersion names the current
// document's version (nil: the artifact's own document's).
func (m *Metrics) ShowPolicy(log io.Writer, documentVersion func(rp.ArtifactInfo) string) *policyinfo.Info {
	return policyinfo.New(m.registry, log, documentVersion)
}

// Handler serves GET /metrics from the private registry.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	return mux
}

// Value is the current value of one counter or gauge series (labels as
// name, value pairs), -1 when there is none: for tests and logs.
func (m *Metrics) Value(family string, labels ...string) float64 {
	fams, err := m.registry.Gather()
	if err != nil {
		return -1
	}
	for _, f := range fams {
		if f.GetName() != family {
			continue
		}
	series:
		for _, s := range f.GetMetric() {
			if len(s.GetLabel())*2 != len(labels) {
				continue
			}
			for i, l := range s.GetLabel() {
				if l.GetName() != labels[2*i] || l.GetValue() != labels[2*i+1] {
					continue series
				}
			}
			if s.GetCounter() != nil {
				return s.GetCounter().GetValue()
			}
			return s.GetGauge().GetValue()
		}
	}
	return -1
}

// InFlight counts one HTTP attempt in progress until the returned func is called.
func (m *Metrics) InFlight() (done func()) {
	m.inFlight.Inc()
	return m.inFlight.Dec
}

// ObserveDelivery is a safehttp.Options.Observe: one attempt's duration.
func (m *Metrics) ObserveDelivery(d time.Duration) { m.deliveryDuration.Observe(d.Seconds()) }

// ObserveStore is one budget store call's duration.
func (m *Metrics) ObserveStore(d time.Duration) { m.storeDuration.Observe(d.Seconds()) }
