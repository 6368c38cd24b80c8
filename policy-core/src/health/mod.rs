//! Format 3: endpoint health, "hold, don't drop" (docs/health.md).
//!
//! Format 2 protects an endpoint by dead-lettering what the budget refuses.
//! Format 3 adds a per-endpoint health state beside the budget counts,
//! updated by the same atomic store call, and a new decision, **hold**: the
//! event waits, spending no attempt, while its window keeps running.
//!
//! Pure functions mirroring the spec's ops, not yet wired into documents,
//! the delivery step or the component (the ABI moves once, with issue 20):
//!
//! * [`section`]: the `health` section (defaults, validation with
//!   `invalid_document` paths, hash words), [`parse_document`].
//! * [`state`]: the health state and the store's rule, [`apply`], incl. the
//!   `report` and `probe` ops.
//! * [`gate`](mod@gate): the gate before each send, [`gate()`], [`after_probe`].
//! * [`pacer`]: the release token bucket, [`pace`], [`normal_per_s`].
//! * [`settle`](mod@settle): holds instead of budget refusals,
//!   [`settle()`], and what an attempt's call carries
//!   ([`health_outcome`], [`pause_until_ms`]).
//! * [`codec`]: JSON of every input and output (the vectors' shapes).
//! * [`vectors`]: the reference runner of the format-3 vectors, [`vectors::run_case`].

pub mod codec;
pub mod gate;
pub mod pacer;
pub mod section;
pub mod settle;
pub mod state;
// The vectors' reference runner is for tests and the differential only:
// compiled into the component, unused, it still changed LLVM's inlining
// (the artifact grew 111 bytes).
#[cfg(not(target_family = "wasm"))]
pub mod vectors;

pub use gate::{after_probe, gate, GateDecision, GateEvent, HoldReason};
pub use pacer::{normal_per_s, pace, rate_per_s, Pace, Pacer};
pub use section::{parse_document, policy_hash, Circuit, Health, HealthDocument, Release};
pub use settle::{health_outcome, pause_until_ms, settle, HealthDecision, HealthSettlement};
pub use state::{
    apply, FailureBuckets, HealthOp, HealthOutcome, HealthReply, HealthRequest, HealthState, HealthView, HeldHealth,
};
