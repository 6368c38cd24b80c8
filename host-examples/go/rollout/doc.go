// Package rollout follows a policy artifact published to the fleet's
// Redis (docs/rollout.md) for one replica. What a replica decides (the
// record reader, the canary rule, the trust file's keys, the signature
// check, what settles an epoch, what is logged once, the status record)
// runs inside the artifact, as its rollout-open and rollout-step exports
// ("The follower in the component"); this package does the I/O around
// them:
//
//   - ReadTrustFile: the trust file (a regular file of at most 1 MiB,
//     refused unread otherwise: rollout_trust_invalid), whose text the
//     component reads.
//   - Follower: Tick feeds the component's follower a tick and then the
//     answer to every call it names: one pipelined HSET of the status
//     record and GETRANGE of the record, HSTRLEN and HMGET of the
//     artifact's hash (on any go-redis UniversalClient: standalone, TLS,
//     ACL user, Cluster), the sha256 of the fetched bytes, and the host's
//     own load checks and swap (Engine.SwapArtifactFrom, source "redis").
//     Run ticks in the background. The follower's state is a text the
//     Follower keeps, so it outlives a swap of the artifact it runs on.
//
// The component's refusals of a config or an input are an *Error whose
// Code is rollout_trust_invalid or rollout_input_invalid:
//
//	f, err := rollout.NewFollower(ctx, cfg)
//	var re *rollout.Error
//	if errors.As(err, &re) && re.Code == rollout.CodeTrustInvalid { ... }
package rollout
