package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/crc32"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Format is the header's `format`.
const Format = "webhook-retry-policy/journal"

// An event's status (the record's `status`).
const (
	StatusPending      = "pending"
	StatusDelivered    = "delivered"
	StatusDeadLettered = "dead_lettered"
	// StatusHeld: journal format 2, a held event (docs/health-dispatch.md
	// section 3): waiting until HeldUntilMs, spending no attempt.
	StatusHeld = "held"
)

// Record is an event record of journal formats 1 and 2 (docs/journal.md,
// "Records"): the event's whole state; the newest record of an event wins.
// `v` and `type` are written by the encoder.
type Record struct {
	EventID    string `json:"event_id"`
	EndpointID string `json:"endpoint_id"`
	Target     string `json:"target"`
	Class      string `json:"class"`
	// From admit: the policy fingerprint (16 lowercase hex digits) and the
	// admitted class policy, every default written out. A resumed event is
	// decided under Policy, never under the current document.
	PolicyVersion        string         `json:"policy_version"`
	PolicyHash           string         `json:"policy_hash"`
	Policy               rp.Policy      `json:"policy"`
	FirstAttemptedAtMs   uint64         `json:"first_attempted_at_ms"`
	DeadlineMs           uint64         `json:"deadline_ms"`
	MaxAttempts          uint32         `json:"max_attempts"`
	OffsetsMs            []uint64       `json:"offsets_ms"`
	Attempts             uint32         `json:"attempts"` // attempts made so far
	CredentialsRefreshed bool           `json:"credentials_refreshed"`
	NextAttemptAtMs      uint64         `json:"next_attempt_at_ms"`
	Status               string         `json:"status"`       // StatusPending, StatusDelivered or StatusDeadLettered
	LastOutcome          string         `json:"last_outcome"` // "503", a transport kind, or "" before the first attempt
	StopReason           *rp.StopReason `json:"stop_reason"`
	DeadLetter           *rp.DeadLetter `json:"dead_letter"`
	DisableEndpoint      bool           `json:"disable_endpoint"`
	FinishedAtMs         uint64         `json:"finished_at_ms"` // 0 while pending
	// BodyB64 is the payload, standard base64 with padding; nil: absent (the
	// dispatcher derives the body).
	BodyB64 *string `json:"body_b64,omitempty"`

	// Journal format 2 (docs/journal.md "Journal format 2"): every record
	// written carries them; a v1 record reads with their zero values.
	HeldUntilMs        uint64         `json:"held_until_ms"`        // when a held event is due (0 unless held)
	HoldReason         *string        `json:"hold_reason"`          // non-nil exactly when held
	HeldSinceMs        uint64         `json:"held_since_ms"`        // when the current hold began (0 unless held)
	HeldMs             uint64         `json:"held_ms"`              // total time in holds already ended
	NeedsReserve       bool           `json:"needs_reserve"`        // a budget-held retry: its wake reserves first
	WakeRefusals       uint32         `json:"wake_refusals"`        // wakes the budget refused in this hold
	ReplayOf           *string        `json:"replay_of"`            // the dead letter this event replays
	ReplayedDeadLetter *rp.DeadLetter `json:"replayed_dead_letter"` // that dead letter, kept for the record
	ReplayedAs         *string        `json:"replayed_as"`          // on a dead letter: the id of its replay

	// Health is the class's health section (format 3), journaled inside
	// policy (expanded) and covered by policy_hash; nil: none.
	Health *rp.Health `json:"-"`
}

// SetBody records the payload (BodyB64).
func (r *Record) SetBody(body []byte) {
	s := base64.StdEncoding.EncodeToString(body)
	r.BodyB64 = &s
}

// Body is the payload and whether the record holds one (BodyB64 is
// checked when a record is read; a bad one here is an error).
func (r *Record) Body() ([]byte, bool, error) {
	if r.BodyB64 == nil {
		return nil, false, nil
	}
	b, err := decodeBody(*r.BodyB64)
	return b, err == nil, err
}

