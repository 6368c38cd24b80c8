//! The delivery step (contract format 2): everything a dispatcher does
//! around a decision, as data, so no host writes it by hand.
//!
//! ```text
//! attempt done ──► evaluate ──► Step { decision, store }
//!                                  │          │
//!                                  │          └─► one store call (or none)
//!                                  ▼                     │
//!                     decision set: done         decision none: settle(reply)
//! ```
//!
//! * [`evaluate`] runs gates 1-5 of [`crate::decide`]. When one fires, the
//!   decision is known; the store still counts a first attempt (`record`).
//!   When only the budget remains, the store must `reserve` a retry
//!   (`record_reserve` for a first attempt: one call does both).
//! * [`settle`] turns the store's reply into the decision: unavailable fails
//!   closed; otherwise the store's reservation is the verdict (it judged and
//!   counted atomically, so racing replicas never overshoot). When the
//!   store's verdict differs from the policy's rule on the counts it
//!   reports, `budget_disagreement` is set for the host's metric.
//! * [`resume`] judges an event reloaded from storage (gates 3 and 4 on the
//!   attempts already made), so a restart never re-implements them.

use crate::budget::Budget;
use crate::decide::{
    gates, validate_max_attempts, AttemptOutcome, DeadLetter, Decision, DeliveryState, Gates, Policy, Stop, StopReason,
};
use crate::error::PolicyError;
use crate::store::{StoreOp, StoreReply, StoreRequest};

/// What `evaluate` hands back.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The decision when a gate fired; `None` when only the budget remains.
    pub decision: Option<Decision>,
    /// The store call to make; `None` when there is nothing to count.
    pub store: Option<StoreRequest>,
}

/// What `settle` hands back.
#[derive(Clone, Debug, PartialEq)]
pub struct Settlement {
    pub decision: Decision,
    /// The store's verdict differs from `allows_retry` on its own counts.
    pub budget_disagreement: bool,
}

/// What `resume` hands back.
#[derive(Clone, Debug, PartialEq)]
pub enum Resumption {
    /// Make the next attempt now.
    Due,
    /// The event may not be attempted again.
    Stop(Stop),
}

fn request(op: StoreOp, state: &DeliveryState, budget: &Budget, now_ms: u64) -> StoreRequest {
    StoreRequest {
        op,
        endpoint_id: state.endpoint_id.clone(),
        window_ms: budget.window_ms,
        bucket: budget.bucket(now_ms),
    }
}

/// Validate as `decide`, run gates 1-5, and name the one store request
/// this attempt needs.
pub fn evaluate(
    policy: &Policy,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    now_ms: u64,
) -> Result<Step, PolicyError> {
    let first = state.attempt == 1;
    Ok(match gates(policy, state, outcome, now_ms)? {
        Gates::Decided(d) => {
            Step { decision: Some(d), store: first.then(|| request(StoreOp::Record, state, &policy.budget, now_ms)) }
        }
        Gates::NeedsBudget(_) => {
            let op = if first { StoreOp::RecordReserve } else { StoreOp::Reserve };
            Step { decision: None, store: Some(request(op, state, &policy.budget, now_ms)) }
        }
    })
}

/// The decision once the store answered the request from [`evaluate`].
pub fn settle(
    policy: &Policy,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    now_ms: u64,
    reply: &StoreReply,
) -> Result<Settlement, PolicyError> {
    let pending = match gates(policy, state, outcome, now_ms)? {
        Gates::Decided(decision) => return Ok(Settlement { decision, budget_disagreement: false }),
        Gates::NeedsBudget(p) => p,
    };
    Ok(match reply {
        StoreReply::Unavailable => Settlement { decision: pending.resolve_verdict(None), budget_disagreement: false },
        StoreReply::Answered(r) => {
            let rule = pending.budget.allows_retry(now_ms, &r.counts);
            Settlement { decision: pending.resolve_verdict(Some(r.reserved)), budget_disagreement: rule != r.reserved }
        }
    })
}

/// Judge an event loaded from storage: `state.attempt` is the number of
/// attempts already made (0 allowed).
pub fn resume(policy: &Policy, state: &DeliveryState, now_ms: u64) -> Result<Resumption, PolicyError> {
    policy.validate()?;
    validate_max_attempts(state)?;
    let elapsed_ms = now_ms.saturating_sub(state.first_attempted_at_ms);
    let reason = if state.attempt >= state.max_attempts {
        StopReason::MaxAttemptsExhausted
    } else if elapsed_ms >= policy.window_ms {
        StopReason::RetryWindowElapsed
    } else {
        return Ok(Resumption::Due);
    };
    let dead_letter = Some(DeadLetter::of(state, elapsed_ms, reason));
    Ok(Resumption::Stop(Stop { reason, disable_endpoint: false, dead_letter }))
}
