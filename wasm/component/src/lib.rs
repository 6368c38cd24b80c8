//! The retry policy as a component: `policy-core` behind the WIT world
//! `webhook:retry-policy/retry-policy@0.3.0` (see `wit/`). No WASI imports:
//! the only imports are the host's clock and budget store.
//!
//! Build: `scripts/build-component` (cargo build --target wasm32-wasip2).
#![no_std]

extern crate alloc;

mod convert;
mod convert_health;
mod engines;
mod handles;
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
use convert_health::{from_wit as from_wit3, to_wit as to_wit3};
use engines::ENGINES;
use handles::TABLE;
use retry_policy_core::compiled::{self as compiled, CompiledPolicy};
use retry_policy_core::engine::wire;
use retry_policy_core::health;

/// Bumped on any breaking change of the WIT `policy` interface.
pub const ABI_VERSION: u32 = 3;

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

    fn resume(
        policy: wit::Policy,
        state: wit::DeliveryState,
        now_ms: u64,
    ) -> Result<wit::Resumption, wit::PolicyError> {
        core_::resume(&from_wit::policy(policy), &from_wit::state(state), now_ms)
            .map(to_wit::resumption)
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

    fn decide_with(
        policy: wit::Policy,
        state: wit::DeliveryState,
        outcome: wit::AttemptOutcome,
        now_ms: u64,
        budget_counts: Option<wit::BudgetCounts>,
    ) -> Result<wit::Decision, wit::PolicyError> {
        let (policy, state, outcome) = (from_wit::policy(policy), from_wit::state(state), from_wit::outcome(outcome));
        let counts = budget_counts.map(from_wit::counts);
        core_::decide_with(&policy, &state, &outcome, now_ms, counts.as_ref())
            .map(to_wit::decision)
            .map_err(to_wit::error)
    }
    fn compile(policy: wit::Policy, health: Option<wit::Health>) -> Result<u32, wit::PolicyError> {
        CompiledPolicy::new(from_wit::policy(policy), health.map(from_wit3::health))
            .and_then(|p| TABLE.insert(p))
            .map_err(to_wit::error)
    }

    fn discard(handle: u32) {
        TABLE.remove(handle)
    }

    fn admit_compiled(
        handle: u32,
        class: String,
        policy_version: String,
        now_ms: u64,
    ) -> Result<wit::Admission, wit::PolicyError> {
        TABLE.with(handle, |p| p.admit(&class, &policy_version, now_ms)).map(to_wit::admission).map_err(to_wit::error)
    }

    fn advance(
        handle: u32,
        state: wit::DeliveryState,
        outcome: wit::AttemptOutcome,
        probe: bool,
        now_ms: u64,
    ) -> Result<wit::AdvanceResult, wit::PolicyError> {
        let (state, outcome) = (from_wit::state(state), from_wit::outcome(outcome));
        TABLE.with(handle, |p| p.step(&state, &outcome, probe, now_ms)).map(to_wit3::step).map_err(to_wit::error)
    }

    fn finish(
        handle: u32,
        state: wit::DeliveryState,
        outcome: wit::AttemptOutcome,
        now_ms: u64,
        reply: wit::StoreReply,
    ) -> Result<wit::Finished, wit::PolicyError> {
        let (state, outcome, reply) = (from_wit::state(state), from_wit::outcome(outcome), from_wit::reply(reply));
        TABLE.with(handle, |p| p.finish(&state, &outcome, now_ms, &reply)).map(to_wit3::finished).map_err(to_wit::error)
    }

    fn gate(
        handle: u32,
        event: wit::GateEvent,
        view: Option<wit::HealthView>,
        pacer: wit::Pacer,
        now_ms: u64,
    ) -> Result<wit::GateAnswer, wit::PolicyError> {
        let (event, view, pacer) = (from_wit3::event(event), view.map(from_wit3::view), from_wit3::pacer(pacer));
        TABLE.with(handle, |p| p.gate(&event, view.as_ref(), &pacer, now_ms)).map(to_wit3::gate).map_err(to_wit::error)
    }

    fn after_probe(
        handle: u32,
        event: wit::GateEvent,
        granted: bool,
        view: wit::HealthView,
        pacer: wit::Pacer,
        now_ms: u64,
    ) -> Result<wit::GateAnswer, wit::PolicyError> {
        let (event, view, pacer) = (from_wit3::event(event), from_wit3::view(view), from_wit3::pacer(pacer));
        TABLE
            .with(handle, |p| p.after_probe(&event, granted, &view, &pacer, now_ms))
            .map(to_wit3::gate)
            .map_err(to_wit::error)
    }

    fn settle_wake(
        handle: u32,
        wake: wit::Wake,
        reply: wit::StoreReply,
        now_ms: u64,
    ) -> Result<wit::WakeVerdict, wit::PolicyError> {
        let (wake, reply) = (from_wit3::wake(wake), from_wit::reply(reply));
        TABLE.with(handle, |p| p.wake(&wake, &reply, now_ms)).map(to_wit3::wake).map_err(to_wit::error)
    }

    fn call_for(
        handle: u32,
        op: wit::CallOp,
        endpoint_id: String,
        now_ms: u64,
    ) -> Result<wit::StoreCall, wit::PolicyError> {
        let op = from_wit3::op(op);
        TABLE.with(handle, |p| p.call_for(op, &endpoint_id, now_ms)).map(to_wit3::call).map_err(to_wit::error)
    }

    fn apply_call(
        call: wit::StoreCall,
        now_ms: u64,
        held: wit::HeldHealth,
    ) -> Result<wit::CallApplied, wit::PolicyError> {
        compiled::apply_call(&from_wit3::call(call), now_ms, &from_wit3::held(held))
            .map(to_wit3::applied)
            .map_err(to_wit::error)
    }

    fn load_health_document(json: String) -> Result<wit::HealthDocument, wit::PolicyError> {
        health::HealthDocument::from_json(&json).map(to_wit3::document).map_err(to_wit::error)
    }

    fn pace(release: wit::Release, pacer: wit::Pacer, now_ms: u64) -> Result<wit::Paced, wit::PolicyError> {
        let pacer = from_wit3::pacer(pacer);
        pacer.validate().map_err(to_wit::error)?;
        let release = from_wit3::release(release);
        let section = health::Health { release, ..health::Health::default() };
        section.validate().map_err(|e| to_wit::error(e.within("health")))?;
        Ok(to_wit3::paced(health::pace(&pacer, &release, now_ms)))
    }

    fn normal_per_s(budget: wit::Budget, now_ms: u64, current: u64, previous: u64) -> Result<f64, wit::PolicyError> {
        let budget = from_wit::budget(budget);
        budget.validate().map_err(|e| to_wit::error(e.within("budget")))?;
        Ok(health::normal_per_s(&budget, now_ms, current, previous))
    }

    fn health_outcome_of(outcome: wit::AttemptOutcome) -> Result<wit::HealthOutcome, wit::PolicyError> {
        health::health_outcome(&from_wit::outcome(outcome)).map(to_wit3::outcome).map_err(to_wit::error)
    }

    fn pause_until(health: wit::Health, outcome: wit::AttemptOutcome, now_ms: u64) -> Result<u64, wit::PolicyError> {
        let health = from_wit3::health(health);
        health.validate().map_err(|e| to_wit::error(e.within("health")))?;
        Ok(health::pause_until_ms(&health, &from_wit::outcome(outcome), now_ms))
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
}

export!(Component);
