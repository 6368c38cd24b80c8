package journal

import (
	"encoding/json"
	"strconv"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Journal format 2 (docs/journal.md "Journal format 2"): the record's
// health section (inside policy, fully expanded) and the hold and replay
// fields, read strictly.

// healthOut is a health section as journaled: docs/health.md section 1's
// shape, every field present (circuit null when there is none).
type healthOut struct {
	HoldBudgetRefusals bool        `json:"hold_budget_refusals"`
	Pause              pauseOut    `json:"pause"`
	Circuit            *rp.Circuit `json:"circuit"`
	Release            rp.Release  `json:"release"`
	CacheMs            uint64      `json:"cache_ms"`
}

type pauseOut struct {
	MaxMs uint64 `json:"max_ms"`
}

// policyOut is a record's policy: format 2's fields, and health when the
// class has a section.
type policyOut struct {
	rp.Policy
	Health *healthOut `json:"health,omitempty"`
}

func policyOf(r *Record) policyOut {
	out := policyOut{Policy: r.Policy}
	if h := r.Health; h != nil {
		out.Health = &healthOut{HoldBudgetRefusals: h.HoldBudgetRefusals, Pause: pauseOut{h.PauseMaxMs}, Circuit: h.Circuit,
			Release: h.Release, CacheMs: h.CacheMs}
	}
	return out
}

func cloneString(s *string) *string {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

func cloneHealth(h *rp.Health) *rp.Health {
	c := *h
	if h.Circuit != nil {
		cc := *h.Circuit
		c.Circuit = &cc
	}
	return &c
}

type wireHealth struct {
	HoldBudgetRefusals *bool           `json:"hold_budget_refusals"`
	Pause              json.RawMessage `json:"pause"`
	Circuit            json.RawMessage `json:"circuit"`
	Release            json.RawMessage `json:"release"`
	CacheMs            *uint64         `json:"cache_ms"`
}

type wirePause struct {
	MaxMs *uint64 `json:"max_ms"`
}

type wireCircuit struct {
	FailureRatio    *float64 `json:"failure_ratio"`
	MinSample       *uint64  `json:"min_sample"`
	CooldownMs      *uint64  `json:"cooldown_ms"`
	CooldownMaxMs   *uint64  `json:"cooldown_max_ms"`
	Probes          *uint32  `json:"probes"`
	ProbeIntervalMs *uint64  `json:"probe_interval_ms"`
}

type wireRelease struct {
	Multiple  *float64 `json:"multiple"`
	FloorPerS *float64 `json:"floor_per_s"`
}

// parseHealth reads policy.health, every field required (the component
// judges the values when the hash is checked).
func parseHealth(raw json.RawMessage, line int) (*rp.Health, *Error) {
	const p = "policy.health."
	if raw[0] != '{' {
		return nil, invalid(line, "policy.health", "must be an object")
	}
	var w wireHealth
	if err := strict(raw, &w, line, p); err != nil {
		return nil, err
	}
	if err := firstMissing(line, p, field{"hold_budget_refusals", w.HoldBudgetRefusals != nil}, field{"pause", given(w.Pause)},
		field{"circuit", len(w.Circuit) > 0}, field{"release", given(w.Release)}, field{"cache_ms", w.CacheMs != nil}); err != nil {
		return nil, err
	}
	var pause wirePause
	if err := strict(w.Pause, &pause, line, p+"pause."); err != nil {
		return nil, err
	}
	var rel wireRelease
	if err := strict(w.Release, &rel, line, p+"release."); err != nil {
		return nil, err
	}
	if err := firstMissing(line, p, field{"pause.max_ms", pause.MaxMs != nil}, field{"release.multiple", rel.Multiple != nil},
		field{"release.floor_per_s", rel.FloorPerS != nil}); err != nil {
		return nil, err
	}
	h := &rp.Health{HoldBudgetRefusals: *w.HoldBudgetRefusals, PauseMaxMs: *pause.MaxMs, CacheMs: *w.CacheMs,
		Release: rp.Release{Multiple: *rel.Multiple, FloorPerS: *rel.FloorPerS}}
	if !isNull(w.Circuit) {
		var c wireCircuit
		if err := strict(w.Circuit, &c, line, p+"circuit."); err != nil {
			return nil, err
		}
		if err := firstMissing(line, p+"circuit.", field{"failure_ratio", c.FailureRatio != nil}, field{"min_sample", c.MinSample != nil},
			field{"cooldown_ms", c.CooldownMs != nil}, field{"cooldown_max_ms", c.CooldownMaxMs != nil},
			field{"probes", c.Probes != nil}, field{"probe_interval_ms", c.ProbeIntervalMs != nil}); err != nil {
			return nil, err
		}
		h.Circuit = &rp.Circuit{FailureRatio: *c.FailureRatio, MinSample: *c.MinSample, CooldownMs: *c.CooldownMs,
			CooldownMaxMs: *c.CooldownMaxMs, Probes: *c.Probes, ProbeIntervalMs: *c.ProbeIntervalMs}
	}
	return h, nil
}

// wireV2 are the fields a v2 event record adds (all required there, none
// allowed in a v1 record).
type wireV2 struct {
	HeldUntilMs        json.RawMessage `json:"held_until_ms"`
	HoldReason         json.RawMessage `json:"hold_reason"`
	HeldSinceMs        json.RawMessage `json:"held_since_ms"`
	HeldMs             json.RawMessage `json:"held_ms"`
	NeedsReserve       json.RawMessage `json:"needs_reserve"`
	WakeRefusals       json.RawMessage `json:"wake_refusals"`
	ReplayOf           json.RawMessage `json:"replay_of"`
	ReplayedDeadLetter json.RawMessage `json:"replayed_dead_letter"`
	ReplayedAs         json.RawMessage `json:"replayed_as"`
}

func (w *wireV2) fields() []struct {
	name string
	raw  json.RawMessage
} {
	return []struct {
		name string
		raw  json.RawMessage
	}{{"held_until_ms", w.HeldUntilMs}, {"hold_reason", w.HoldReason}, {"held_since_ms", w.HeldSinceMs}, {"held_ms", w.HeldMs},
		{"needs_reserve", w.NeedsReserve}, {"wake_refusals", w.WakeRefusals}, {"replay_of", w.ReplayOf},
		{"replayed_dead_letter", w.ReplayedDeadLetter}, {"replayed_as", w.ReplayedAs}}
}

// typed decodes raw into v (a pointer), naming field on a wrong type.
func typed(raw json.RawMessage, v any, line int, name, want string) *Error {
	if isNull(raw) || json.Unmarshal(raw, v) != nil {
		return invalid(line, name, "must be "+want)
	}
	return nil
}

func optString(raw json.RawMessage, line int, name string) (*string, *Error) {
	if isNull(raw) {
		return nil, nil
	}
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return nil, invalid(line, name, "must be a string or null")
	}
	return &s, nil
}

// applyV2 reads the v2 fields of a record of version v into r: a v1
// record carrying one, or a v2 record missing one, is invalid.
func applyV2(r *Record, w *wireV2, v int, line int) *Error {
	for _, f := range w.fields() {
		if v == 1 && len(f.raw) > 0 {
			return invalid(line, f.name, "is a field of journal format 2, not of a v1 record")
		}
		if v == 2 && len(f.raw) == 0 {
			return invalid(line, f.name, "is missing (a v2 record carries every format-2 field)")
		}
	}
	if v == 1 {
		if r.Status == StatusHeld {
			return invalid(line, "status", "held is a journal format 2 status (a v1 record)")
		}
		if r.Health != nil {
			return invalid(line, "policy.health", "is a field of journal format 2, not of a v1 record")
		}
		return nil
	}
	const u64, u32 = "a non-negative integer (at most 2^64-1)", "a non-negative integer (at most 2^32-1)"
	for _, n := range []struct {
		raw  json.RawMessage
		dst  any
		name string
		want string
	}{{w.HeldUntilMs, &r.HeldUntilMs, "held_until_ms", u64}, {w.HeldSinceMs, &r.HeldSinceMs, "held_since_ms", u64},
		{w.HeldMs, &r.HeldMs, "held_ms", u64}, {w.NeedsReserve, &r.NeedsReserve, "needs_reserve", "true or false"},
		{w.WakeRefusals, &r.WakeRefusals, "wake_refusals", u32}} {
		if err := typed(n.raw, n.dst, line, n.name, n.want); err != nil {
			return err
		}
	}
	var perr *Error
	if r.HoldReason, perr = optString(w.HoldReason, line, "hold_reason"); perr != nil {
		return perr
	}
	if r.ReplayOf, perr = optString(w.ReplayOf, line, "replay_of"); perr != nil {
		return perr
	}
	if r.ReplayedAs, perr = optString(w.ReplayedAs, line, "replayed_as"); perr != nil {
		return perr
	}
	if r.ReplayedDeadLetter, perr = parseDeadLetterAt(w.ReplayedDeadLetter, line, "replayed_dead_letter"); perr != nil {
		return perr
	}
	held := r.Status == StatusHeld
	if r.HoldReason != nil {
		if _, ok := rp.ParseHoldReason(*r.HoldReason); !ok {
			return invalid(line, "hold_reason", strconv.Quote(*r.HoldReason)+" is not a hold reason")
		}
	}
	if held != (r.HoldReason != nil) {
		return invalid(line, "hold_reason", "is non-null exactly when status is held")
	}
	if !held && r.HeldUntilMs != 0 {
		return invalid(line, "held_until_ms", "is 0 unless status is held")
	}
	if !held && r.HeldSinceMs != 0 {
		return invalid(line, "held_since_ms", "is 0 unless status is held")
	}
	return nil
}

// markReplayed sets ReplayedAs on each dead letter that some event record
// replays (replay_of), when its own newest record lacks it: the replay's
// record is the commit (docs/journal.md "Reading").
func markReplayed(events []Entry) {
	replays := map[string]string{}
	for _, e := range events {
		if of := e.Record.ReplayOf; of != nil {
			if _, seen := replays[*of]; !seen {
				replays[*of] = e.Record.EventID
			}
		}
	}
	for i := range events {
		r := &events[i].Record
		if as, ok := replays[r.EventID]; ok && r.Status == StatusDeadLettered && r.ReplayedAs == nil {
			r.ReplayedAs = &as
		}
	}
}