// Admission is the state of an event admitted at admission.FirstAttemptedAtMs
// under policy, before its first attempt.
func Admission(eventID, endpointID, target string, policy rp.Policy, a rp.Admission) Record {
	return Record{EventID: eventID, EndpointID: endpointID, Target: target, Class: a.Class,
		PolicyVersion: a.PolicyVersion, PolicyHash: a.PolicyHash, Policy: policy,
		FirstAttemptedAtMs: a.FirstAttemptedAtMs, DeadlineMs: a.DeadlineMs, MaxAttempts: a.Schedule.MaxAttempts,
		OffsetsMs: append([]uint64{}, a.Schedule.OffsetsMs...), NextAttemptAtMs: a.FirstAttemptedAtMs,
		Status: StatusPending}
}

// State is the contract's delivery state of the record after attempt
// attempt (the component's Resume takes Attempts, Decide the attempt just made).
func (r *Record) State(attempt uint32) rp.DeliveryState {
	return rp.DeliveryState{EventID: r.EventID, EndpointID: r.EndpointID, Attempt: attempt, MaxAttempts: r.MaxAttempts,
		FirstAttemptedAtMs: r.FirstAttemptedAtMs, CredentialsRefreshed: r.CredentialsRefreshed}
}

// Clone is a deep copy.
func (r *Record) Clone() Record {
	c := *r
	c.OffsetsMs = append([]uint64{}, r.OffsetsMs...)
	if r.StopReason != nil {
		s := *r.StopReason
		c.StopReason = &s
	}
	if r.DeadLetter != nil {
		d := *r.DeadLetter
		c.DeadLetter = &d
	}
	if r.BodyB64 != nil {
		b := *r.BodyB64
		c.BodyB64 = &b
	}
	c.HoldReason, c.ReplayOf, c.ReplayedAs = cloneString(r.HoldReason), cloneString(r.ReplayOf), cloneString(r.ReplayedAs)
	if r.ReplayedDeadLetter != nil {
		d := *r.ReplayedDeadLetter
		c.ReplayedDeadLetter = &d
	}
	if r.Health != nil {
		c.Health = cloneHealth(r.Health)
	}
	return c
}

// encodeJSON is v's JSON on one line, with <, > and & as they are (URLs stay readable).
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// crcLine is one complete line: `<crc> <json>\n`.
func crcLine(payload []byte) []byte {
	out := make([]byte, 0, len(payload)+10)
	out = fmt.Appendf(out, "%08x ", crc32.ChecksumIEEE(payload))
	out = append(out, payload...)
	return append(out, '\n')
}

type eventOut struct {
	V    int    `json:"v"`
	Type string `json:"type"`
	*Record
	Policy policyOut `json:"policy"` // shadows Record.Policy: the policy with its health section
}

// EventLine is r as a complete journal line.
func EventLine(r *Record) ([]byte, error) {
	c := *r
	if c.OffsetsMs == nil {
		c.OffsetsMs = []uint64{} // an array, never null
	}
	payload, err := encodeJSON(eventOut{V: 2, Type: "event", Record: &c, Policy: policyOf(&c)})
	if err != nil {
		return nil, invalid(0, "record", "cannot be written: "+err.Error())
	}
	return crcLine(payload), nil
}

// HeaderLine is the header of a journal created at createdAtMs.
func HeaderLine(createdAtMs uint64) []byte {
	payload, _ := encodeJSON(struct {
		V           int    `json:"v"`
		Type        string `json:"type"`
		Format      string `json:"format"`
		CreatedAtMs uint64 `json:"created_at_ms"`
	}{2, "header", Format, createdAtMs}) // strings and integers: cannot fail
	return crcLine(payload)
}

// hashDocument is the one-class document whose admit gives the hash r's
// policy must have: {"version": policy_version, "classes": {class: policy}}.
func hashDocument(r *Record) ([]byte, error) {
	return encodeJSON(struct {
		Version string               `json:"version"`
		Classes map[string]policyOut `json:"classes"`
	}{r.PolicyVersion, map[string]policyOut{r.Class: policyOf(r)}})
}
