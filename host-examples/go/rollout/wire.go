package rollout

import "encoding/json"

// The JSON of rollout-step (docs/rollout.md, "The follower in the
// component"). Strings are written by encoding/json, which writes invalid
// UTF-8 (a record, a key id read from the store) with U+FFFD, as the wire
// says.

// answer is rollout-step's answer.
type answer struct {
	State   string   `json:"state"`
	Call    *call    `json:"call"` // nil: the tick is over
	Log     []string `json:"log"`
	Refused *Refusal `json:"refused"`
	Swapped *string  `json:"swapped"`
}

// call is the I/O the follower asks for; its answer is the next input.
type call struct {
	Op        string `json:"op"` // tick, artifact_len, artifact, load
	ReplicaID string `json:"replica_id"`
	Status    string `json:"status"`
	SHA256    string `json:"sha256"`
	Key       string `json:"key"`
}

// tickInput starts a tick ("tick"), or says the host swapped ("swapped").
type tickInput struct {
	Op              string `json:"op"` // "tick" or "swapped"
	NowMs           int64  `json:"now_ms"`
	SHA256          string `json:"sha256"`
	DocumentVersion string `json:"document_version"`
	Events          uint64 `json:"events"`
	DeadLetters     uint64 `json:"dead_letters"`
}

// reply is the answer to a call: op's fields, or {"op", "error"} when
// err is not nil.
func reply(op string, err error, fields ...any) map[string]any {
	in := map[string]any{"op": op}
	if err != nil {
		in["error"] = err.Error()
		return in
	}
	for i := 0; i+1 < len(fields); i += 2 {
		in[fields[i].(string)] = fields[i+1]
	}
	return in
}

// text is v as JSON text (an input or a config: strings, integers, nil).
func text(v any) string {
	b, _ := json.Marshal(v) // maps and structs of strings and integers: cannot fail
	return string(b)
}
