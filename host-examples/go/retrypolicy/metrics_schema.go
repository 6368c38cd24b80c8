package retrypolicy

import (
	"bytes"
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

// Family is the family named name (a sample name), ok false when the
// schema has none.
func (s MetricsSchema) Family(name string) (f MetricFamily, ok bool) {
	for _, f := range s.Families {
		if f.Name == name {
			return f, true
		}
	}
	return MetricFamily{}, false
}

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
// each family named once, with a known type and mover, distinct label
// names and non-empty closed sets, increasing buckets on histograms only.
func ParseMetricsSchema(text []byte) (MetricsSchema, error) {
	var s MetricsSchema
	d := json.NewDecoder(bytes.NewReader(text))
	if err := d.Decode(&s); err != nil {
		return MetricsSchema{}, &MetricsSchemaError{"not the JSON of a schema: " + err.Error()}
	}
	if s.Format != 1 {
		return MetricsSchema{}, &MetricsSchemaError{fmt.Sprintf("format %d: this host reads format 1", s.Format)}
	}
	seen := map[string]bool{}
	for _, f := range s.Families {
		if err := f.check(); err != nil {
			return MetricsSchema{}, err
		}
		if seen[f.Name] {
			return MetricsSchema{}, &MetricsSchemaError{fmt.Sprintf("family %q twice", f.Name)}
		}
		seen[f.Name] = true
	}
	if len(s.Families) == 0 {
		return MetricsSchema{}, &MetricsSchemaError{"no families"}
	}
	return s, nil
}

func (f MetricFamily) check() error {
	bad := func(format string, args ...any) error {
		return &MetricsSchemaError{fmt.Sprintf("family %q: ", f.Name) + fmt.Sprintf(format, args...)}
	}
	switch {
	case f.Name == "":
		return bad("no name")
	case f.Type != MetricCounter && f.Type != MetricGauge && f.Type != MetricHistogram:
		return bad("type %q is not counter, gauge or histogram", f.Type)
	case f.MovedBy != MovedByEngine && f.MovedBy != MovedByHost:
		return bad("moved_by %q is not engine or host", f.MovedBy)
	case (f.Type == MetricHistogram) != (len(f.BucketsS) > 0):
		return bad("buckets_s %v on a %s", f.BucketsS, f.Type)
	}
	for i := 1; i < len(f.BucketsS); i++ {
		if !(f.BucketsS[i-1] < f.BucketsS[i]) {
			return bad("buckets_s %v are not increasing", f.BucketsS)
		}
	}
	names := map[string]bool{}
	for _, l := range f.Labels {
		if l.Name == "" || names[l.Name] {
			return bad("label %q is empty or twice", l.Name)
		}
		names[l.Name] = true
		if l.Values != nil && len(l.Values) == 0 {
			return bad("label %q has an empty closed set", l.Name)
		}
	}
	return nil
}
