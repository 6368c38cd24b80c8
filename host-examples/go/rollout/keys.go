package rollout

// The keys of docs/rollout.md, all under the hash tag {rollout} (one
// Cluster slot: one pipeline reaches them all).
const (
	// StateKey holds the rollout record (a string).
	StateKey = "retry-policy:{rollout}:state"
	// ReplicasKey is the hash of status records by replica id.
	ReplicasKey = "retry-policy:{rollout}:replicas"
	// ArtifactKeyPrefix + a sha256 is one published artifact's hash
	// (fields bytes, signature, key_id, abi, document_version, size,
	// published_at_ms).
	ArtifactKeyPrefix = "retry-policy:{rollout}:artifact:"
)

// ArtifactKey is the hash holding the artifact whose sha256 is digest.
func ArtifactKey(digest string) string { return ArtifactKeyPrefix + digest }
