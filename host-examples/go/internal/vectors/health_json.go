package vectors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// The format-3 results in the vectors' shapes (policy-core's
// health/codec.rs), and their comparison.

// checkHealth runs a format-3 case: "" when it passes, else what differed.
func checkHealth(ctx context.Context, e *rp.Engine, c Case) string {
	got, err := EvaluateHealth(ctx, e, c.Op, c.Input)
	if err != nil {
		var be *BrokenError
		if errors.As(err, &be) {
			return be.Error()
		}
		return "host error: " + err.Error()
	}
	gotJSON, err := json.Marshal(got)
	if err != nil {
		return "host error: " + err.Error()
	}
	var want, have any
	if err := strictJSON(c.Expect, &want); err != nil {
		return "broken vector: expect is not JSON"
	}
	if err := strictJSON(gotJSON, &have); err != nil {
		return "host error: " + err.Error()
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

func countsJSON(c rp.BucketCounts) any {
	return map[string]any{"total": c.Total, "retries": c.Retries}
}

func reservationJSON(r rp.Reservation) any {
	return map[string]any{"reserved": r.Reserved, "counts": map[string]any{
		"current": countsJSON(r.Counts.Current), "previous": countsJSON(r.Counts.Previous)}}
}

func viewJSON(v *rp.HealthView) any {
	if v == nil {
		return nil
	}
	return map[string]any{
		"paused_until_ms": v.PausedUntilMs,
		"opened_at_ms":    v.OpenedAtMs,
		"cooldown_ms":     v.CooldownMs,
		"closed_at_ms":    v.ClosedAtMs,
		"as_of_ms":        v.AsOfMs,
	}
}

func callReplyJSON(r rp.CallReply) any {
	out := map[string]any{"reservation": nil, "granted": nil, "view": viewJSON(r.View)}
	if r.Reservation != nil {
		out["reservation"] = reservationJSON(*r.Reservation)
	}
	if r.Granted != nil {
		out["granted"] = *r.Granted
	}
	return out
}

func heldJSON(h rp.HeldHealth) any {
	b, s := h.Buckets, h.Health
	return map[string]any{
		"buckets": map[string]any{"bucket": b.Bucket, "current": countsJSON(b.Current), "previous": countsJSON(b.Previous)},
		"health": map[string]any{
			"failures":        map[string]any{"bucket": s.Failures.Bucket, "current": s.Failures.Current, "previous": s.Failures.Previous},
			"paused_until_ms": s.PausedUntilMs,
			"opened_at_ms":    s.OpenedAtMs,
			"cooldown_ms":     s.CooldownMs,
			"probe_window":    s.ProbeWindow,
			"probes_granted":  s.ProbesGranted,
			"closed_at_ms":    s.ClosedAtMs,
		},
	}
}

func pacerJSON(p rp.Pacer) any {
	return map[string]any{"tokens": p.Tokens, "updated_ms": p.UpdatedMs, "normal_per_s": p.NormalPerS}
}

func deadLetterJSON(dl rp.DeadLetter) any {
	return map[string]any{
		"event_id":    dl.EventID,
		"endpoint_id": dl.EndpointID,
		"attempts":    dl.Attempts,
		"elapsed_ms":  dl.ElapsedMs,
		"stop_reason": dl.StopReason.String(),
	}
}

func gateVerdictJSON(v rp.GateVerdict) any {
	switch {
	case v.Send, v.SendProbe:
		return map[string]any{"action": "send", "probe": v.SendProbe}
	case v.Probe:
		return map[string]any{"action": "probe"}
	case v.Hold != nil:
		return map[string]any{"action": "hold", "until_ms": v.Hold.UntilMs, "reason": v.Hold.Reason.String()}
	case v.Stop != nil:
		return map[string]any{"action": "stop", "stop_reason": v.Stop.DeadLetter.StopReason.String(),
			"dead_letter": deadLetterJSON(v.Stop.DeadLetter), "held_ms": v.Stop.HeldMs}
	}
	return map[string]any{"action": nil}
}

func verdictJSON(v rp.Verdict) any {
	switch {
	case v.Retry != nil:
		return decisionJSON(rp.Decision{Retry: v.Retry})
	case v.Stop != nil:
		return decisionJSON(rp.Decision{Stop: v.Stop})
	case v.Hold != nil:
		return map[string]any{"hold": map[string]any{"until_ms": v.Hold.UntilMs, "refresh_credentials": v.Hold.RefreshCredentials}}
	}
	return nil
}

func wakeVerdictJSON(v rp.WakeVerdict) any {
	switch {
	case v.Send:
		return map[string]any{"action": "send"}
	case v.Hold != nil:
		return map[string]any{"action": "hold", "until_ms": v.Hold.UntilMs, "refusals": v.Hold.Refusals}
	case v.Stop != nil:
		return map[string]any{"action": "stop", "stop_reason": v.Stop.StopReason.String(), "dead_letter": deadLetterJSON(*v.Stop)}
	}
	return nil
}

func paceJSON(v rp.PaceVerdict) any {
	if v.Wait != nil {
		return map[string]any{"action": "wait", "until_ms": *v.Wait}
	}
	return map[string]any{"action": "send"}
}
