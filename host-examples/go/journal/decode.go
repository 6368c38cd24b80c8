package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Records are read strictly (docs/journal.md, "Records"): every field of
// the table with its type, nothing else. An unknown field is an error
// naming it (a reader that dropped it would write the event back without
// it); a missing or null field is one too. The wire types below are
// pointers so that "missing" can be told from a zero value.

type wireBackoff struct {
	BaseMs *uint64  `json:"base_ms"`
	Factor *float64 `json:"factor"`
	CapMs  *uint64  `json:"cap_ms"`
	Jitter *string  `json:"jitter"`
}

type wireBudget struct {
	Ratio     *float64 `json:"ratio"`
	WindowMs  *uint64  `json:"window_ms"`
	MinSample *uint64  `json:"min_sample"`
	Sliding   *bool    `json:"sliding"`
}

type wirePolicy struct {
	WindowMs *uint64         `json:"window_ms"`
	HardCap  *uint32         `json:"hard_cap"`
	Backoff  json.RawMessage `json:"backoff"` // read with its own prefix: errors name policy.backoff.x
	Budget   json.RawMessage `json:"budget"`
	Health   json.RawMessage `json:"health"` // format 2 records only: the class's section, expanded
}

type wireDeadLetter struct {
	EventID    *string `json:"event_id"`
	EndpointID *string `json:"endpoint_id"`
	Attempts   *uint32 `json:"attempts"`
	ElapsedMs  *uint64 `json:"elapsed_ms"`
	StopReason *string `json:"stop_reason"`
}

type wireEvent struct {
	V                    json.RawMessage `json:"v"`
	Type                 json.RawMessage `json:"type"`
	EventID              *string         `json:"event_id"`
	EndpointID           *string         `json:"endpoint_id"`
	Target               *string         `json:"target"`
	Class                *string         `json:"class"`
	PolicyVersion        *string         `json:"policy_version"`
	PolicyHash           *string         `json:"policy_hash"`
	Policy               json.RawMessage `json:"policy"` // read with its own prefix: errors name policy.x
	FirstAttemptedAtMs   *uint64         `json:"first_attempted_at_ms"`
	DeadlineMs           *uint64         `json:"deadline_ms"`
	MaxAttempts          *uint32         `json:"max_attempts"`
	OffsetsMs            *[]*uint64      `json:"offsets_ms"`
	Attempts             *uint32         `json:"attempts"`
	CredentialsRefreshed *bool           `json:"credentials_refreshed"`
	NextAttemptAtMs      *uint64         `json:"next_attempt_at_ms"`
	Status               *string         `json:"status"`
	LastOutcome          *string         `json:"last_outcome"`
	StopReason           json.RawMessage `json:"stop_reason"` // string or null, required
	DeadLetter           json.RawMessage `json:"dead_letter"` // object or null, required
	DisableEndpoint      *bool           `json:"disable_endpoint"`
	FinishedAtMs         *uint64         `json:"finished_at_ms"`
	BodyB64              json.RawMessage `json:"body_b64"` // optional; a string when present
	wireV2
}

type wireHeader struct {
	V           json.RawMessage `json:"v"`
	Type        json.RawMessage `json:"type"`
	Format      *string         `json:"format"`
	CreatedAtMs *uint64         `json:"created_at_ms"`
}

// strict decodes payload into v, refusing unknown fields; the error names
// the field (prefix + its path).
func strict(payload []byte, v any, line int, prefix string) *Error {
	d := json.NewDecoder(bytes.NewReader(payload))
	d.DisallowUnknownFields()
	err := d.Decode(v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return invalid(line, strings.TrimSuffix(prefix+te.Field, "."), "must be "+wantOf(te.Type.String()))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if n, uerr := strconv.Unquote(name); uerr == nil {
			name = n
		}
		return invalid(line, prefix+name, "is not a field of the journal format")
	}
	return invalid(line, strings.TrimSuffix(prefix, ".")+"record", "cannot be read: "+err.Error())
}

// wantOf names a Go type the way the record table does.
func wantOf(goType string) string {
	switch strings.TrimLeft(goType, "*[]") {
	case "uint64", "uint32":
		if strings.Contains(goType, "[]") {
			return "an array of non-negative integers"
		}
		return "a non-negative integer (at most " + map[bool]string{true: "2^32-1", false: "2^64-1"}[strings.HasSuffix(goType, "uint32")] + ")"
	case "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	}
	return "a JSON object"
}

// field is one required field: its name and whether it was given (not null).
type field struct {
	name  string
	given bool
}

func firstMissing(line int, prefix string, fields ...field) *Error {
	for _, f := range fields {
		if !f.given {
			return invalid(line, prefix+f.name, "is missing (or null)")
		}
	}
	return nil
}

// kind reads `v` (other than 1 or 2: journal_unsupported) and `type` of a record.
func kind(payload []byte, line int) (string, int, *Error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil || obj == nil {
		return "", 0, invalid(line, "record", "must be a JSON object")
	}
	v, ok := obj["v"]
	if !ok {
		return "", 0, invalid(line, "v", "is missing")
	}
	if string(v) != "1" && string(v) != "2" {
		return "", 0, &Error{Code: CodeUnsupported, Line: line, Field: "v", Message: "is " + string(v) + ", not 1 or 2"}
	}
	var t string
	if raw := obj["type"]; len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &t) != nil {
		return "", 0, invalid(line, "type", "must be a string")
	}
	return t, int(v[0] - '0'), nil
}

