// Package rollout follows a policy artifact published to the fleet's
// Redis (docs/rollout.md): the parts every language computes the same
// way (tests/vectors-rollout) and the replica's follower.
//
//   - Bucket and Record.Desired: the canary rule (sha256 of the replica id,
//     first four bytes big-endian, modulo 100; the canary when the bucket is
//     below its percent).
//   - ParseRecord: the rollout record, refused (rollout_record_invalid)
//     unless it passes every rule and is byte for byte its canonical text.
//   - ParseTrust and ReadTrustFile: the Ed25519 public keys a replica
//     trusts (rollout_trust_invalid).
//   - Trusted.Verify: an artifact's signature (rollout_key_unknown,
//     rollout_signature_invalid).
//   - Follower: the tick (HSET of this replica's status record, GETRANGE of
//     the record's first 4,097 bytes, one pipelined round trip) and the fetch-verify-load-swap
//     sequence, on any go-redis UniversalClient (standalone, TLS, ACL
//     user, Cluster) and the host's own Engine (its load checks and swap).
//
// Every refusal is an *Error whose Code is one of docs/rollout.md's codes
// (or, for the artifact's own checks, docs/artifact.md's):
//
//	rec, err := rollout.ParseRecord(text)
//	var re *rollout.Error
//	if errors.As(err, &re) && re.Code == rollout.CodeRecordInvalid { ... }
package rollout
