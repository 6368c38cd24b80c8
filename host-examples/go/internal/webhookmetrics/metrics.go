// Package webhookmetrics is docs/metrics.md for the Go dispatchers (the
// fleet replica and the example dispatcher): every family of the schema,
// with its labels, type and buckets, in a private client_golang registry,
// every closed label set present from the first scrape with 0, and no
// other webhook_* family. webhook_policy_info and
// webhook_policy_reloads_total are internal/policyinfo's, registered by
// ShowPolicy.
package webhookmetrics

import (
	"context"
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

// Metrics are one dispatcher's families. Every method is safe for
// concurrent use.
type Metrics struct {
	registry         *prometheus.Registry
	attempts         *prometheus.CounterVec
	delivered        prometheus.Counter
	deadLetters      *prometheus.CounterVec
	transportErrors  *prometheus.CounterVec
	disableSignals   prometheus.Counter
	budgetRefusals   prometheus.Counter
	disagreements    prometheus.Counter
	storeErrors      prometheus.Counter
	storeDuration    prometheus.Histogram
	deliveryDuration prometheus.Histogram
	inFlight         prometheus.Gauge
	health           healthFamilies // format 3 (health.go)
}

// New registers every family but the policy's in a new private registry
// (ShowPolicy adds those).
func New() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_attempts_total",
			Help: "Delivery attempts the policy allowed and the dispatcher started (a destination_refused one included)."},
			[]string{"kind"}),
		delivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "webhook_delivered_total",
			Help: "Events delivered (a 2xx)."}),
		deadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_deadletter_total",
			Help: "Events dead-lettered, by the reason their retries stopped."}, []string{"stop_reason"}),
		transportErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_transport_errors_total",
			Help: "Attempts that ended without a response, by transport kind (fleet/transport-kinds.json)."},
			[]string{"kind"}),
		disableSignals: prometheus.NewCounter(prometheus.CounterOpts{Name: "webhook_endpoint_disable_signals_total",
			Help: "410 Gone responses: the receiver asks to be disabled."}),
		budgetRefusals: prometheus.NewCounter(prometheus.CounterOpts{Name: "webhook_budget_refusals_total",
			Help: "Retries the fleet budget refused (the store's verdict reserved = false)."}),
		disagreements: prometheus.NewCounter(prometheus.CounterOpts{Name: "webhook_budget_disagreements_total",
			Help: "Store replies whose verdict differs from the policy's rule on the same counts (the store's verdict stands)."}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "webhook_budget_store_errors_total",
			Help: "Budget store calls that failed or timed out (those retries fail closed: budget_unavailable)."}),
		storeDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "webhook_budget_store_duration_seconds",
			Help: "One budget store call, from the request to the reply or the error.", Buckets: StoreBuckets}),
		deliveryDuration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "webhook_delivery_duration_seconds",
			Help:    "One HTTP attempt, from the start of its connection to the end of the response body read or the transport error.",
			Buckets: DeliveryBuckets}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "webhook_in_flight",
			Help: "HTTP attempts in progress now."}),
	}
	m.registry.MustRegister(m.attempts, m.delivered, m.deadLetters, m.transportErrors, m.disableSignals,
		m.budgetRefusals, m.disagreements, m.storeErrors, m.storeDuration, m.deliveryDuration, m.inFlight)
	m.health = newHealthFamilies(m.registry)
	for _, kind := range []string{"first", "retry"} {
		m.attempts.WithLabelValues(kind)
	}
	for _, r := range rp.StopReasonValues() {
		if r != rp.StopReasonDelivered {
			m.deadLetters.WithLabelValues(r.String())
		}
	}
	for _, k := range httpoutcome.TransportKinds() {
		m.transportErrors.WithLabelValues(string(k))
	}
	return m
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

// AttemptStarted counts an attempt the policy allowed (attempt 1 is the first).
func (m *Metrics) AttemptStarted(attempt uint32) {
	kind := "retry"
	if attempt <= 1 {
		kind = "first"
	}
	m.attempts.WithLabelValues(kind).Inc()
}

// AttemptEnded counts how an attempt ended: its transport kind, or a 410.
func (m *Metrics) AttemptEnded(o rp.AttemptOutcome) {
	if k, ok := httpoutcome.KindOf(o); ok {
		m.transportErrors.WithLabelValues(string(k)).Inc()
		return
	}
	if o.Response != nil && o.Response.Status == http.StatusGone {
		m.disableSignals.Inc()
	}
}

// Stopped counts an event's stop: delivered, or dead-lettered by reason.
func (m *Metrics) Stopped(reason rp.StopReason) {
	if reason == rp.StopReasonDelivered {
		m.delivered.Inc()
		return
	}
	m.deadLetters.WithLabelValues(reason.String()).Inc()
}

// Stepped counts what a step reports: a failed store call, a disagreement.
func (m *Metrics) Stepped(res rp.StepResult) {
	if res.StoreErr != nil {
		m.storeErrors.Inc()
	}
	if res.BudgetDisagreement {
		m.disagreements.Inc()
	}
}

// InFlight counts one HTTP attempt in progress until the returned func is called.
func (m *Metrics) InFlight() (done func()) {
	m.inFlight.Inc()
	return m.inFlight.Dec
}

// ObserveDelivery is a safehttp.Options.Observe: one attempt's duration.
func (m *Metrics) ObserveDelivery(d time.Duration) { m.deliveryDuration.Observe(d.Seconds()) }

// Store wraps a budget store: every call's duration (the NOSCRIPT
// fallback inside one is the same call) and every reserve the store
// refused (reserved = false) are counted.
func (m *Metrics) Store(s rp.BudgetStore) rp.BudgetStore {
	return rp.BudgetStoreFunc(func(ctx context.Context, r rp.StoreRequest, b rp.Budget, nowMs uint64) (rp.Reservation, error) {
		start := time.Now()
		res, err := s.Call(ctx, r, b, nowMs)
		m.storeDuration.Observe(time.Since(start).Seconds())
		if err == nil && r.Op != rp.StoreOpRecord && !res.Reserved {
			m.budgetRefusals.Inc()
		}
		return res, err
	})
}
