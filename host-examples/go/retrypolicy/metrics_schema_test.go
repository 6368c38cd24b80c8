package retrypolicy_test

import (
	"context"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestTheArtifactsMetricsSchemaIsDocsMetricsMdsSeventeenFamiliesInOrder(t *testing.T) {
	s, err := newEngine(t).MetricsSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Families) != 17 || s.Families[0].Name != "webhook_attempts_total" || s.Families[16].Name != "webhook_policy_info" {
		t.Fatalf("%d families: %+v", len(s.Families), s.Families)
	}
	info, held, store := s.Families[16], s.Families[13], s.Families[8]
	if info.Name != "webhook_policy_info" || held.Name != "webhook_held_events" || info.Labels[0].Closed() != nil || info.MovedBy != rp.MovedByHost || held.MovedBy != rp.MovedByEngine ||
		store.Type != rp.MetricTypeHistogram || len(store.BucketsS) != 11 || store.BucketsS[0] != 0.0005 {
		t.Errorf("policy_info %+v\nheld %+v\nstore %+v", info, held, store)
	}
	attempts := s.Families[0]
	if got := attempts.Labels[0].Closed(); attempts.LabelNames()[0] != "kind" || len(got) == 0 || got[0] != "first" {
		t.Errorf("webhook_attempts_total's label: %v %v", attempts.LabelNames(), got)
	}
}
