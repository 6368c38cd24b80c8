package rollout

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
)

// The record's bounds (docs/rollout.md "The rollout record").
const (
	// MaxRecordBytes is the most bytes a record's text may have.
	MaxRecordBytes = 4096
	// MaxEpoch is the largest epoch: 2^53 - 1 (exact in every language's numbers).
	MaxEpoch = 1<<53 - 1
	// MaxPrevious is how many earlier stable artifacts a record keeps.
	MaxPrevious = 5
)

// Record is the rollout record: which artifact is stable, which is in
// canary and for what share, and the stable ones before.
type Record struct {
	V        int64    `json:"v"`
	Epoch    uint64   `json:"epoch"`
	Stable   string   `json:"stable"`
	Canary   *Canary  `json:"canary"`
	Previous []string `json:"previous"`
}

// Canary is an artifact run by the replicas whose bucket is below Percent.
type Canary struct {
	SHA256  string `json:"sha256"`
	Percent int64  `json:"percent"`
}

// wireRecord is what the JSON parser reads: pointers tell a missing or
// null field from a zero.
type wireRecord struct {
	V        *int64      `json:"v"`
	Epoch    *uint64     `json:"epoch"`
	Stable   *string     `json:"stable"`
	Canary   *wireCanary `json:"canary"`
	Previous *[]string   `json:"previous"`
}

type wireCanary struct {
	SHA256  *string `json:"sha256"`
	Percent *int64  `json:"percent"`
}

// ParseRecord reads a record's text: encoding/json parses it, every rule
// of docs/rollout.md is checked, and the text must be byte for byte the
// canonical text of what was read (so whitespace, key order, an unknown
// or duplicate key, 1.0 for 1 are refused too). Any refusal is an *Error
// with CodeRecordInvalid.
func ParseRecord(text []byte) (Record, error) {
	if len(text) > MaxRecordBytes {
		return Record{}, errorf(CodeRecordInvalid, "the record has more than %d bytes", MaxRecordBytes)
	}
	var w wireRecord
	if err := json.Unmarshal(text, &w); err != nil {
		return Record{}, errorf(CodeRecordInvalid, "the record is not the record's JSON: %v", err)
	}
	r, err := w.check()
	if err != nil {
		return Record{}, err
	}
	if !bytes.Equal(r.Canonical(), text) {
		return Record{}, errorf(CodeRecordInvalid, "the record is not its canonical text (no whitespace, the keys v, epoch, stable, canary, previous in that order, each once, nothing else)")
	}
	return r, nil
}

// check applies the field rules to what the parser read.
func (w wireRecord) check() (Record, error) {
	bad := func(format string, a ...any) (Record, error) {
		return Record{}, errorf(CodeRecordInvalid, format, a...)
	}
	switch {
	case w.V == nil || *w.V != 1:
		return bad("v must be the integer 1 (a newer record format is not read)")
	case w.Epoch == nil || *w.Epoch < 1 || *w.Epoch > MaxEpoch:
		return bad("epoch must be an integer from 1 to 2^53 - 1")
	case w.Stable == nil || !IsSHA256(*w.Stable):
		return bad("stable must be a sha256 (64 lowercase hex digits)")
	case w.Previous == nil:
		return bad("previous must be an array of sha256s")
	case len(*w.Previous) > MaxPrevious:
		return bad("previous has %d sha256s; at most %d", len(*w.Previous), MaxPrevious)
	}
	r := Record{V: 1, Epoch: *w.Epoch, Stable: *w.Stable, Previous: *w.Previous}
	for _, p := range r.Previous {
		if !IsSHA256(p) || p == r.Stable {
			return bad("previous must hold sha256s other than stable's")
		}
	}
	if c := w.Canary; c != nil {
		switch {
		case c.SHA256 == nil || !IsSHA256(*c.SHA256) || *c.SHA256 == r.Stable:
			return bad("canary.sha256 must be a sha256 other than stable's")
		case c.Percent == nil || *c.Percent < 1 || *c.Percent > 100:
			return bad("canary.percent must be an integer from 1 to 100")
		}
		r.Canary = &Canary{SHA256: *c.SHA256, Percent: *c.Percent}
	}
	return r, nil
}

// Canonical is the record's one canonical text (docs/rollout.md).
func (r Record) Canonical() []byte {
	if r.Previous == nil {
		r.Previous = []string{} // [] , never null
	}
	text, _ := json.Marshal(r) // strings, integers and a pointer: encoding/json cannot fail on them
	return text
}

// Desired is the sha256 the replica replicaID runs under r: the canary's
// when there is one and the replica's bucket is below its percent, else
// stable.
func (r Record) Desired(replicaID string) string {
	if r.Canary != nil && int64(Bucket(replicaID)) < r.Canary.Percent {
		return r.Canary.SHA256
	}
	return r.Stable
}

// Bucket is a replica's bucket, 0 to 99: the first four bytes of
// sha256(UTF-8 of replicaID) as an unsigned big-endian integer, modulo 100.
func Bucket(replicaID string) int {
	sum := sha256.Sum256([]byte(replicaID))
	return int(binary.BigEndian.Uint32(sum[:4]) % 100)
}

// IsSHA256 says whether s is 64 lowercase hex digits.
func IsSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
