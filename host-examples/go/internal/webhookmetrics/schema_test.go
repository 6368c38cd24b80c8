package webhookmetrics

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// embeddedSchema is the metrics schema of the artifact embedded in
// package retrypolicy, read once for every test.
var embeddedSchema = sync.OnceValues(func() (rp.MetricsSchema, error) {
	ctx := context.Background()
	engine, err := rp.New(ctx)
	if err != nil {
		return rp.MetricsSchema{}, err
	}
	defer engine.Close(ctx)
	return engine.MetricsSchema(ctx)
})

// New is the tests' Metrics: FromSchema on the embedded artifact's schema.
func New() *Metrics {
	schema, err := embeddedSchema()
	if err != nil {
		panic(err)
	}
	m, err := FromSchema(schema)
	if err != nil {
		panic(err)
	}
	return m
}

// describe is a gathered family as the schema would spell it.
func describe(f *dto.MetricFamily) string {
	labels := []string{}
	buckets := []float64{}
	for i, s := range f.GetMetric() {
		for _, l := range s.GetLabel() {
			if i == 0 {
				labels = append(labels, l.GetName())
			}
		}
		if i == 0 && s.GetHistogram() != nil {
			for _, b := range s.GetHistogram().GetBucket() {
				buckets = append(buckets, b.GetUpperBound())
			}
		}
	}
	return fmt.Sprintf("%s %s %q labels %v buckets %v", f.GetName(), strings.ToLower(f.GetType().String()), f.GetHelp(), labels, buckets)
}

func TestTheRegistrysFamiliesAreTheSchemasWithTheirHelpLabelsAndBuckets(t *testing.T) {
	schema, err := embeddedSchema()
	if err != nil {
		t.Fatal(err)
	}
	m := New()
	m.ShowPolicy(io.Discard, nil).Loaded(rp.ArtifactInfo{SHA256: strings.Repeat("a", 64), ABI: rp.ABI})
	gathered, err := m.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range gathered {
		got[f.GetName()] = describe(f)
	}
	want := map[string]string{}
	for _, f := range schema.Families {
		labels := slices.Sorted(slices.Values(f.LabelNames())) // gathered series sort their labels
		want[f.Name] = fmt.Sprintf("%s %s %q labels %v buckets %v", f.Name, f.Type, f.Help, labels, append([]float64{}, f.BucketsS...))
		if got[f.Name] != want[f.Name] {
			t.Errorf("registered: %s\n     schema: %s", got[f.Name], want[f.Name])
		}
		for _, l := range f.Labels {
			for _, v := range l.Closed() {
				if m.Value(f.Name, l.Name, v) != 0 {
					t.Errorf("%s{%s=%q} is not there at 0", f.Name, l.Name, v)
				}
			}
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is registered but not in the schema", name)
		}
	}
	if len(schema.Families) != 17 || len(got) != len(want) {
		t.Errorf("%d families registered, the schema has %d (docs/metrics.md: 17)", len(got), len(schema.Families))
	}
	if !slices.Equal(m.ClosedValues("webhook_holds_total"), []string{"paused", "circuit_open", "probe_refused", "release_pacing", "budget_refused"}) {
		t.Errorf("hold reasons %v", m.ClosedValues("webhook_holds_total"))
	}
}

func TestASchemaWithoutAFamilyTheHostMovesOrOneClientGolangRefusesIsAnErrorNotACrash(t *testing.T) {
	schema, err := embeddedSchema()
	if err != nil {
		t.Fatal(err)
	}
	for _, drop := range []string{"webhook_delivery_duration_seconds", "webhook_policy_info"} {
		cut := rp.MetricsSchema{}
		for _, f := range schema.Families {
			if f.Name != drop {
				cut.Families = append(cut.Families, f)
			}
		}
		if _, err := FromSchema(cut); err == nil || !strings.Contains(err.Error(), drop) {
			t.Errorf("without %s: %v", drop, err)
		}
	}
	for why, extra := range map[string]rp.MetricFamily{
		"a histogram labelled le": {Name: "webhook_x_seconds", Type: rp.MetricTypeHistogram,
			Labels: []rp.MetricLabel{{Name: "le", Values: &[]string{"1"}}}, BucketsS: []float64{1}, MovedBy: rp.MovedByHost},
		"unordered buckets": {Name: "webhook_x_seconds", Type: rp.MetricTypeHistogram, BucketsS: []float64{2, 1}, MovedBy: rp.MovedByHost},
		"a label twice": {Name: "webhook_x_total", Type: rp.MetricTypeCounter,
			Labels: []rp.MetricLabel{{Name: "k", Values: &[]string{"a"}}, {Name: "k", Values: &[]string{"b"}}}, MovedBy: rp.MovedByEngine},
		"a family twice": {Name: "webhook_in_flight", Type: rp.MetricTypeGauge, MovedBy: rp.MovedByHost},
	} {
		bad := rp.MetricsSchema{Families: append(slices.Clone(schema.Families), extra)}
		if _, err := FromSchema(bad); err == nil || !strings.Contains(err.Error(), extra.Name) {
			t.Errorf("%s: %v", why, err)
		}
	}
	withoutEngineCounter := rp.MetricsSchema{}
	for _, f := range schema.Families {
		if f.Name != "webhook_replayed_total" {
			withoutEngineCounter.Families = append(withoutEngineCounter.Families, f)
		}
	}
	m, err := FromSchema(withoutEngineCounter)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Count("webhook_replayed_total", "", 1); err == nil || m.Value("webhook_replayed_total") != -1 {
		t.Errorf("a count of a family not in the schema was taken (%v)", err)
	}
}
