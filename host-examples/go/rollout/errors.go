package rollout

import (
	"fmt"

	rp "example.invalid/webhook-retry-policy/host-examples/go/retrypolicy"
)

// Code is a refusal's code, as docs/rollout.md (and docs/artifact.md, for
// the artifact's own checks) spell it.
type Code string

// The codes of docs/rollout.md.
const (
	CodeRecordInvalid    Code = "rollout_record_invalid"
	CodeTrustInvalid     Code = "rollout_trust_invalid"
	CodeKeyUnknown       Code = "rollout_key_unknown"
	CodeSignatureInvalid Code = "rollout_signature_invalid"
	CodeArtifactMissing  Code = "rollout_artifact_missing"
	// The artifact contract's codes a follower gives for a fetched
	// artifact: over the cap by HSTRLEN (never fetched), and bytes whose
	// sha256 is not the one the record names.
	CodeArtifactTooLarge       = Code(rp.ArtifactTooLarge)
	CodeArtifactSHA256Mismatch = Code(rp.ArtifactSHA256Mismatch)
)

// Error is a refusal: its code and a sentence saying what was expected
// and what was found. Match it with errors.As.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

func errorf(code Code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}
