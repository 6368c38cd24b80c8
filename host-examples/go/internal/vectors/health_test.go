package vectors

import (
	"context"
	"encoding/json"
	"strings"
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

func TestAFormat3CaseIsBrokenOrRefusedAsTheVectorsSayAndTheOtherOpsRunInsideTheArtifact(t *testing.T) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	format := json.RawMessage(`"` + HealthFormat + `"`)
	check := func(op, input, expect string) string {
		raw := `{"name": "t", "op": "` + op + `", "input": ` + input + `, "expect": ` + expect + `}`
		return Check(ctx, e, Case{Name: "t", Op: op, Input: json.RawMessage(input), Expect: json.RawMessage(expect),
			Health: true, Format: format, Raw: json.RawMessage(raw)})
	}
	if why := check("parse_document", `{"document": {}, "extra": 1}`, `{}`); !strings.HasPrefix(why, "broken vector: unknown field") {
		t.Errorf("an unknown field: %q, want a broken vector", why)
	}
	if why := check("frobnicate", `{}`, `{}`); why != `broken vector: unknown op "frobnicate"` {
		t.Errorf("an unknown op: %q", why)
	}
	if why := check("health_outcome", `{"outcome": {"status": 503}}`, `{"outcome": "failure"}`); why != "" {
		t.Errorf("a 503 through vector-case: %q", why)
	}
	if why := check("health_outcome", `{"outcome": {"status": 503}}`, `{"outcome": "success"}`); why == "" {
		t.Error("a wrong expectation passed through vector-case")
	}
	if why := check("health_outcome", `{"outcome": {"status": 503}, "extra": 1}`, `{"outcome": "failure"}`); why == "" {
		t.Error("an unknown field passed through vector-case")
	}
}
