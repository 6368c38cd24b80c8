package rollout

import (
	"crypto/ed25519"
	"encoding/base64"
	"strings"
)

// SignedMessagePrefix starts the message a publisher signs; the artifact's
// sha256 (64 lowercase hex digits) follows it, no newline after.
const SignedMessagePrefix = "webhook-retry-policy artifact v1\n"

// SignatureLength is a signature's length in standard base64 with padding
// (64 bytes).
const SignatureLength = 88

// SignedMessage is the message signed for the artifact whose sha256 is
// artifactSHA256 (64 lowercase hex digits).
func SignedMessage(artifactSHA256 string) []byte {
	return []byte(SignedMessagePrefix + artifactSHA256)
}

// Verify checks an artifact's signature: keyID must be a trusted key's id
// (else CodeKeyUnknown), and signatureB64 88 characters of standard
// base64 with padding of 64 bytes that verify (pure Ed25519, RFC 8032)
// with that key over SignedMessage(artifactSHA256) (else
// CodeSignatureInvalid). It returns nil or an *Error.
func (t *Trusted) Verify(keyID, signatureB64, artifactSHA256 string) error {
	pub, ok := t.keys[keyID]
	if !ok {
		return errorf(CodeKeyUnknown, "key_id %q is not the id of a trusted key (%s)", shown(keyID), strings.Join(t.ids, ", "))
	}
	// the length first, and no line breaks (encoding/base64 skips \r and \n)
	if len(signatureB64) != SignatureLength || strings.ContainsAny(signatureB64, "\r\n") {
		return errorf(CodeSignatureInvalid, "the signature is %d characters; want %d of standard base64 (64 bytes)", len(signatureB64), SignatureLength)
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(signatureB64)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return errorf(CodeSignatureInvalid, "the signature is not standard base64 of 64 bytes")
	}
	if !ed25519.Verify(pub, SignedMessage(artifactSHA256), sig) {
		return errorf(CodeSignatureInvalid, "the signature does not verify with key %s over sha256 %s", keyID, shown(artifactSHA256))
	}
	return nil
}

// shown is s cut to 80 bytes for a message.
func shown(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
