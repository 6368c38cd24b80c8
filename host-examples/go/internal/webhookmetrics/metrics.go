// Package webhookmetrics is docs/metrics.md for the Go dispatcher: every
// family of the artifact's metrics schema (retrypolicy.MetricsSchema, the
// component's metrics-schema export), with its type, help, labels and
// buckets, in a private client_golang registry, every closed label set
// present from the first scrape with 0, and no other webhook_* family.
// This package keeps no list of names, help texts, label values or
// buckets. The families the schema marks moved_by engine move ONLY by the
// delivery engine's deltas (Count, SetGauge: its count and gauge actions,
// docs/engine.md section 13); the host moves the others: the histograms
// and webhook_in_flight measure its own I/O, webhook_policy_info and
// webhook_policy_reloads_total are Info's (ShowPolicy, policyinfo.go).
package webhookmetrics

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The families the host moves itself: it names them to find them in the
// schema; their help, labels and buckets are the schema's.
const (
	storeDuration    = "webhook_budget_store_duration_seconds"
	deliveryDuration = "webhook_delivery_duration_seconds"
	inFlight         = "webhook_in_flight"
	policyInfo       = "webhook_policy_info"
	policyReloads    = "webhook_policy_reloads_total"
)

// hostFamilies are the families the host code moves, as it moves them
// (their label names are Info's).
var hostFamilies = []struct {
	name   string
	typ    rp.MetricType
	labels []string
}{
	{storeDuration, rp.MetricTypeHistogram, []string{}}, {deliveryDuration, rp.MetricTypeHistogram, []string{}},
	{inFlight, rp.MetricTypeGauge, []string{}}, {policyReloads, rp.MetricTypeCounter, []string{"result"}},
	{policyInfo, rp.MetricTypeGauge, []string{"artifact_sha256", "abi", "document_version"}},
}

// Metrics are one dispatcher's families. Every method is safe for
// concurrent use.
type Metrics struct {
	registry *prometheus.Registry
	families map[string]family
	// the host's own series
	storeDuration, deliveryDuration prometheus.Observer
	inFlight                        prometheus.Gauge
}

// family is one registered family: its row of the schema and its vector
// (a *prometheus.CounterVec, *GaugeVec or *HistogramVec).
type family struct {
	spec   rp.MetricFamily
	vector prometheus.Collector
}

// FromSchema registers every family of schema (the artifact's, read once at
// start: Engine.MetricsSchema) in a new private registry, each closed
// label set at 0. A schema without a family this host moves, or with one
// client_golang refuses, is an error.
func FromSchema(schema rp.MetricsSchema) (_ *Metrics, err error) {
	m := &Metrics{registry: prometheus.NewRegistry(), families: map[string]family{}}
	at := ""
	defer func() { // client_golang panics on a series it cannot make (unordered buckets, a histogram's label le)
		if r := recover(); r != nil {
			err = fmt.Errorf("webhookmetrics: %s: %v", at, r)
		}
	}()
	for _, f := range schema.Families {
		at = f.Name
		v := vector(f)
		if err := m.registry.Register(v); err != nil {
			return nil, fmt.Errorf("webhookmetrics: %s: %w", f.Name, err)
		}
		for _, values := range closedSets(f.Labels) {
			series(v, values)
		}
		m.families[f.Name] = family{f, v}
	}
	for _, host := range hostFamilies {
		f, ok := m.families[host.name]
		if !ok || f.spec.Type != host.typ || f.spec.MovedBy != rp.MovedByHost || fmt.Sprint(f.spec.LabelNames()) != fmt.Sprint(host.labels) {
			return nil, fmt.Errorf("webhookmetrics: the schema has no host-moved %s %s%v", host.typ, host.name, host.labels)
		}
	}
	m.storeDuration = m.families[storeDuration].vector.(*prometheus.HistogramVec).WithLabelValues()
	m.deliveryDuration = m.families[deliveryDuration].vector.(*prometheus.HistogramVec).WithLabelValues()
	m.inFlight = m.families[inFlight].vector.(*prometheus.GaugeVec).WithLabelValues()
	return m, nil
}

