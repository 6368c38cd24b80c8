package retrypolicy_test

import (
	"context"
	"errors"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestTheArtifactsMetricsSchemaIsDocsMetricsMdsSeventeenFamiliesInOrder(t *testing.T) {
	s, err := newEngine(t).MetricsSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != 1 || len(s.Families) != 17 || s.Families[0].Name != "webhook_attempts_total" || s.Families[16].Name != "webhook_policy_info" {
		t.Fatalf("format %d, %d families: %+v", s.Format, len(s.Families), s.Families)
	}
	info, _ := s.Family("webhook_policy_info")
	held, _ := s.Family("webhook_held_events")
	store, _ := s.Family("webhook_budget_store_duration_seconds")
	if info.Labels[0].Values != nil || info.MovedBy != rp.MovedByHost || held.MovedBy != rp.MovedByEngine ||
		store.Type != rp.MetricHistogram || len(store.BucketsS) != 11 || store.BucketsS[0] != 0.0005 {
		t.Errorf("policy_info %+v\nheld %+v\nstore %+v", info, held, store)
	}
	if _, ok := s.Family("webhook_nope_total"); ok {
		t.Error("found a family not in the schema")
	}
}

func TestAMetricsSchemaThisHostCannotReadIsAMetricsSchemaError(t *testing.T) {
	for _, text := range []string{
		``, `[]`, `{"format":2,"families":[]}`, `{"format":1,"families":[]}`,
		`{"format":1,"families":[{"name":"a","type":"summary","moved_by":"host"}]}`,
		`{"format":1,"families":[{"name":"a","type":"counter","moved_by":"nobody"}]}`,
		`{"format":1,"families":[{"name":"a","type":"counter","moved_by":"host","buckets_s":[1]}]}`,
		`{"format":1,"families":[{"name":"a","type":"histogram","moved_by":"host"}]}`,
		`{"format":1,"families":[{"name":"a","type":"histogram","moved_by":"host","buckets_s":[1,1]}]}`,
		`{"format":1,"families":[{"name":"a","type":"counter","moved_by":"host","labels":[{"name":"k","values":[]}]}]}`,
		`{"format":1,"families":[{"name":"a","type":"counter","moved_by":"host","labels":[{"name":"k"},{"name":"k"}]}]}`,
		`{"format":1,"families":[{"name":"a","type":"gauge","moved_by":"host"},{"name":"a","type":"gauge","moved_by":"host"}]}`,
	} {
		_, err := rp.ParseMetricsSchema([]byte(text))
		var se *rp.MetricsSchemaError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a *MetricsSchemaError", text, err)
		}
	}
	s, err := rp.ParseMetricsSchema([]byte(`{"format":1,"families":[{"name":"a","type":"gauge","help":"h","labels":[{"name":"k","values":null}],"buckets_s":[],"moved_by":"engine"}]}`))
	if err != nil || s.Families[0].Labels[0].Values != nil || s.Families[0].LabelNames()[0] != "k" {
		t.Errorf("%+v %v", s, err)
	}
}
