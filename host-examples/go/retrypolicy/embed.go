package retrypolicy

import _ "embed"

// embeddedArtifact is this package's copy of the policy artifact,
// byte-identical to dist/retry_policy.wasm (the component every host
// runs): scripts/build-component writes it, and
// TestTheEmbeddedArtifactIsTheOneInDist fails while it is stale. It is
// what New runs when neither the caller nor RETRY_POLICY_ARTIFACT names
// another.
//
//go:embed retry_policy.wasm
var embeddedArtifact []byte

// EmbeddedArtifact returns a copy of the artifact embedded in this package.
func EmbeddedArtifact() []byte { return append([]byte(nil), embeddedArtifact...) }

// MainModule returns the main core module of a component (the one that
// exports cabi_realloc, which wazero runs), or an artifact_invalid
// *ArtifactError.
func MainModule(component []byte) ([]byte, error) {
	c, err := readContainer(component)
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), c.core...), nil
}
