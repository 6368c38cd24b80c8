//! The delivery step through the component: `step` (on the policy's
//! compiled handle: `advance`, the host's ONE store call, `finish`), 0.2's
//! parts (`evaluate`, `settle`); resume;
//! Retry-After; the store helpers. Every rule runs in the component; this
//! file only moves values.

use std::fmt::Display;

use retry_policy_core as core_;
use retry_policy_core::compiled::{CallOp, StepResult, StoreCall};
use retry_policy_core::health::HealthDecision;
use retry_policy_core::BudgetStore;

use crate::convert::{from_wit, to_wit};
use crate::engine::{HostError, PolicyInstance};

/// A format-2 step's call as 0.2's store request (op, endpoint,
/// `budget.window_ms`, bucket): what the Redis script and the in-memory
/// stores take, unchanged.
pub fn request_of(call: StoreCall) -> Result<core_::StoreRequest, HostError> {
    let op = match call.op {
        CallOp::Record => core_::StoreOp::Record,
        CallOp::Reserve => core_::StoreOp::Reserve,
        CallOp::RecordReserve => core_::StoreOp::RecordReserve,
        CallOp::Report | CallOp::Probe => return Err(not_format_2("a `report` or `probe` call")),
    };
    Ok(core_::StoreRequest { op, endpoint_id: call.endpoint_id, window_ms: call.budget.window_ms, bucket: call.bucket })
}

fn not_format_2(what: &str) -> HostError {
    HostError::Policy(core_::PolicyError::new(
        core_::ErrorCode::InvalidState,
        "health",
        format!("{what} from a policy compiled without `health`"),
    ))
}

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
    /// The whole step: `advance` on the policy's compiled handle, at most
    /// ONE call of `store`, then `finish` with its reply (skipped when a gate
    /// already decided). A store error fails a pending retry closed. Same
    /// decisions as [`PolicyInstance::evaluate`] + [`PolicyInstance::settle`].
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
    /// Runs on the policy's compiled handle (ABI 0.3, compiled once per
    /// policy value in this instance): ONE component call (`advance`) when
    /// a gate decides, two (`advance`, the store, `finish`) when the budget
    /// must answer. The store sees exactly 0.2's request (the call's op,
    /// endpoint, `budget.window_ms`, bucket). `advance` and `finish` are
    /// pure: a trap in either is retried once on the rebuilt instance
    /// (compiling anew); the store is never called twice.
    pub fn step_via(
        &mut self,
        policy: &core_::Policy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
        call: impl FnOnce(&mut PolicyInstance, &core_::StoreRequest) -> Result<core_::Reservation, String>,
    ) -> Result<StepOutcome, HostError> {
        let advance = |inst: &mut PolicyInstance| {
            let h = inst.step_handle(policy)?;
            inst.advance_handle(h, state, outcome, false, now_ms)
        };
        let advanced = match advance(self) {
            Err(HostError::Trap(_)) => advance(self)?,
            r => r?,
        };
        let (decision, call_made) = match advanced {
            StepResult::Decided { decision, call } => (Some(decision), call),
            StepResult::NeedsStore(c) => (None, Some(c)),
        };
        let store = call_made.map(request_of).transpose()?;
        let mut store_error = None;
        let reply = match &store {
            Some(request) => match call(self, request) {
                Ok(reservation) => core_::StoreReply::Answered(reservation),
                Err(e) => {
                    store_error = Some(e);
                    core_::StoreReply::Unavailable
                }
            },
            None => core_::StoreReply::Unavailable,
        };
        if let Some(decision) = decision {
            return Ok(StepOutcome { decision, budget_disagreement: false, store, store_error });
        }
        let finish = |inst: &mut PolicyInstance| {
            let h = inst.step_handle(policy)?;
            inst.finish_handle(h, state, outcome, now_ms, &reply)
        };
        let finished = match finish(self) {
            Err(HostError::Trap(_)) => finish(self)?,
            r => r?,
        };
        let decision = match finished.decision {
            HealthDecision::Decided(d) => d,
            HealthDecision::Hold { .. } => return Err(not_format_2("a hold")),
        };
        Ok(StepOutcome { decision, budget_disagreement: finished.budget_disagreement, store, store_error })
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
