//! # retry-policy-host
//!
//! Run the retry-policy artifact (one WebAssembly component, `docs/artifact.md`)
//! in a Rust dispatcher with wasmtime's component API. The artifact is read
//! at run time: bytes or a path the caller passes, else the file named by
//! `RETRY_POLICY_ARTIFACT`, else the copy shipped inside this crate
//! (`artifact/retry_policy.wasm`, byte-identical to `dist/retry_policy.wasm`).
//! It is checked before first use (sha256 pin, container, ABI, self-test,
//! embedded document) and can be swapped without a restart ([`LiveArtifact`]).
//! Go and Python run the same file's core module; so a Rust dispatcher makes
//! exactly their decisions.
//!
//! ```no_run
//! use retry_policy_host::{PolicyEngine, InMemoryStore, SystemClock};
//!
//! let engine = PolicyEngine::load_default()?;                               // $RETRY_POLICY_ARTIFACT or embedded
//! println!("{}", engine.info().loaded_line());
//! let mut policy = engine.instantiate(SystemClock, InMemoryStore::new())?;  // one per thread
//! let doc = policy.load_document(&std::fs::read_to_string("policy.json")?)?;
//! let admission = policy.admit(&doc, "notification", 1_700_000_000_000)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! * [`PolicyEngine`] is one loaded, checked artifact (cheap to clone,
//!   `Send` and `Sync`); [`PolicyInstance`] is one instance with its own
//!   wasmtime store, clock and budget store — use one per thread or guard it
//!   with a mutex.
//! * The delivery engine (docs/engine.md): [`PolicyInstance::engine_open`],
//!   [`PolicyInstance::engine_feed`], [`PolicyInstance::engine_resume`],
//!   [`PolicyInstance::engine_close`] (JSON in, the engine's actions out;
//!   the dispatcher in `dispatcher/` drives it), and the destination check
//!   ([`PolicyInstance::read_target`], [`PolicyInstance::destination_refusal`]).
//! * One attempt on its own: [`PolicyInstance::step`] (`evaluate`, ONE call
//!   of the caller's store, `settle`), or its parts
//!   [`PolicyInstance::evaluate`] and [`PolicyInstance::settle`];
//!   [`PolicyInstance::store_apply`] is the in-memory store's rule and
//!   [`PolicyInstance::store_key`] a shared store's key;
//!   [`PolicyInstance::parse_retry_after`] reads the header.
//!   [`PolicyInstance::decide`] is the WIT `decide`: the whole step inside
//!   the component, through the instance's clock and store imports
//!   (`policy-core`'s [`Clock`] and [`BudgetStore`] traits); a store error
//!   becomes `budget_unavailable` (the budget fails closed), never a trap.
//! * Documents: [`PolicyInstance::load_document`] (format 2) and
//!   [`PolicyInstance::load_health_document`] (format 3: each class's
//!   `health` section, [`HealthDocument`]); [`PolicyInstance::admit`].
//! * A refused artifact is [`HostError::Artifact`] ([`ArtifactError`], one
//!   variant per code of `docs/artifact.md`). Refused input comes back as
//!   [`HostError::Policy`] with the contract's code and field. A guest trap
//!   comes back as [`HostError::Trap`] and the instance is replaced before
//!   the next call.

pub mod artifact;
mod bindings;
mod cache;
pub mod cli;
pub mod conformance;
#[macro_use]
mod convert;
mod delivery;
mod destinations;
mod engine;
mod health_document;
pub mod reload;
#[cfg(feature = "rollout")]
pub mod rollout;
mod step;
#[cfg(feature = "rollout")]
pub mod tls;

pub use artifact::{
    ArtifactError, ArtifactInfo, ArtifactRef, ArtifactSource, BuildInfo, LiveArtifact, LiveInstance, Swapped,
    WatchEvent, ABI_VERSION, ARTIFACT_ENV, ARTIFACT_SHA256_ENV, WIT_PACKAGE,
};
pub use bindings::wit::{Admission, PolicyDocument, Target};
pub use cache::CACHE_ENV;
pub use engine::{HostError, PolicyEngine, PolicyInstance};
pub use health_document::{HealthClass, HealthDocument};
pub use reload::{poll_file, watch, Policies};
/// The `health` section of a format-3 class, as `policy-core` defines it.
pub use retry_policy_core::health::{Circuit, Health, Release};
pub use step::StepOutcome;

/// The classes of a loaded document, as `policy-core` policies.
pub fn document_classes(doc: &PolicyDocument) -> Vec<(String, retry_policy_core::Policy)> {
    doc.classes.iter().map(|c| (c.name.clone(), convert::from_wit::policy(&c.policy))).collect()
}
/// The whole of `policy-core` (its `engine`, `health` and `document`
/// modules, the native functions), under one name, without a dependency of
/// the app's own.
pub use retry_policy_core as policy_core;
/// `policy-core`'s types the API takes and returns, at the crate root, so an
/// app depends on this crate alone (`tests/install/run` builds one that does).
pub use retry_policy_core::{
    AttemptOutcome, Backoff, BucketCounts, Budget, BudgetCounts, DeadLetter, Decision, DeliveryState, ErrorCode,
    HeldBuckets, Jitter, LimitedBy, OutcomeClass, Plan, Policy, PolicyError, Reservation, Retry, Settlement, Step,
    Stop, StopReason, StoreOp, StoreReply, StoreRequest,
};
pub use retry_policy_core::{BudgetStore, Clock, FakeClock, InMemoryStore, SystemClock};
