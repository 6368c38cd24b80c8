//! Following a fleet rollout (docs/rollout.md): the policy team publishes
//! an artifact once into the fleet's Redis, and every replica runs what the
//! rollout record says for its id. Everything a replica decides is here,
//! once, for every language:
//!
//! * [`Record`] ([`Record::parse`], [`desired`], [`bucket`]): the record
//!   and the canary rule;
//! * [`TrustedKeys`] ([`TrustedKeys::parse`], [`TrustedKeys::verify`]):
//!   Ed25519 over the artifact's sha256, the keys from a trust file's PEM;
//! * [`Follower`]: a replica's tick as a sans-IO state machine, fed the
//!   store's replies and the host's load result, polled for the next
//!   [`Call`]; [`wire`] is its JSON form (the component's `rollout-open`
//!   and `rollout-step`), whose state text the host keeps between steps.
//!
//! A host does only I/O: the three store calls, reading the trust file
//! (at most [`MAX_TRUST_FILE_BYTES`], a regular file), sha256 of the
//! fetched bytes, its own load checks and swap, and the log lines and
//! counters the steps name. The publisher's side (`retry-policy publish`,
//! `rollout status|promote|rollback`) lives in the CLI.
//!
//! Every refusal is a [`RolloutError`] with the document's code.

mod error;
pub mod follower;
mod record;
mod trust;
pub mod vectors;
pub mod wire;

#[cfg(test)]
mod tests;

pub use error::RolloutError;
pub use follower::{Call, Fetched, Follower, Identity, Input, Refusal, Running, Step};
pub use record::{bucket, desired, is_sha256, sha256_hex, Canary, Record, MAX_EPOCH, MAX_PREVIOUS, MAX_RECORD_BYTES};
pub use trust::{
    key_id, pem_blocks, signed_message, TrustedKeys, MAX_TRUST_FILE_BYTES, SIGNATURE_B64_LEN, SIGNED_MESSAGE_PREFIX,
    SPKI_PREFIX,
};

use alloc::string::String;

/// The largest artifact fetched (docs/artifact.md's cap, 4 MiB).
pub const MAX_ARTIFACT_BYTES: u64 = 4 * 1024 * 1024;
/// The longest replica id, in bytes of UTF-8.
pub const MAX_REPLICA_ID_BYTES: usize = 200;
/// The rollout record's key.
pub const STATE_KEY: &str = "retry-policy:{rollout}:state";
/// The replicas' status records (a hash: field = replica id).
pub const REPLICAS_KEY: &str = "retry-policy:{rollout}:replicas";
/// What every artifact key starts with (then its sha256).
pub const ARTIFACT_KEY_PREFIX: &str = "retry-policy:{rollout}:artifact:";

/// The key of the artifact whose sha256 is `sha256`.
pub fn artifact_key(sha256: &str) -> String {
    let mut key = String::from(ARTIFACT_KEY_PREFIX);
    key.push_str(sha256);
    key
}