// checkHeader checks a header record (its v and type read by kind).
func checkHeader(payload []byte, line int) *Error {
	var h wireHeader
	err := strict(payload, &h, line, "")
	if h.Format != nil && *h.Format != Format {
		return &Error{Code: CodeUnsupported, Line: line, Field: "format", Message: strconv.Quote(*h.Format) + ", not " + strconv.Quote(Format)}
	}
	if err != nil {
		return err
	}
	return firstMissing(line, "", field{"format", h.Format != nil}, field{"created_at_ms", h.CreatedAtMs != nil})
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

func stopReason(raw json.RawMessage, line int, name string) (*rp.StopReason, *Error) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return nil, invalid(line, name, "must be a stop reason (a string)")
	}
	r, ok := rp.ParseStopReason(s)
	if !ok {
		return nil, invalid(line, name, strconv.Quote(s)+" is not a stop reason")
	}
	return &r, nil
}

// given reports whether a required raw field is there and not null.
func given(raw json.RawMessage) bool { return len(raw) > 0 && !isNull(raw) }

func parsePolicy(raw json.RawMessage, line int) (rp.Policy, *rp.Health, *Error) {
	p, w, err := parsePolicyFields(raw, line)
	if err != nil || !given(w.Health) {
		return p, nil, err
	}
	h, err := parseHealth(w.Health, line)
	return p, h, err
}

func parsePolicyFields(raw json.RawMessage, line int) (rp.Policy, *wirePolicy, *Error) {
	var w wirePolicy
	if err := strict(raw, &w, line, "policy."); err != nil {
		return rp.Policy{}, nil, err
	}
	if err := firstMissing(line, "policy.", field{"window_ms", w.WindowMs != nil}, field{"hard_cap", w.HardCap != nil},
		field{"backoff", given(w.Backoff)}, field{"budget", given(w.Budget)}); err != nil {
		return rp.Policy{}, nil, err
	}
	var b wireBackoff
	if err := strict(w.Backoff, &b, line, "policy.backoff."); err != nil {
		return rp.Policy{}, nil, err
	}
	var g wireBudget
	if err := strict(w.Budget, &g, line, "policy.budget."); err != nil {
		return rp.Policy{}, nil, err
	}
	if err := firstMissing(line, "policy.backoff.", field{"base_ms", b.BaseMs != nil}, field{"factor", b.Factor != nil},
		field{"cap_ms", b.CapMs != nil}, field{"jitter", b.Jitter != nil}); err != nil {
		return rp.Policy{}, nil, err
	}
	if err := firstMissing(line, "policy.budget.", field{"ratio", g.Ratio != nil}, field{"window_ms", g.WindowMs != nil},
		field{"min_sample", g.MinSample != nil}, field{"sliding", g.Sliding != nil}); err != nil {
		return rp.Policy{}, nil, err
	}
	jitter, ok := rp.ParseJitter(*b.Jitter)
	if !ok {
		return rp.Policy{}, nil, invalid(line, "policy.backoff.jitter", "is not none, full or equal")
	}
	return rp.Policy{WindowMs: *w.WindowMs, HardCap: *w.HardCap,
		Backoff: rp.Backoff{BaseMs: *b.BaseMs, Factor: *b.Factor, CapMs: *b.CapMs, Jitter: jitter},
		Budget:  rp.Budget{Ratio: *g.Ratio, WindowMs: *g.WindowMs, MinSample: *g.MinSample, Sliding: *g.Sliding}}, &w, nil
}

func parseDeadLetter(raw json.RawMessage, line int) (*rp.DeadLetter, *Error) {
	return parseDeadLetterAt(raw, line, "dead_letter")
}

