//! Following a fleet rollout (docs/rollout.md): the policy team publishes
//! an artifact once into the fleet's Redis, and every replica runs what the
//! rollout record says for its id. Behind the crate's `rollout` feature.
//!
//! Everything a replica decides (the record reader, the canary rule, the
//! trust file's keys, the Ed25519 check, the tick's order, the status
//! record, the log lines) runs inside the artifact, through its
//! `rollout-open` and `rollout-step` exports ("The follower in the
//! component"). This module is the host's side, I/O only:
//!
//! * [`Follower`]: a replica's tick, driving the component over any
//!   [`RolloutStore`] and swapping through [`crate::LiveArtifact`];
//!   [`read_trust_file`] reads `--trust-key` for it;
//! * [`PrivateKey`]: the publisher's Ed25519 signing (`retry-policy publish`);
//! * [`admin`]: the publisher's side on Redis (`retry-policy publish`,
//!   `rollout status|promote|rollback`), on `policy-core`'s [`Record`],
//!   [`bucket`] and [`desired`], re-exported here.
//!
//! ```no_run
//! use retry_policy_host::rollout::{read_trust_file, rust_identity, Counts, Follower, RolloutStore};
//! use retry_policy_host::{LiveArtifact, PolicyEngine};
//! # fn store() -> Box<dyn RolloutStore> { unimplemented!() }
//! let live = LiveArtifact::new(PolicyEngine::load_default()?);
//! let trust = read_trust_file("policy-team.pub".as_ref())?;
//! let mut follower = Follower::open(&rust_identity(None), &trust, 1_796_000_000_000, &live)?;
//! let tick = follower.tick(&*store(), &live, Counts::default(), None, 1_796_000_000_500);
//! tick.log.iter().for_each(|line| eprintln!("{line}"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod admin;
mod error;
pub mod follower;
mod sign;
mod trust_file;

pub use error::RolloutError;
pub use follower::{hostname, rust_identity, Counts, Follower, RolloutStore, Tick};
/// `policy-core`'s rollout (the code the component runs), natively: the
/// record and canary rule for the publisher's commands, the keys' names.
pub use retry_policy_core::rollout::{
    artifact_key, bucket, desired, is_sha256, key_id, signed_message, Canary, Identity, Record, Refusal,
    ARTIFACT_KEY_PREFIX, MAX_EPOCH, MAX_PREVIOUS, MAX_RECORD_BYTES, MAX_TRUST_FILE_BYTES, REPLICAS_KEY,
    SIGNATURE_B64_LEN, SIGNED_MESSAGE_PREFIX, STATE_KEY,
};
pub use sign::PrivateKey;
pub use trust_file::read_trust_file;
