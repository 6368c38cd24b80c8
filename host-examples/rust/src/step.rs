//! The delivery step of contract 0.2 through the component: evaluate, the
//! host's ONE store call, settle; resume; Retry-After; the store helpers.
//! Every rule runs in the component; this file only moves values.

use retry_policy_core as core_;

use crate::convert::{from_wit, to_wit};
use crate::engine::{HostError, PolicyInstance};

impl PolicyInstance {
    /// Gates 1-5 and the one store request this attempt needs.
    pub fn evaluate(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
    ) -> Result<core_::Step, HostError> {
        let (p, st, o) = (to_wit::policy(policy), to_wit::state(state), to_wit::outcome(outcome));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_evaluate(s, p, &st, &o, now_ms))?;
        Ok(r.map(from_wit::step).map_err(from_wit::error)?)
    }

    /// The decision once the store answered the request from `evaluate`.
    pub fn settle(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
        reply: &core_::StoreReply,
    ) -> Result<core_::Settlement, HostError> {
        let (p, st, o, rp) =
            (to_wit::policy(policy), to_wit::state(state), to_wit::outcome(outcome), to_wit::reply(reply));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_settle(s, p, &st, &o, now_ms, rp))?;
        Ok(r.map(from_wit::settlement).map_err(from_wit::error)?)
    }

    /// Judge an event reloaded from storage (`state.attempt` = attempts made).
    pub fn resume(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        now_ms: u64,
    ) -> Result<core_::Resumption, HostError> {
        let (p, st) = (to_wit::policy(policy), to_wit::state(state));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_resume(s, p, &st, now_ms))?;
        Ok(r.map(from_wit::resumption).map_err(from_wit::error)?)
    }

    /// A Retry-After header value in milliseconds from `now_ms` (`None`: unusable).
    pub fn parse_retry_after(&mut self, header: &str, now_ms: u64) -> Result<Option<u64>, HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_parse_retry_after(s, header, now_ms))
    }

    /// The key a shared store files this request's counts under.
    pub fn store_key(&mut self, request: &core_::StoreRequest) -> Result<String, HostError> {
        let r = to_wit::request(request);
        self.call(|b, s| b.webhook_retry_policy_policy().call_store_key(s, &r))
    }

    /// An in-memory store's answer: `request` applied to what it holds.
    pub fn store_apply(
        &mut self,
        request: &core_::StoreRequest,
        budget: &core_::Budget,
        now_ms: u64,
        held: &core_::HeldBuckets,
    ) -> Result<(core_::Reservation, core_::HeldBuckets), HostError> {
        let (r, b, h) = (to_wit::request(request), to_wit::budget(budget), to_wit::held(held));
        self.call(|bi, s| bi.webhook_retry_policy_policy().call_store_apply(s, &r, b, now_ms, h)).map(from_wit::applied)
    }
}
