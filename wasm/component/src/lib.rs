//! The retry policy as a component: `policy-core` behind the WIT world
//! `webhook:retry-policy/retry-policy@1.0.0` (see `wit/`). No WASI imports:
//! the only imports are the host's clock and budget store.
//!
//! Build: `scripts/build-component` (cargo build --target wasm32-wasip2).
#![no_std]

extern crate alloc;

mod convert;
mod convert_health;
mod engines;
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
use alloc::vec::Vec;

use exports::webhook::retry_policy::policy::Guest;
use retry_policy_core as core_;
use webhook::retry_policy::types as wit;

use convert::{from_wit, to_wit};
use convert_health::to_wit as to_wit3;
use engines::ENGINES;
use retry_policy_core::engine::wire;
use retry_policy_core::health;

/// Bumped on any breaking change of the WIT `policy` interface: 1, 2 and 3 were
/// ABI 0.1-0.3, 4 is ABI 1.0 (`webhook:retry-policy@1.0.0`, docs/abi-1.0.md).
pub const ABI_VERSION: u32 = 5;

struct Component;

/// The imported clock, as a `policy-core` port.
struct HostClock;

impl core_::Clock for HostClock {
    fn now_ms(&self) -> u64 {
        webhook::retry_policy::clock::now_ms()
    }
}

/// The imported budget store, as a `policy-core` port.
struct HostStore;

impl core_::BudgetStore for HostStore {
    type Error = String;

    fn call(
        &mut self,
        request: &core_::StoreRequest,
        budget: &core_::Budget,
        now_ms: u64,
    ) -> Result<core_::Reservation, String> {
        let wit_budget = wit::Budget {
            ratio: budget.ratio,
            window_ms: budget.window_ms,
            min_sample: budget.min_sample,
            sliding: budget.sliding,
        };
        webhook::retry_policy::budget_store::call(&to_wit::request(request.clone()), wit_budget, now_ms)
            .map(from_wit::reservation)
    }
}

impl Guest for Component {
    fn abi_version() -> u32 {
        ABI_VERSION
    }

    fn plan(backoff: wit::Backoff, window_ms: u64, hard_cap: u32) -> Result<wit::Schedule, wit::PolicyError> {
        core_::plan(&from_wit::backoff(backoff), window_ms, hard_cap).map(to_wit::plan).map_err(to_wit::error)
    }

    fn classify_status(status: u16) -> Result<wit::OutcomeClass, wit::PolicyError> {
        core_::classify_status(status).map(to_wit::class).map_err(to_wit::error)
    }

    fn classify_error(error_kind: String) -> wit::OutcomeClass {
        to_wit::class(core_::classify_error(&error_kind))
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
        core_::decide(&policy, &state, &outcome, &HostClock, &mut HostStore)
            .map(to_wit::decision)
            .map_err(to_wit::error)
    }

    fn evaluate(
        policy: wit::Policy,
        state: wit::DeliveryState,
        outcome: wit::AttemptOutcome,
        now_ms: u64,
    ) -> Result<wit::Step, wit::PolicyError> {
        let (policy, state, outcome) = (from_wit::policy(policy), from_wit::state(state), from_wit::outcome(outcome));
        core_::evaluate(&policy, &state, &outcome, now_ms).map(to_wit::step).map_err(to_wit::error)
    }

    fn settle(
        policy: wit::Policy,
        state: wit::DeliveryState,
        outcome: wit::AttemptOutcome,
        now_ms: u64,
        reply: wit::StoreReply,
    ) -> Result<wit::Settlement, wit::PolicyError> {
        let (policy, state, outcome) = (from_wit::policy(policy), from_wit::state(state), from_wit::outcome(outcome));
        core_::settle(&policy, &state, &outcome, now_ms, &from_wit::reply(reply))
            .map(to_wit::settlement)
            .map_err(to_wit::error)
    }

    fn parse_retry_after(header: String, now_ms: u64) -> Option<u64> {
        core_::parse_retry_after(&header, now_ms)
    }

    fn store_key(request: wit::StoreRequest) -> String {
        core_::store_key(&from_wit::request(request))
    }

    fn store_apply(
        request: wit::StoreRequest,
        budget: wit::Budget,
        now_ms: u64,
        held: wit::HeldBuckets,
    ) -> wit::Applied {
        let (reply, held) =
            core_::store_apply(&from_wit::request(request), &from_wit::budget(budget), now_ms, &from_wit::held(held));
        to_wit::applied(reply, held)
    }

    fn load_health_document(json: String) -> Result<wit::HealthDocument, wit::PolicyError> {
        health::HealthDocument::from_json(&json).map(to_wit3::document).map_err(to_wit::error)
    }

    fn engine_open(config: String) -> Result<u32, String> {
        ENGINES.open(&config)
    }

    fn engine_feed(handle: u32, inputs: String) -> Result<String, String> {
        ENGINES.with(handle, |e| wire::feed(e, &inputs).map_err(|e| wire::error_text(&e)))?
    }

    fn engine_resume(handle: u32, now_ms: u64, journal: Vec<u8>) -> Result<String, String> {
        ENGINES.with(handle, |e| wire::resume(e, now_ms, &journal))
    }

    fn engine_close(handle: u32) {
        ENGINES.close(handle)
    }

    fn read_target(url: String) -> Result<wit::Target, String> {
        let t = retry_policy_core::destination::read_target(&url).map_err(|e| alloc::format!("{e}"))?;
        Ok(wit::Target { scheme: t.scheme.into(), host: t.host, port: t.port, path: t.path, address: t.address })
    }

    fn destination_refusal(address: String) -> Result<Option<String>, String> {
        retry_policy_core::destination::refusal_of(&address)
            .map(|r| r.map(String::from))
            .map_err(|e| alloc::format!("{e}"))
    }

    fn rollout_open(config: String) -> Result<String, String> {
        retry_policy_core::rollout::wire::open(&config).map_err(|e| alloc::format!("{e}"))
    }

    fn rollout_step(state: String, input: String) -> Result<String, String> {
        retry_policy_core::rollout::wire::step(&state, &input).map_err(|e| alloc::format!("{e}"))
    }

    fn replica_args(request: String) -> Result<String, String> {
        retry_policy_core::replica_args::judge_text(&request)
    }

    fn metrics_schema() -> Vec<wit::MetricFamily> {
        use retry_policy_core::metrics::{MetricType, MovedBy, FAMILIES};
        let strings = |items: &[&str]| items.iter().map(|s| String::from(*s)).collect::<Vec<_>>();
        FAMILIES
            .iter()
            .map(|f| wit::MetricFamily {
                name: f.name.into(),
                type_: match f.kind {
                    MetricType::Counter => wit::MetricType::Counter,
                    MetricType::Gauge => wit::MetricType::Gauge,
                    MetricType::Histogram => wit::MetricType::Histogram,
                },
                help: f.help.into(),
                labels: f
                    .labels
                    .iter()
                    .map(|l| wit::MetricLabel { name: l.name.into(), values: l.values.map(strings) })
                    .collect(),
                buckets_s: f.buckets_s.to_vec(),
                moved_by: match f.moved_by {
                    MovedBy::Engine => wit::MovedBy::Engine,
                    MovedBy::Host => wit::MovedBy::Host,
                },
            })
            .collect()
    }

    fn vector_case(format: String, case: String) -> Result<(), String> {
        retry_policy_core::vectors::check_case_text(&format, &case)
    }
}

export!(Component);
