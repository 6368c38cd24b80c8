//! The retry policy as a component: `policy-core` behind the WIT world
//! `webhook:retry-policy/retry-policy@0.1.0` (see `wit/`). No WASI imports:
//! the only imports are the host's clock and budget counter.
//!
//! Build: `scripts/build-component` (cargo build --target wasm32-wasip2).
#![no_std]

extern crate alloc;

mod convert;
#[cfg(target_arch = "wasm32")]
mod libc_shim;

#[cfg(target_arch = "wasm32")]
mod alloc_classes;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: alloc_classes::ClassAllocator = alloc_classes::ClassAllocator::new();

/// A panic is a bug in the policy; it must never reach a host as anything
/// but a trap, and the policy is written so that none can happen (every
/// input is validated, arithmetic saturates).
#[cfg(all(target_arch = "wasm32", not(test)))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    core::arch::wasm32::unreachable()
}

wit_bindgen::generate!({
    world: "retry-policy",
    path: "../../wit",
});

use alloc::string::String;

use exports::webhook::retry_policy::policy::Guest;
use retry_policy_core as core_;
use webhook::retry_policy::types as wit;

use convert::{from_wit, to_wit};

/// Bumped on any breaking change of the WIT `policy` interface.
pub const ABI_VERSION: u32 = 1;

struct Component;

/// The imported clock, as a `policy-core` port.
struct HostClock;

impl core_::Clock for HostClock {
    fn now_ms(&self) -> u64 {
        webhook::retry_policy::clock::now_ms()
    }
}

/// The imported budget counter, as a `policy-core` port.
struct HostCounter;

impl core_::BudgetCounter for HostCounter {
    type Error = String;

    fn read(&mut self, endpoint_id: &str, window_ms: u64, bucket: u64) -> Result<core_::BudgetCounts, String> {
        webhook::retry_policy::budget_counter::read(endpoint_id, window_ms, bucket).map(from_wit::counts)
    }

    fn record(&mut self, endpoint_id: &str, window_ms: u64, bucket: u64, is_retry: bool) -> Result<(), String> {
        webhook::retry_policy::budget_counter::record_attempt(endpoint_id, window_ms, bucket, is_retry)
    }
}

impl Guest for Component {
    fn abi_version() -> u32 {
        ABI_VERSION
    }

    fn plan(backoff: wit::Backoff, window_ms: u64, hard_cap: u32) -> Result<wit::Schedule, wit::PolicyError> {
        core_::plan(&from_wit::backoff(backoff), window_ms, hard_cap).map(to_wit::plan).map_err(to_wit::error)
    }

    fn delay(backoff: wit::Backoff, event_id: String, retry_index: u32) -> Result<u64, wit::PolicyError> {
        core_::delay(&from_wit::backoff(backoff), &event_id, retry_index).map_err(to_wit::error)
    }

    fn classify_status(status: u16) -> Result<wit::OutcomeClass, wit::PolicyError> {
        core_::classify_status(status).map(to_wit::class).map_err(to_wit::error)
    }

    fn classify_error(error_kind: String) -> wit::OutcomeClass {
        to_wit::class(core_::classify_error(&error_kind))
    }

    fn budget_allows(budget: wit::Budget, now_ms: u64, counts: wit::BudgetCounts) -> Result<bool, wit::PolicyError> {
        core_::budget_allows(&from_wit::budget(budget), now_ms, &from_wit::counts(counts)).map_err(to_wit::error)
    }

    fn load_document(json: String) -> Result<wit::PolicyDocument, wit::PolicyError> {
        core_::document::PolicyDocument::from_json(&json).map(to_wit::document).map_err(to_wit::error)
    }

    fn admit(document: wit::PolicyDocument, class: String, now_ms: u64) -> Result<wit::Admission, wit::PolicyError> {
        let doc = from_wit::document(document).map_err(to_wit::error)?;
        doc.admit(&class, now_ms).map(to_wit::admission).map_err(to_wit::error)
    }

    fn decide(
        policy: wit::Policy,
        state: wit::DeliveryState,
        outcome: wit::AttemptOutcome,
    ) -> Result<wit::Decision, wit::PolicyError> {
        let (policy, state, outcome) = (from_wit::policy(policy), from_wit::state(state), from_wit::outcome(outcome));
        core_::decide(&policy, &state, &outcome, &HostClock, &mut HostCounter).map(to_wit::decision).map_err(to_wit::error)
    }

    fn decide_with(
        policy: wit::Policy,
        state: wit::DeliveryState,
        outcome: wit::AttemptOutcome,
        now_ms: u64,
        budget_counts: Option<wit::BudgetCounts>,
    ) -> Result<wit::Decision, wit::PolicyError> {
        let (policy, state, outcome) = (from_wit::policy(policy), from_wit::state(state), from_wit::outcome(outcome));
        let counts = budget_counts.map(from_wit::counts);
        core_::decide_with(&policy, &state, &outcome, now_ms, counts.as_ref()).map(to_wit::decision).map_err(to_wit::error)
    }
}

export!(Component);
