package driver

import (
	"time"

	"example.invalid/webhook-retry-policy/host-examples/go/rollout"
)

// RolloutConfig is --artifact-from-redis and its flags (docs/replica.md,
// docs/rollout.md).
type RolloutConfig struct {
	Follow       bool          // --artifact-from-redis: follow the fleet's published artifact
	TrustKeyPath string        // --trust-key
	TrustPEM     []byte        // its text, read at parse time (the follower reads its keys)
	ReplicaID    string        // --replica-id (default go-<hostname>-<pid>)
	Poll         time.Duration // --rollout-poll-ms
}

// rolloutConfig is the rollout's flags as replica-args judged them (it
// checks which need which); with --artifact-from-redis the trust file is
// read now: one that cannot be read, is not a regular file or is over
// 1 MiB is rollout_trust_invalid (its keys are read when the follower
// opens).
func rolloutConfig(a replicaAnswer) (RolloutConfig, error) {
	r := RolloutConfig{Follow: a.ArtifactFromRedis, TrustKeyPath: a.TrustKey, ReplicaID: a.ReplicaID,
		Poll: time.Duration(a.RolloutPollMs) * time.Millisecond}
	if r.Follow {
		var err error
		if r.TrustPEM, err = rollout.ReadTrustFile(r.TrustKeyPath); err != nil {
			return r, usageErrorf("--trust-key: %v", err) // one line naming the file and rollout_trust_invalid
		}
	}
	return r, nil
}
