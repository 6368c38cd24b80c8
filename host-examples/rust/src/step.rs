//! The delivery step through the component: `step` (`evaluate`, the
//! host's ONE store call, `settle`), its parts, Retry-After, and the store
//! helpers (`store-key` for a shared store, `store-apply` for an in-memory
//! one). Every rule runs in the component; this file only moves values.

use std::fmt::Display;

use retry_policy_core as core_;
use retry_policy_core::BudgetStore;

use crate::convert::{from_wit, to_wit};
use crate::engine::{HostError, PolicyInstance};

/// One delivery step's outcome ([`PolicyInstance::step`]).
#[derive(Clone, Debug, PartialEq)]
pub struct StepOutcome {
    /// What to do with the event.
    pub decision: core_::Decision,
    /// The store's verdict differed from the policy's rule on the counts it
    /// judged (the store's verdict stands; count it).
    pub budget_disagreement: bool,
    /// The store request made, if any.
    pub store: Option<core_::StoreRequest>,
    /// The store's error, when the call failed: a pending retry then stopped
    /// `budget_unavailable`; a failed `record` of a decided attempt changed nothing.
    pub store_error: Option<String>,
}

impl PolicyInstance {
    /// The whole step: `evaluate`, at most ONE call of `store`, then `settle`
    /// with its reply (skipped when a gate already decided). A store error
    /// fails a pending retry closed.
    pub fn step<S>(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
        store: &mut S,
    ) -> Result<StepOutcome, HostError>
    where
        S: BudgetStore + ?Sized,
        S::Error: Display,
    {
        self.step_via(policy, state, outcome, now_ms, |_, request| {
            store.call(request, &policy.budget, now_ms).map_err(|e| e.to_string())
        })
    }

    /// [`PolicyInstance::step`] with the store call as a function of this
    /// instance and the request (for stores that use the component, such as
    /// one answering with [`PolicyInstance::store_apply`]).
    ///
    /// ONE component call (`evaluate`) when a gate decides, two
    /// (`evaluate`, the store, `settle`) when the budget must answer.
    /// `evaluate` and `settle` are pure: a trap in either is retried once on
    /// the rebuilt instance; the store is never called twice.
    pub fn step_via(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
        call: impl FnOnce(&mut PolicyInstance, &core_::StoreRequest) -> Result<core_::Reservation, String>,
    ) -> Result<StepOutcome, HostError> {
        let step = match self.evaluate(policy, state, outcome, now_ms) {
            Err(HostError::Trap(_)) => self.evaluate(policy, state, outcome, now_ms)?,
            r => r?,
        };
        let mut store_error = None;
        let reply = match &step.store {
            Some(request) => match call(self, request) {
                Ok(reservation) => core_::StoreReply::Answered(reservation),
                Err(e) => {
                    store_error = Some(e);
                    core_::StoreReply::Unavailable
                }
            },
            None => core_::StoreReply::Unavailable,
        };
        if let Some(decision) = step.decision {
            return Ok(StepOutcome { decision, budget_disagreement: false, store: step.store, store_error });
        }
        let settled = match self.settle(policy, state, outcome, now_ms, &reply) {
            Err(HostError::Trap(_)) => self.settle(policy, state, outcome, now_ms, &reply)?,
            r => r?,
        };
        Ok(StepOutcome {
            decision: settled.decision,
            budget_disagreement: settled.budget_disagreement,
            store: step.store,
            store_error,
        })
    }

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
