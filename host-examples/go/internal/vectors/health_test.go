package vectors

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func decodeJSON(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := strictJSON([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNumbersCompareByValueAndEverythingElseExactly(t *testing.T) {
	got := decodeJSON(t, `{"a": 1, "b": [0.5, 0], "c": 18446744073709551615}`)
	for want, same := range map[string]bool{
		`{"b": [0.5, 0.0], "a": 1.0, "c": 18446744073709551615}`: true,
		`{"a": 1, "b": [0.5, 1], "c": 18446744073709551615}`:     false,
		`{"a": 1, "b": [0.5, 0], "c": 18446744073709551614}`:     false, // equal as float64, not as u64
		`{"a": 1, "b": [0.5, 0]}`:                                false,
		`{"a": "1", "b": [0.5, 0], "c": 18446744073709551615}`:   false,
	} {
		if sameJSON(decodeJSON(t, want), got) != same {
			t.Errorf("sameJSON(%s) = %v", want, !same)
		}
	}
}

func TestAFormat3CaseWithAnUnknownFieldIsBrokenAndABadSectionIsRefusedAtItsPath(t *testing.T) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	_, err = EvaluateHealth(ctx, e, "health_outcome", json.RawMessage(`{"outcome": {"status": 200}, "extra": 1}`))
	var be *BrokenError
	if !errors.As(err, &be) {
		t.Fatalf("an unknown field: %v, want a broken vector", err)
	}
	got, err := EvaluateHealth(ctx, e, "pause_until", json.RawMessage(`{"health": {"cache_ms": 0}, "outcome": {"status": 503}, "now_ms": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(decodeJSON(t, `{"error": "invalid_document", "field": "health.cache_ms"}`), roundTrip(t, got)) {
		t.Fatalf("a bad section: %v", got)
	}
	got, err = EvaluateHealth(ctx, e, "health_outcome", json.RawMessage(`{"outcome": {"status": 503}}`))
	if err != nil || !sameJSON(decodeJSON(t, `{"outcome": "failure"}`), roundTrip(t, got)) {
		t.Fatalf("a 503: %v, %v", got, err)
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, string(b))
}
