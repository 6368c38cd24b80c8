//! # retry-policy-host
//!
//! Embed the retry-policy component in a Rust dispatcher with wasmtime. The
//! component (`dist/retry_policy.wasm`, built by `scripts/build-component`)
//! is the same artifact the Node, Python and Go hosts run, so a Rust
//! dispatcher makes exactly their decisions.
//!
//! ```no_run
//! use retry_policy_host::{PolicyEngine, InMemoryStore, SystemClock};
//! use retry_policy_core::{AttemptOutcome, DeliveryState};
//!
//! let engine = PolicyEngine::from_file("dist/retry_policy.wasm")?;   // compile once
//! let mut policy = engine.instantiate(SystemClock, InMemoryStore::new())?;  // one per thread
//! let doc = policy.load_document(&std::fs::read_to_string("policy.json")?)?;
//! let admission = policy.admit(&doc, "notification", 1_700_000_000_000)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! * [`PolicyEngine`] compiles the component once (cheap to clone, `Send +
//!   Sync`); [`PolicyInstance`] is one instance with its own store, clock and
//!   store — use one per thread or guard it with a mutex.
//! * The delivery step (contract 0.2): [`PolicyInstance::evaluate`] names the
//!   one store request an attempt needs, the host sends it, and
//!   [`PolicyInstance::settle`] turns the reply into the decision;
//!   [`PolicyInstance::resume`] judges a reloaded event and
//!   [`PolicyInstance::parse_retry_after`] reads the header. Or let
//!   [`PolicyInstance::decide`] do all three with the instance's clock and
//!   store (`policy-core`'s [`Clock`] and [`BudgetStore`] traits): a store
//!   error becomes `budget_unavailable` (the budget fails closed), never a trap.
//! * Refused input comes back as [`HostError::Policy`] with the contract's
//!   code and field. A guest trap (a bug, or memory exhaustion) comes back as
//!   [`HostError::Trap`] and the instance is replaced before the next call.

mod bindings;
pub mod cli;
pub mod conformance;
mod convert;
mod engine;
pub mod reload;
mod step;

pub use bindings::wit::{Admission, PolicyDocument};
pub use engine::{HostError, PolicyEngine, PolicyInstance};
pub use reload::{poll_file, watch, Policies};

/// The classes of a loaded document, as `policy-core` policies.
pub fn document_classes(doc: &PolicyDocument) -> Vec<(String, retry_policy_core::Policy)> {
    doc.classes.iter().map(|c| (c.name.clone(), convert::from_wit::policy(&c.policy))).collect()
}
pub use retry_policy_core::{BudgetStore, Clock, FakeClock, InMemoryStore, SystemClock};

/// Where `scripts/build-component` puts the component, relative to the
/// workspace root.
pub const DEFAULT_COMPONENT_PATH: &str = "dist/retry_policy.wasm";

/// The component path: `$RETRY_POLICY_COMPONENT`, else the workspace's
/// `dist/retry_policy.wasm`.
pub fn default_component_path() -> std::path::PathBuf {
    match std::env::var_os("RETRY_POLICY_COMPONENT") {
        Some(p) => p.into(),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(DEFAULT_COMPONENT_PATH),
    }
}
