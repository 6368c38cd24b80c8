//! Following a fleet rollout (docs/rollout.md): the policy team publishes
//! an artifact once into the fleet's Redis, and every replica runs what the
//! rollout record says for its id. Behind the crate's `rollout` feature.
//!
//! * [`bucket`], [`Record`] ([`Record::parse`], [`desired`]): the record
//!   and the canary rule;
//! * [`TrustedKeys`] ([`TrustedKeys::parse`], [`TrustedKeys::verify`]) and
//!   [`PrivateKey`]: Ed25519 over the artifact's sha256;
//! * [`Follower`]: a replica's tick over any [`RolloutStore`], swapping
//!   through [`crate::LiveArtifact`];
//! * [`admin`]: the publisher's side on Redis (`retry-policy publish`,
//!   `rollout status|promote|rollback`).
//!
//! Every refusal is a [`RolloutError`] with the document's code.
//!
//! ```no_run
//! use retry_policy_host::rollout::{desired, Record, TrustedKeys};
//! let record = Record::parse(r#"{"v":1,"epoch":1,"stable":"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb","canary":null,"previous":[]}"#)?;
//! let sha = desired(&record, "rust-a");
//! let trusted = TrustedKeys::parse(&std::fs::read_to_string("policy-team.pub").unwrap())?;
//! # let (key_id, signature) = ("", "");
//! trusted.verify(key_id, signature, sha)?;
//! # Ok::<(), retry_policy_host::rollout::RolloutError>(())
//! ```

pub mod admin;
mod error;
pub mod follower;
mod record;
mod trust;

pub use error::RolloutError;
pub use follower::{Counts, Follower, Identity, Refusal, RolloutStore, Tick};
pub use record::{bucket, desired, is_sha256, Canary, Record, MAX_EPOCH, MAX_PREVIOUS, MAX_RECORD_BYTES};
pub use trust::{
    key_id, signed_message, PrivateKey, TrustedKeys, MAX_TRUST_FILE_BYTES, SIGNATURE_B64_LEN, SIGNED_MESSAGE_PREFIX,
};

/// The rollout record's key.
pub const STATE_KEY: &str = "retry-policy:{rollout}:state";
/// The replicas' status records (a hash: field = replica id).
pub const REPLICAS_KEY: &str = "retry-policy:{rollout}:replicas";
/// What every artifact key starts with (then its sha256).
pub const ARTIFACT_KEY_PREFIX: &str = "retry-policy:{rollout}:artifact:";

/// The key of the artifact whose sha256 is `sha256`.
pub fn artifact_key(sha256: &str) -> String {
    format!("{ARTIFACT_KEY_PREFIX}{sha256}")
}
