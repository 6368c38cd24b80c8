//! `policy-core` itself as an engine: for tests of this crate (the CLI uses
//! the component, and a CLI test checks the two agree).

use retry_policy_core as core_;
use retry_policy_core::document::PolicyDocument;
use retry_policy_core::health::HealthDocument;

use crate::engine::{DecisionSource, EngineError};

/// The native policy (no wasm).
#[derive(Debug, Default, Clone, Copy)]
pub struct NativeEngine;

impl DecisionSource for NativeEngine {
    fn load_document(&mut self, json: &str) -> Result<PolicyDocument, EngineError> {
        Ok(PolicyDocument::from_json(json)?)
    }

    fn load_health_document(&mut self, json: &str) -> Result<HealthDocument, EngineError> {
        Ok(HealthDocument::from_json(json)?)
    }

    fn plan(&mut self, backoff: &core_::Backoff, window_ms: u64, hard_cap: u32) -> Result<core_::Plan, EngineError> {
        Ok(core_::plan(backoff, window_ms, hard_cap)?)
    }

    fn evaluate(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
    ) -> Result<core_::Step, EngineError> {
        Ok(core_::evaluate(policy, state, outcome, now_ms)?)
    }

    fn settle(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
        reply: &core_::StoreReply,
    ) -> Result<core_::Settlement, EngineError> {
        Ok(core_::settle(policy, state, outcome, now_ms, reply)?)
    }

    fn store_apply(
        &mut self,
        request: &core_::StoreRequest,
        budget: &core_::Budget,
        now_ms: u64,
        held: &core_::HeldBuckets,
    ) -> Result<(core_::Reservation, core_::HeldBuckets), EngineError> {
        Ok(core_::store_apply(request, budget, now_ms, held))
    }

    fn parse_retry_after(&mut self, header: &str, now_ms: u64) -> Result<Option<u64>, EngineError> {
        Ok(core_::parse_retry_after(header, now_ms))
    }
}