func parseDeadLetterAt(raw json.RawMessage, line int, name string) (*rp.DeadLetter, *Error) {
	if isNull(raw) {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, invalid(line, name, "must be an object or null")
	}
	var w wireDeadLetter
	if err := strict(raw, &w, line, name+"."); err != nil {
		return nil, err
	}
	if err := firstMissing(line, name+".", field{"event_id", w.EventID != nil}, field{"endpoint_id", w.EndpointID != nil},
		field{"attempts", w.Attempts != nil}, field{"elapsed_ms", w.ElapsedMs != nil},
		field{"stop_reason", w.StopReason != nil}); err != nil {
		return nil, err
	}
	reason, ok := rp.ParseStopReason(*w.StopReason)
	if !ok {
		return nil, invalid(line, name+".stop_reason", strconv.Quote(*w.StopReason)+" is not a stop reason")
	}
	return &rp.DeadLetter{EventID: *w.EventID, EndpointID: *w.EndpointID, Attempts: *w.Attempts, ElapsedMs: *w.ElapsedMs,
		StopReason: reason}, nil
}

// decodeBody is a body_b64's payload: standard base64 with padding, no
// line breaks, no stray bits.
func decodeBody(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, errors.New("a line break in base64")
	}
	return base64.StdEncoding.Strict().DecodeString(s)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// parseEvent reads an event record (its v and type read by kind). The
// policy hash is checked by the reader, once per distinct policy.
func parseEvent(payload []byte, line int, version int) (Record, *Error) {
	var w wireEvent
	if err := strict(payload, &w, line, ""); err != nil {
		return Record{}, err
	}
	if err := firstMissing(line, "",
		field{"event_id", w.EventID != nil}, field{"endpoint_id", w.EndpointID != nil}, field{"target", w.Target != nil},
		field{"class", w.Class != nil}, field{"policy_version", w.PolicyVersion != nil},
		field{"policy_hash", w.PolicyHash != nil}, field{"policy", given(w.Policy)},
		field{"first_attempted_at_ms", w.FirstAttemptedAtMs != nil}, field{"deadline_ms", w.DeadlineMs != nil},
		field{"max_attempts", w.MaxAttempts != nil}, field{"offsets_ms", w.OffsetsMs != nil},
		field{"attempts", w.Attempts != nil}, field{"credentials_refreshed", w.CredentialsRefreshed != nil},
		field{"next_attempt_at_ms", w.NextAttemptAtMs != nil}, field{"status", w.Status != nil},
		field{"last_outcome", w.LastOutcome != nil}, field{"stop_reason", len(w.StopReason) > 0},
		field{"dead_letter", len(w.DeadLetter) > 0}, field{"disable_endpoint", w.DisableEndpoint != nil},
		field{"finished_at_ms", w.FinishedAtMs != nil}); err != nil {
		return Record{}, err
	}
	r := Record{EventID: *w.EventID, EndpointID: *w.EndpointID, Target: *w.Target, Class: *w.Class,
		PolicyVersion: *w.PolicyVersion, PolicyHash: *w.PolicyHash, FirstAttemptedAtMs: *w.FirstAttemptedAtMs,
		DeadlineMs: *w.DeadlineMs, MaxAttempts: *w.MaxAttempts, Attempts: *w.Attempts,
		CredentialsRefreshed: *w.CredentialsRefreshed, NextAttemptAtMs: *w.NextAttemptAtMs, Status: *w.Status,
		LastOutcome: *w.LastOutcome, DisableEndpoint: *w.DisableEndpoint, FinishedAtMs: *w.FinishedAtMs}
	if len(r.PolicyHash) != 16 || !isLowerHex(r.PolicyHash) {
		return Record{}, invalid(line, "policy_hash", "must be 16 lowercase hex digits")
	}
	var perr *Error
	if r.Policy, r.Health, perr = parsePolicy(w.Policy, line); perr != nil {
		return Record{}, perr
	}
	r.OffsetsMs = make([]uint64, 0, len(*w.OffsetsMs))
	for _, o := range *w.OffsetsMs {
		if o == nil {
			return Record{}, invalid(line, "offsets_ms", "must be an array of non-negative integers")
		}
		r.OffsetsMs = append(r.OffsetsMs, *o)
	}
	switch r.Status {
	case StatusPending, StatusDelivered, StatusDeadLettered, StatusHeld:
	default:
		return Record{}, invalid(line, "status", "is not pending, held, delivered or dead_lettered")
	}
	if !isNull(w.StopReason) {
		if r.StopReason, perr = stopReason(w.StopReason, line, "stop_reason"); perr != nil {
			return Record{}, perr
		}
	}
	if r.DeadLetter, perr = parseDeadLetter(w.DeadLetter, line); perr != nil {
		return Record{}, perr
	}
	if len(w.BodyB64) > 0 {
		var s string
		if w.BodyB64[0] != '"' || json.Unmarshal(w.BodyB64, &s) != nil {
			return Record{}, invalid(line, "body_b64", "must be a string")
		}
		if _, err := decodeBody(s); err != nil {
			return Record{}, invalid(line, "body_b64", "must be standard base64 with padding")
		}
		r.BodyB64 = &s
	}
	if perr = applyV2(&r, &w.wireV2, version, line); perr != nil {
		return Record{}, perr
	}
	return r, nil
}
