package driver

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

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

// check applies the flags' exit-2 rules: --artifact-from-redis needs
// --redis or --redis-cluster and --trust-key and excludes
// --watch-artifact-ms; --trust-key needs --artifact-from-redis (a trust
// file that cannot be read, is not a regular file or is over 1 MiB is
// rollout_trust_invalid; its keys are read when the follower opens);
// --replica-id is 1 to 200 bytes of UTF-8; --rollout-poll-ms 50 to 60000.
func (r *RolloutConfig) check(set map[string]bool, pollMs string) error {
	ms, err := strconv.ParseUint(pollMs, 10, 16)
	if err != nil || ms < 50 || ms > 60000 {
		return usageErrorf("--rollout-poll-ms %q: want a whole number of milliseconds from 50 to 60000", pollMs)
	}
	r.Poll = time.Duration(ms) * time.Millisecond
	if set["replica-id"] {
		if n := len(r.ReplicaID); n < 1 || n > rollout.MaxReplicaIDBytes || !utf8.ValidString(r.ReplicaID) {
			return usageErrorf("--replica-id: want 1 to %d bytes of UTF-8 (got %d bytes)", rollout.MaxReplicaIDBytes, n)
		}
	} else {
		r.ReplicaID = rollout.DefaultReplicaID("go")
	}
	switch {
	case set["trust-key"] && !r.Follow:
		return usageErrorf("--trust-key is only for --artifact-from-redis")
	case !r.Follow:
		return nil
	case !set["redis"] && !set["redis-cluster"]:
		return usageErrorf("--artifact-from-redis needs --redis URL or --redis-cluster URL (the fleet's store)")
	case !set["trust-key"]:
		return usageErrorf("--artifact-from-redis needs --trust-key FILE (the publishers' Ed25519 public keys)")
	case set["watch-artifact-ms"]:
		return usageErrorf("--artifact-from-redis and --watch-artifact-ms are exclusive (one source of artifacts)")
	}
	if r.TrustPEM, err = rollout.ReadTrustFile(r.TrustKeyPath); err != nil {
		return errSetup{fmt.Sprintf("--trust-key: %v", err)} // one line naming the file and rollout_trust_invalid
	}
	return nil
}
