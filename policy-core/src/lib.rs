//! # retry-policy-core
//!
//! The webhook retry policy, sans-IO: after each delivery attempt, decide
//! *deliver*, *retry after `delay_ms`*, or *stop and dead-letter with a
//! reason*. The crate never calls `SystemTime::now()`, never touches a
//! network or a store: time and budget counts are inputs, decisions are
//! data. That is what lets the same code run natively, inside one
//! WebAssembly component shared by Rust, Node, Python and Go dispatchers,
//! and in tests with a fake clock.
//!
//! ## The design, in four rules
//!
//! 1. **Fix the window, derive the attempts.** Each event class promises a
//!    retry window (`window_ms`). [`plan`] walks the backoff curve's expected
//!    delays and keeps every attempt that starts inside the window, capped
//!    by `hard_cap`; `max_attempts` is never configured beside the window.
//!    When the cap, not the window, ended the schedule, `limited_by` says so.
//! 2. **Classify outcomes as data.** [`classify_status`] and
//!    [`classify_error`] are two tables and two fallbacks (unknown 5xx
//!    retryable, everything else terminal). 401/403 are retried exactly once,
//!    with `refresh_credentials`.
//! 3. **Gates in a fixed order.** [`decide_with`]: success, terminal,
//!    attempts, window, delay-past-window, budget. The budget, the only gate
//!    needing shared state, is last, and [`evaluate`] tells a host whether it
//!    must read its store at all.
//! 4. **A fleet-wide retry budget.** Retries to an endpoint may not exceed
//!    `ratio` of all attempts to it ([`Budget::allows_retry`], sliding by
//!    default so it does not reset at each rollover). When the counts cannot
//!    be read the budget fails closed: `budget_unavailable`, never "allow".
//!
//! ## Determinism
//!
//! Durations and instants are integer milliseconds. The two doubles
//! (`factor`, `ratio`) are used in a fixed order with no fused operations,
//! so every host agrees bit for bit. Jitter is a pure function of
//! (event id, retry index, backoff) — see [`backoff`] for the exact
//! algorithm — so an operator can recompute any event's schedule.
//!
//! ## The delivery step (format 2)
//!
//! A dispatcher needs more than a decision: it counts attempts in a shared
//! store, reserves retries, reloads events, reads Retry-After. All of it is
//! here, as data ([`step`], [`store`], [`retry_after`]):
//!
//! 1. [`evaluate`] runs gates 1-5 and names the ONE store request the attempt
//!    needs ([`StoreRequest`]: `record`, `reserve` or `record_reserve`, with
//!    the bucket already computed).
//! 2. The host sends it (Redis: one `EVALSHA` of `fleet/budget.lua`; in
//!    memory: [`store_apply`]).
//! 3. [`settle`] turns the reply into the decision; an unavailable store
//!    fails closed, and a store whose verdict differs from the rule is
//!    flagged (`budget_disagreement`).
//!
//! [`resume`] judges an event reloaded from storage; [`parse_retry_after`]
//! reads the header. Work is bounded whatever the inputs: `max_attempts <=
//! 100`, `retry_index <= 99`, documents `<= 1 MiB`, parsing linear.
//!
//! ## Endpoint health (format 3, not yet in the component)
//!
//! [`health`] implements docs/health.md ("hold, don't drop") as pure
//! functions: the `health` section, the store's health rule with its
//! `report` and `probe` ops, the gate before each send, the release pacer
//! and holds instead of budget refusals. Nothing in the format-2 paths
//! (documents, [`step`], [`store`], the component) calls it yet: the ABI
//! moves once, with issue 20; until then it is not compiled for wasm
//! targets, so the artifact's code is unchanged.
//!
//! ## Injected ports
//!
//! [`Clock`] and [`BudgetStore`] are tiny traits; [`FakeClock`] and
//! [`InMemoryStore`] ship here. [`decide`] drives them: evaluate, at most one
//! store call, settle.
//!
//! ## Features
//!
//! * `serde` — `Serialize`/`Deserialize` for [`json::Value`], the input of
//!   the strict codec ([`codec`]) and of policy documents ([`document`]), so
//!   any serde format can feed them. no_std.
//! * `std` — `std::error::Error`, [`SystemClock`].
//! * `toml` — TOML policy documents.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod backoff;
pub mod budget;
pub mod classify;
pub mod compiled;
pub mod decide;
pub mod destination;
pub mod engine;
pub mod error;
pub mod health;
pub mod journal;
pub mod metrics;
pub mod plan;
pub mod ports;
pub mod replica_args;
pub mod retry_after;
pub mod rollout;
pub mod step;
pub mod store;
mod text;
pub mod vectors;

pub mod codec;
pub mod document;
pub mod json;
#[cfg(feature = "serde")]
mod json_serde;

pub use backoff::{Backoff, Jitter};
pub use budget::{budget_allows, BucketCounts, Budget, BudgetCounts};
pub use classify::{classify_error, classify_status, OutcomeClass};
pub use decide::{
    decide_with, gates, AttemptOutcome, DeadLetter, Decision, DeliveryState, Gates, PendingRetry, Policy, Retry, Stop,
    StopReason,
};
pub use error::{ErrorCode, PolicyError};
pub use plan::{plan, LimitedBy, Plan, MAX_HARD_CAP, MAX_WINDOW_MS};
#[cfg(feature = "std")]
pub use ports::SystemClock;
pub use ports::{decide, BudgetStore, Clock, FakeClock, InMemoryStore};
pub use retry_after::parse_retry_after;
pub use step::{evaluate, resume, settle, Resumption, Settlement, Step};
pub use store::{apply as store_apply, store_key, HeldBuckets, Reservation, StoreOp, StoreReply, StoreRequest};

/// Version of the decision contract (its format) this crate implements.
pub const CONTRACT_FORMAT: u32 = 2;

/// The largest retry index `delay` accepts (bounded work: 99 is the last
/// retry of the largest schedule, `hard_cap` 100).
pub const MAX_RETRY_INDEX: u32 = 99;

/// Jittered delay of retry `retry_index`, after validating the backoff, then
/// the index (`<= 99`, else `invalid_retry_index`).
pub fn delay(backoff: &Backoff, event_id: &str, retry_index: u32) -> Result<u64, PolicyError> {
    backoff.validate().map_err(|e| e.within("backoff"))?;
    if retry_index > MAX_RETRY_INDEX {
        return Err(PolicyError::new(ErrorCode::InvalidRetryIndex, "retry_index", "must be at most 99"));
    }
    Ok(backoff.delay_ms(event_id, retry_index))
}
