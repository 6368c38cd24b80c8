package vectors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// HealthFormat is the format label of the format-3 vector files
// (tests/vectors/format3-*.json, docs/health.md section 7).
const HealthFormat = "webhook-retry-policy/health-vectors 1"

// parseDocument runs a format-3 parse_document case through
// load-health-document and returns the document in the vectors' shape
// (policy-core's health/codec.rs), or {"error", "field"} for a refused
// document. A *BrokenError is a case that does not follow the format; any
// other error a host failure.
func parseDocument(ctx context.Context, e *rp.Engine, input json.RawMessage) (any, error) {
	in, err := (&decoder{}).object("", input, []string{"document"}, nil)
	if err != nil {
		return nil, err
	}
	doc, err := e.LoadHealthDocument(ctx, in.raw("document"))
	var pe *rp.PolicyError
	if errors.As(err, &pe) {
		return map[string]any{"error": pe.Code.String(), "field": pe.Field}, nil
	}
	if err != nil {
		return nil, err
	}
	return healthDocumentJSON(doc), nil
}

// checkHealth runs a parse_document case: "" when it passes, else what differed.
func checkHealth(ctx context.Context, e *rp.Engine, c Case) string {
	got, err := parseDocument(ctx, e, c.Input)
	want, have, gotJSON, problem := answered(got, err, c.Expect)
	if problem != "" {
		return problem
	}
	// An expected error without a "field" pins only the code (docs/health.md
	// section 7; as the format-2 vectors do for an op's inputs).
	if w, ok := want.(map[string]any); ok {
		if h, ok := have.(map[string]any); ok {
			if _, isErr := w["error"]; isErr {
				if _, hasField := w["field"]; !hasField {
					delete(h, "field")
				}
			}
		}
	}
	if sameJSON(want, have) {
		return ""
	}
	return fmt.Sprintf("expected %s, got %s", compact(c.Expect), gotJSON)
}

// sameJSON is equality as JSON, numbers by value (1.0 is 1, as in the
// Rust reference), read exactly (big.Rat: no float rounding of u64s).
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		p, okp := new(big.Rat).SetString(x.String())
		q, okq := new(big.Rat).SetString(y.String())
		return okp && okq && p.Cmp(q) == 0
	default:
		return a == b
	}
}

func healthSectionJSON(h *rp.Health) any {
	if h == nil {
		return nil
	}
	var circuit any
	if c := h.Circuit; c != nil {
		circuit = map[string]any{
			"failure_ratio":     c.FailureRatio,
			"min_sample":        c.MinSample,
			"cooldown_ms":       c.CooldownMs,
			"cooldown_max_ms":   c.CooldownMaxMs,
			"probes":            c.Probes,
			"probe_interval_ms": c.ProbeIntervalMs,
		}
	}
	return map[string]any{
		"hold_budget_refusals": h.HoldBudgetRefusals,
		"pause":                map[string]any{"max_ms": h.PauseMaxMs},
		"circuit":              circuit,
		"release":              map[string]any{"multiple": h.Release.Multiple, "floor_per_s": h.Release.FloorPerS},
		"cache_ms":             h.CacheMs,
	}
}

func healthDocumentJSON(d rp.HealthDocument) any {
	classes := make([]any, 0, len(d.Classes))
	for _, c := range d.Classes {
		var words any
		if c.Health != nil {
			hex := make([]any, len(c.HashWords))
			for i, w := range c.HashWords {
				hex[i] = fmt.Sprintf("%016x", w)
			}
			words = hex
		}
		classes = append(classes, map[string]any{
			"name":        c.Name,
			"health":      healthSectionJSON(c.Health),
			"hash_words":  words,
			"policy_hash": c.PolicyHash,
		})
	}
	return map[string]any{"classes": classes}
}
