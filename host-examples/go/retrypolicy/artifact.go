package retrypolicy

import (
	"fmt"
	"os"
)

// The policy artifact (docs/artifact.md): the one component file every
// host runs, found at run time, checked before first use.

// ABI is the WIT package this host speaks, as ArtifactInfo.ABI spells it.
const ABI = "webhook:retry-policy@1.0.0"

// The environment variables every host honours: the artifact's path, and
// a sha256 pin used when the caller gives none.
const (
	EnvArtifact       = "RETRY_POLICY_ARTIFACT"
	EnvArtifactSHA256 = "RETRY_POLICY_ARTIFACT_SHA256"
)

// ArtifactInfo says which artifact an Engine runs.
type ArtifactInfo struct {
	// SHA256 is the whole file's digest, 64 lowercase hex digits.
	SHA256 string
	// ABI is the WIT package the artifact implements ("webhook:retry-policy@1.0.0").
	ABI string
	// DocumentVersion is the version of the document the artifact embeds
	// (custom section webhook-retry-policy:document); "" when none.
	DocumentVersion string
	// Source is where it came from: a path, "embedded" or "bytes".
	Source string
}

// ArtifactErrorCode is one of the artifact contract's error codes.
type ArtifactErrorCode string

// The codes of docs/artifact.md, in the order the checks run.
const (
	ArtifactPinInvalid      ArtifactErrorCode = "artifact_pin_invalid"
	ArtifactUnreadable      ArtifactErrorCode = "artifact_unreadable"
	ArtifactTooLarge        ArtifactErrorCode = "artifact_too_large"
	ArtifactSHA256Mismatch  ArtifactErrorCode = "artifact_sha256_mismatch"
	ArtifactInvalid         ArtifactErrorCode = "artifact_invalid"
	ArtifactABIMismatch     ArtifactErrorCode = "artifact_abi_mismatch"
	ArtifactSelfTestFailed  ArtifactErrorCode = "artifact_self_test_failed"
	ArtifactDocumentInvalid ArtifactErrorCode = "artifact_document_invalid"
)

// ArtifactInfo.Source of the copy embedded in this package, and of bytes
// the caller passed.
const (
	SourceEmbedded = "embedded"
	SourceBytes    = "bytes"
)

// ArtifactError is an artifact refused at load or swap: the contract's
// code and a message naming what was expected and what was found. Match
// it with errors.As; Err is the underlying cause, if any (an OS error, a
// *PolicyError of the embedded document, wazero's refusal).
type ArtifactError struct {
	Code    ArtifactErrorCode
	Message string
	Err     error
}

func (e *ArtifactError) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

func (e *ArtifactError) Unwrap() error { return e.Err }

func invalidf(format string, args ...any) error {
	return &ArtifactError{Code: ArtifactInvalid, Message: fmt.Sprintf(format, args...)}
}

func artifactErrorf(code ArtifactErrorCode, cause error, format string, args ...any) error {
	return &ArtifactError{Code: code, Message: fmt.Sprintf(format, args...), Err: cause}
}

// artifactChoice is what the caller asked for: bytes, a path, or neither
// (then RETRY_POLICY_ARTIFACT, else the embedded copy), and a pin.
type artifactChoice struct {
	bytes []byte
	path  string
	pin   string
}

// WithArtifact runs the given component bytes instead of the default
// (RETRY_POLICY_ARTIFACT, else the copy embedded in this package).
func WithArtifact(component []byte) Option {
	return func(cfg *config) { cfg.artifact.bytes, cfg.artifact.path = component, "" }
}

// WithArtifactPath runs the component file at path instead of the default.
func WithArtifactPath(path string) Option {
	return func(cfg *config) { cfg.artifact.path, cfg.artifact.bytes = path, nil }
}

// WithExpectedSHA256 pins the artifact: its sha256 (64 hex digits, either
// case, else artifact_pin_invalid) must be this, else New fails with
// artifact_sha256_mismatch. Without it (or with ""),
// RETRY_POLICY_ARTIFACT_SHA256 pins when set and not empty.
func WithExpectedSHA256(hex string) Option {
	return func(cfg *config) { cfg.artifact.pin = hex }
}

// read resolves the choice to bytes and a source label (step 1 of the
// checks): a caller's bytes or path, else the environment's path (when
// not empty), else the embedded copy. A set but unreadable path is an
// error, never a fallback. The pin is the caller's, else the
// environment's, its form checked before anything is read.
func (c artifactChoice) read() (raw []byte, source, pin string, err error) {
	if pin, err = pinOf(c.pin); err != nil {
		return nil, "", "", err
	}
	switch {
	case c.bytes != nil:
		return c.bytes, SourceBytes, pin, nil
	case c.path != "":
		raw, err = readArtifactFile(c.path)
		return raw, c.path, pin, err
	}
	if p := os.Getenv(EnvArtifact); p != "" {
		raw, err = readArtifactFile(p)
		return raw, p, pin, err
	}
	return embeddedArtifact, SourceEmbedded, pin, nil
}
