package retrypolicy

import "context"

// MetricsSchema is the dispatcher's metrics schema (docs/metrics.md, "The
// schema as data"): every family a dispatcher exports, in that page's
// order, as the component's metrics-schema export gives it, typed by the
// generated glue (MetricFamily, MetricLabel, MetricType, MovedBy). A
// dispatcher registers its Prometheus client's families from it and keeps
// no list of its own.
type MetricsSchema struct {
	Families []MetricFamily
}

// MetricsSchema calls the export metrics-schema on the running artifact.
func (e *Engine) MetricsSchema(ctx context.Context) (MetricsSchema, error) {
	families, err := onInstance(ctx, e, nil, "metrics-schema", func(in *instance) ([]MetricFamily, error) {
		return in.callMetricsSchema(ctx)
	})
	return MetricsSchema{Families: families}, err
}

// LabelNames are the family's label names, in order.
func (f MetricFamily) LabelNames() []string {
	names := make([]string, len(f.Labels))
	for i, l := range f.Labels {
		names[i] = l.Name
	}
	return names
}

// Closed is the label's closed set of values, nil when the label is open
// (any value, e.g. an artifact's sha256).
func (l MetricLabel) Closed() []string {
	if l.Values == nil {
		return nil
	}
	return *l.Values
}
