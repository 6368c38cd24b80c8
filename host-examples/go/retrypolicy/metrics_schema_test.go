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
	info, held, store := s.Families[16], s.Families[13], s.Families[8]
	if info.Name != "webhook_policy_info" || held.Name != "webhook_held_events" || info.Labels[0].Values != nil || info.MovedBy != rp.MovedByHost || held.MovedBy != rp.MovedByEngine ||
		store.Type != rp.MetricHistogram || len(store.BucketsS) != 11 || store.BucketsS[0] != 0.0005 {
		t.Errorf("policy_info %+v\nheld %+v\nstore %+v", info, held, store)
	}
}

func TestAMetricsSchemaThisHostCannotReadIsAMetricsSchemaError(t *testing.T) {
	for _, text := range []string{
		``, `[]`, `{"format":2,"families":[]}`, `{"format":1,"families":[]}`,
		`{"format":1,"families":[{"name":"a","type":"summary","moved_by":"host"}]}`,
		`{"format":1,"families":[{"name":"a","type":"counter","moved_by":"nobody"}]}`,
		`{"format":1,"families":[{"name":"a","type":"counter","moved_by":"host","buckets_s":[1]}]}`,
		`{"format":1,"families":[{"name":"a","type":"histogram","moved_by":"host"}]}`,
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
