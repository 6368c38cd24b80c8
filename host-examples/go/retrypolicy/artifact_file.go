package retrypolicy

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"example.invalid/webhook-retry-policy/host-examples/go/internal/regularfile"
)

// Step 1 of docs/artifact.md: the pin's form, then the artifact's bytes,
// bounded (internal/regularfile). Only a regular file is read (opened
// non-blocking, so a fifo never blocks the open, then judged by fstat):
// /dev/zero, a fifo, a directory or a socket is artifact_unreadable
// without a byte read. A regular file longer than MaxArtifactBytes is
// artifact_too_large from its size alone, and the read stops at the cap +
// 1 byte, so a file that grows while it is read (or whose size stat does
// not know) is refused the same way.

// MaxArtifactBytes is the most bytes an artifact may have: 4 MiB, the same
// in every host (tests/vectors-artifact). Today's is ~166 KB; a bundle adds
// at most a 1 MiB document.
const MaxArtifactBytes = 4 << 20

func tooLarge(source string, size int64) error {
	what := fmt.Sprintf("is %d", size)
	if size < 0 {
		what = fmt.Sprintf("has more than %d", MaxArtifactBytes)
	}
	return artifactErrorf(ArtifactTooLarge, nil, "%s %s bytes; an artifact is at most %d bytes (4 MiB)", source, what, MaxArtifactBytes)
}

func readArtifactFile(path string) ([]byte, error) {
	raw, err := regularfile.Read(path, MaxArtifactBytes)
	var notRegular *regularfile.NotRegularError
	var large *regularfile.TooLargeError
	switch {
	case errors.As(err, &large):
		return nil, tooLarge(path, large.Size)
	case errors.As(err, &notRegular):
		return nil, artifactErrorf(ArtifactUnreadable, nil, "cannot read the artifact %s: %v", path, err)
	case err != nil:
		return nil, artifactErrorf(ArtifactUnreadable, err, "cannot read the artifact %s: %v", path, err)
	}
	return raw, nil
}

// pinOf is the pin, lower case: given when not "", else
// RETRY_POLICY_ARTIFACT_SHA256 when set and not empty, else "" (none). A
// pin that is not 64 hex digits (either case) is an artifact_pin_invalid
// *ArtifactError.
func pinOf(pin string) (string, error) {
	if pin == "" {
		pin = os.Getenv(EnvArtifactSHA256)
	}
	if pin == "" {
		return "", nil
	}
	if _, err := hex.DecodeString(pin); len(pin) != 2*sha256.Size || err != nil {
		shown := pin
		if len(shown) > 80 {
			shown = shown[:80]
		}
		return "", artifactErrorf(ArtifactPinInvalid, nil, "the pin %q is not a sha256: expected 64 hex digits (either case)", shown)
	}
	return strings.ToLower(pin), nil
}
