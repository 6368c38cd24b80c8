package retrypolicy

import (
	"context"
	"encoding/json"
	"fmt"
)

// MetricsSchema is the dispatcher's metrics schema (docs/metrics.md, "The
// schema as data"): every family a dispatcher exports, in that page's
// order, as the component's metrics-schema export gives it. A dispatcher
// registers its Prometheus client's families from it and keeps no list of
// its own.
type MetricsSchema struct {
	Format   int            `json:"format"` // 1
	Families []MetricFamily `json:"families"`
}

// MetricFamily is one family: its sample name (a counter's with its
// _total), Prometheus type, help text, labels and, for a histogram, its
// bucket upper bounds in seconds (+Inf implied).
type MetricFamily struct {
	Name     string        `json:"name"`
	Type     string        `json:"type"` // MetricCounter, MetricGauge, MetricHistogram
	Help     string        `json:"help"`
	Labels   []MetricLabel `json:"labels"`
	BucketsS []float64     `json:"buckets_s"`
	MovedBy  string        `json:"moved_by"` // MovedByEngine, MovedByHost
}

// MetricLabel is one label of a family: its name and its closed set of
// values (each series exists at 0 from the first scrape), nil when the
// label is open (any value, e.g. an artifact's sha256).
type MetricLabel struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// A family's type and who moves it, as the schema spells them.
const (
	MetricCounter   = "counter"
	MetricGauge     = "gauge"
	MetricHistogram = "histogram"
	// MovedByEngine: the family moves only by the delivery engine's count
	// and gauge actions (docs/engine.md); MovedByHost: by the host's own
	// code (the time of an HTTP attempt or a store call, attempts in
	// flight, artifact reloads and the artifact's info).
	MovedByEngine = "engine"
	MovedByHost   = "host"
)

// MetricsSchemaError is a metrics schema this host cannot read: not JSON,
// an unknown format, or a family it cannot register.
type MetricsSchemaError struct{ Message string }

func (e *MetricsSchemaError) Error() string { return "metrics schema: " + e.Message }

// LabelNames are the family's label names, in order.
func (f MetricFamily) LabelNames() []string {
	names := make([]string, len(f.Labels))
	for i, l := range f.Labels {
		names[i] = l.Name
	}
	return names
}

// MetricsSchema calls the export metrics-schema on the running artifact and
// parses it. A text this host cannot read is a *MetricsSchemaError.
func (e *Engine) MetricsSchema(ctx context.Context) (MetricsSchema, error) {
	text, err := onInstance(ctx, e, nil, "metrics-schema", func(in *instance) (string, error) { return in.callMetricsSchema(ctx) })
	if err != nil {
		return MetricsSchema{}, err
	}
	return ParseMetricsSchema([]byte(text))
}

// ParseMetricsSchema reads the metrics-schema export's JSON text: format 1,
// at least one family, each of a known type and mover, with buckets if and
// only if it is a histogram. What a Prometheus client refuses (a name twice,
// an invalid name, unordered buckets) is the registering host's to report.
func ParseMetricsSchema(text []byte) (MetricsSchema, error) {
	var s MetricsSchema
	if err := json.Unmarshal(text, &s); err != nil {
		return MetricsSchema{}, &MetricsSchemaError{"not the JSON of a schema: " + err.Error()}
	}
	if s.Format != 1 || len(s.Families) == 0 {
		return MetricsSchema{}, &MetricsSchemaError{fmt.Sprintf("format %d with %d families: this host reads format 1", s.Format, len(s.Families))}
	}
	for _, f := range s.Families {
		bad := func(format string, args ...any) error {
			return &MetricsSchemaError{fmt.Sprintf("family %q: ", f.Name) + fmt.Sprintf(format, args...)}
		}
		switch {
		case f.Type != MetricCounter && f.Type != MetricGauge && f.Type != MetricHistogram:
			return MetricsSchema{}, bad("type %q is not counter, gauge or histogram", f.Type)
		case f.MovedBy != MovedByEngine && f.MovedBy != MovedByHost:
			return MetricsSchema{}, bad("moved_by %q is not engine or host", f.MovedBy)
		case (f.Type == MetricHistogram) != (len(f.BucketsS) > 0):
			return MetricsSchema{}, bad("buckets_s %v on a %s", f.BucketsS, f.Type)
		}
	}
	return s, nil
}
