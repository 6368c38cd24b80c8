package rollout

// The keys of a tick (docs/rollout.md), under the hash tag {rollout}
// (one Cluster slot: one pipeline reaches them both). The artifact's key
// comes with the component's call.
const (
	// StateKey holds the rollout record (a string).
	StateKey = "retry-policy:{rollout}:state"
	// ReplicasKey is the hash of status records by replica id.
	ReplicasKey = "retry-policy:{rollout}:replicas"
	// recordLastByte is GETRANGE's end: 4,097 bytes at most are read (a
	// longer record is refused by the follower, never read whole).
	recordLastByte = 4096
)