// vector is the client_golang vector of family f (no series yet).
func vector(f rp.MetricFamily) prometheus.Collector {
	labels := f.LabelNames()
	switch f.Type {
	case rp.MetricTypeCounter:
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: f.Name, Help: f.Help}, labels)
	case rp.MetricTypeGauge:
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: f.Name, Help: f.Help}, labels)
	default: // rp.MetricTypeHistogram (the enum has no other)
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: f.Name, Help: f.Help, Buckets: f.BucketsS}, labels)
	}
}

// closedSets is every combination of the labels' closed values (one empty
// set for no label), none when a label is open: the series to create at 0.
func closedSets(labels []rp.MetricLabel) [][]string {
	sets := [][]string{{}}
	for _, l := range labels {
		if l.Values == nil {
			return nil
		}
		next := [][]string{}
		for _, set := range sets {
			for _, v := range l.Closed() {
				next = append(next, append(append([]string{}, set...), v))
			}
		}
		sets = next
	}
	return sets
}

// series creates the series of v with these label values (at 0).
func series(v prometheus.Collector, values []string) {
	switch v := v.(type) {
	case *prometheus.CounterVec:
		v.WithLabelValues(values...)
	case *prometheus.GaugeVec:
		v.WithLabelValues(values...)
	case *prometheus.HistogramVec:
		v.WithLabelValues(values...)
	}
}

// engineFamily is the engine-moved family name of type typ whose series
// value names ("" for a family with no label), or why there is none: a
// name or label value outside the schema (its closed sets never grow).
func (m *Metrics) engineFamily(name string, typ rp.MetricType, value string) (family, error) {
	f, ok := m.families[name]
	if !ok || f.spec.Type != typ || f.spec.MovedBy != rp.MovedByEngine {
		return family{}, fmt.Errorf("webhookmetrics: no %s %q the engine moves in the artifact's metrics schema", typ, name)
	}
	labels := f.spec.Labels
	if len(labels) > 1 || (len(labels) == 0) != (value == "") || (len(labels) == 1 && !slices.Contains(labels[0].Closed(), value)) {
		return family{}, fmt.Errorf("webhookmetrics: %s: label value %q is not in the schema's closed set", name, value)
	}
	return f, nil
}

// values is value as a series' label values ("": none).
func values(value string) []string {
	if value == "" {
		return nil
	}
	return []string{value}
}

// Count moves counter name (its label's value, "" for none) by delta: an
// engine count action. A name or label value outside the schema is an
// error and moves nothing.
func (m *Metrics) Count(name, value string, delta uint64) error {
	f, err := m.engineFamily(name, rp.MetricTypeCounter, value)
	if err != nil {
		return err
	}
	f.vector.(*prometheus.CounterVec).WithLabelValues(values(value)...).Add(float64(delta))
	return nil
}

// SetGauge sets gauge name: an engine gauge action.
func (m *Metrics) SetGauge(name string, value uint64) error {
	f, err := m.engineFamily(name, rp.MetricTypeGauge, "")
	if err != nil {
		return err
	}
	f.vector.(*prometheus.GaugeVec).WithLabelValues().Set(float64(value))
	return nil
}

// ClosedValues are the closed values of family name's one label, in the
// schema's order (nil for none): e.g. the engine's hold reasons.
func (m *Metrics) ClosedValues(name string) []string {
	if l := m.families[name].spec.Labels; len(l) == 1 {
		return l[0].Closed()
	}
	return nil
}

// ShowPolicy returns what logs the artifact's load, swaps and refusals on
// log and moves webhook_policy_info and webhook_policy_reloads_total;
// documentVersion names the current document's version (nil: the
// artifact's own document's).
func (m *Metrics) ShowPolicy(log io.Writer, documentVersion func(rp.ArtifactInfo) string) *Info {
	if documentVersion == nil {
		documentVersion = func(a rp.ArtifactInfo) string { return a.DocumentVersion }
	}
	return &Info{gauge: m.families[policyInfo].vector.(*prometheus.GaugeVec),
		reloads: m.families[policyReloads].vector.(*prometheus.CounterVec), log: log, documentVersion: documentVersion}
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
