package rollout

import "encoding/json"

// Status is a replica's status record (docs/rollout.md "The status
// record"), written at every tick into ReplicasKey under its replica id.
type Status struct {
	ReplicaID      string `json:"replica_id"`
	Language       string `json:"language"`
	Host           string `json:"host"`
	PID            int    `json:"pid"`
	ArtifactSHA256 string `json:"artifact_sha256"`
	// DocumentVersion is the version of the document the replica admits
	// new events under (Config.DocumentVersion; by default the running
	// artifact's embedded document's, "" when none).
	DocumentVersion string   `json:"document_version"`
	SinceMs         int64    `json:"since_ms"`     // when the running artifact was loaded or swapped in (Unix ms)
	Events          uint64   `json:"events"`       // events finished (delivered or dead-lettered) since SinceMs
	DeadLetters     uint64   `json:"dead_letters"` // of them, dead-lettered
	SeenMs          int64    `json:"seen_ms"`      // this tick's Unix ms
	Epoch           uint64   `json:"epoch"`        // the last settled epoch (0 before any)
	Refusal         *Refusal `json:"refusal"`      // the latest refusal since start (nil: none)
}

// Refusal is an artifact (or a record) the follower refused: it kept the
// running artifact.
type Refusal struct {
	// SHA256 is the desired artifact's; "" (null in JSON) when the record
	// itself was refused (rollout_record_invalid: it names no artifact one
	// can trust).
	SHA256  string `json:"sha256"`
	Code    Code   `json:"code"`
	Message string `json:"message"`
	AtMs    int64  `json:"at_ms"`
}

// MarshalJSON writes SHA256 "" as null (a refused record names no artifact).
func (r Refusal) MarshalJSON() ([]byte, error) {
	var sha *string
	if r.SHA256 != "" {
		sha = &r.SHA256
	}
	return json.Marshal(struct {
		SHA256  *string `json:"sha256"`
		Code    Code    `json:"code"`
		Message string  `json:"message"`
		AtMs    int64   `json:"at_ms"`
	}{sha, r.Code, r.Message, r.AtMs})
}

// MaxReplicaIDBytes is the longest replica id (UTF-8 bytes).
const MaxReplicaIDBytes = 200
