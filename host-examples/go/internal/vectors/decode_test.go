package vectors

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

func TestBrokenVectorsAreToldApartFromInvalidInput(t *testing.T) {
	ctx := context.Background()
	e, err := rp.New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(ctx)
	backoff := `{"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"}`
	for _, c := range []struct {
		name, op, input string
		broken          bool
		want            string // the result's error code, if not broken
	}{
		{"unknown op", "frobnicate", `{}`, true, ""},
		{"unknown field", "classify_status", `{"status": 200, "x": 1}`, true, ""},
		{"missing field", "plan", `{"backoff": ` + backoff + `, "window_ms": 1}`, true, ""},
		{"missing nested field", "plan", `{"backoff": {"base_ms": 1}, "window_ms": 1, "hard_cap": 1}`, true, ""},
		{"broken wins over a type error first", "plan", `{"backoff": ` + backoff + `, "window_ms": "x", "hard_cap": 1, "y": 2}`, true, ""},
		{"string for a number", "classify_status", `{"status": "200"}`, false, "invalid_input"},
		{"fraction for an integer", "plan", `{"backoff": ` + backoff + `, "window_ms": 1.5, "hard_cap": 1}`, false, "invalid_input"},
		{"negative integer", "plan", `{"backoff": ` + backoff + `, "window_ms": -1, "hard_cap": 1}`, false, "invalid_input"},
		{"u16 overflow is an invalid status", "classify_status", `{"status": 70000}`, false, "invalid_status"},
		{"unknown jitter", "plan", `{"backoff": {"base_ms": 1, "factor": 1.0, "cap_ms": 1, "jitter": "x"}, "window_ms": 1, "hard_cap": 0}`, false, "invalid_backoff"},
		{"both outcome kinds", "evaluate", `{"policy": {}, "state": {}, "outcome": {"status": 1, "error_kind": "x"}, "now_ms": 0}`, true, ""},
		{"an op run through vector-case", "decide", `{}`, true, ""},
	} {
		got, err := Evaluate(ctx, e, c.op, json.RawMessage(c.input))
		var be *BrokenError
		if c.broken {
			if !errors.As(err, &be) {
				t.Errorf("%s: want a broken vector, got %v %v", c.name, got, err)
			}
			continue
		}
		if err != nil || got["error"] != c.want {
			t.Errorf("%s: want {error: %s}, got %v %v", c.name, c.want, got, err)
		}
	}
}
