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
//! * The delivery step: [`PolicyInstance::step`] (on the policy's compiled
//!   handle, cached per instance by value: `advance`, ONE call of the
//!   caller's store, `finish`), or 0.2's parts [`PolicyInstance::evaluate`]
//!   and [`PolicyInstance::settle`]; [`PolicyInstance::resume`] judges a reloaded
//!   event and [`PolicyInstance::parse_retry_after`] reads the header.
//!   [`PolicyInstance::decide`] is the WIT `decide`: the whole step inside
//!   the component, through the instance's clock and store imports
//!   (`policy-core`'s [`Clock`] and [`BudgetStore`] traits); a store error
//!   becomes `budget_unavailable` (the budget fails closed), never a trap.
//!   [`PolicyInstance::decide_with`] is the pure call (explicit now and counts).
//! * ABI 0.3's compiled policy: [`PolicyInstance::compile`] (or
//!   [`PolicyInstance::compile_document`] for a format-3
//!   [`HealthDocument`] from [`PolicyInstance::load_health_document`])
//!   gives a [`CompiledPolicy`] that owns one handle of that instance
//!   (dropping it releases the handle; [`CompiledPolicy::close`] discards
//!   it now); [`PolicyInstance::advance`] / [`PolicyInstance::finish`],
//!   the format-3 [`PolicyInstance::gate`], [`PolicyInstance::after_probe`],
//!   [`PolicyInstance::settle_wake`], [`PolicyInstance::call_for`] take it;
//!   [`PolicyInstance::apply_call`] is the in-memory store's rule.
//! * A refused artifact is [`HostError::Artifact`] ([`ArtifactError`], one
//!   variant per code of `docs/artifact.md`). Refused input comes back as
//!   [`HostError::Policy`] with the contract's code and field. A guest trap
//!   comes back as [`HostError::Trap`] and the instance is replaced before
//!   the next call.

pub mod artifact;
mod bindings;
mod cache;
pub mod cli;
mod compiled;
pub mod conformance;
mod convert;
mod convert_health;
mod delivery;
mod destinations;
mod engine;
pub mod reload;
mod step;
mod step_cache;

pub use artifact::{
    ArtifactError, ArtifactInfo, ArtifactRef, ArtifactSource, BuildInfo, LiveArtifact, LiveInstance, Swapped,
    WatchEvent, ABI_VERSION, ARTIFACT_ENV, ARTIFACT_SHA256_ENV, WIT_PACKAGE,
};
pub use bindings::wit::{Admission, PolicyDocument, Target};
pub use cache::CACHE_ENV;
pub use compiled::{CompiledPolicy, HealthClass, HealthDocument};
pub use engine::{HostError, PolicyEngine, PolicyInstance};
pub use reload::{poll_file, watch, Policies};
/// ABI 0.3's compiled-policy and format-3 types, as `policy-core` defines them.
pub use retry_policy_core::compiled::{CallOp, CallReply, HealthCall, StepResult, StoreCall};
pub use retry_policy_core::health::{
    Circuit, GateDecision, GateEvent, Health, HealthDecision, HealthOutcome, HealthSettlement, HealthView, HeldHealth,
    HoldReason, Pace, Pacer, Release, Wake, WakeDecision,
};
pub use step::{request_of, StepOutcome};
pub use step_cache::STEP_CACHE_MAX;

/// The classes of a loaded document, as `policy-core` policies.
pub fn document_classes(doc: &PolicyDocument) -> Vec<(String, retry_policy_core::Policy)> {
    doc.classes.iter().map(|c| (c.name.clone(), convert::from_wit::policy(&c.policy))).collect()
}
/// The whole of `policy-core` (its `health`, `compiled` and `document`
/// modules, the native functions), under one name, without a dependency of
/// the app's own.
pub use retry_policy_core as policy_core;
/// `policy-core`'s types the API takes and returns, at the crate root, so an
/// app depends on this crate alone (`tests/install/run` builds one that does).
pub use retry_policy_core::{
    AttemptOutcome, Backoff, BucketCounts, Budget, BudgetCounts, DeadLetter, Decision, DeliveryState, ErrorCode,
    HeldBuckets, Jitter, LimitedBy, OutcomeClass, Plan, Policy, PolicyError, Reservation, Resumption, Retry,
    Settlement, Step, Stop, StopReason, StoreOp, StoreReply, StoreRequest,
};
pub use retry_policy_core::{BudgetStore, Clock, FakeClock, InMemoryStore, SystemClock};
