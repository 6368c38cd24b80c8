//! Decisions after an attempt, format 3 (docs/health.md section 5), and
//! what the attempt's store call carries.
//!
//! Format 2's [`crate::step::settle`] runs first and is kept, except one
//! case: the budget refused the retry and the section holds refusals. Then
//! the event is held until `min(now_ms + delay_ms, deadline_ms)`, `delay_ms`
//! the retry's own (jittered, or `Retry-After` if longer), spending no
//! attempt. When it wakes (after the gate) the host makes one `reserve`
//! call ([`settle_wake`]): reserved sends; refused holds again with the
//! delay of the next retry index, `attempts - 1 + k` for the `k`-th refused
//! wake (at most 99); unavailable fails closed (`budget_unavailable`).

use alloc::string::String;

use crate::classify::{classify_error, classify_status, OutcomeClass};
use crate::decide::{gates, AttemptOutcome, DeadLetter, Decision, DeliveryState, Gates, Policy, StopReason};
use crate::error::{ErrorCode, PolicyError};
use crate::step::{self, Settlement};
use crate::store::StoreReply;
use crate::MAX_RETRY_INDEX;

use super::section::Health;
use super::state::HealthOutcome;

/// The health class of an attempt's outcome: 2xx success, retryable
/// failure, anything else `none`. The table's class, before the 401/403
/// credential rule (a 401 is the sender's problem, not the endpoint's).
pub fn health_outcome(outcome: &AttemptOutcome) -> Result<HealthOutcome, PolicyError> {
    let class = match outcome {
        AttemptOutcome::Response { status, .. } => classify_status(*status).map_err(|e| e.within("outcome"))?,
        AttemptOutcome::TransportError { kind } => classify_error(kind),
    };
    Ok(match class {
        OutcomeClass::Success => HealthOutcome::Success,
        OutcomeClass::Retryable => HealthOutcome::Failure,
        OutcomeClass::Terminal => HealthOutcome::None,
    })
}

/// The request's `pause_until_ms`: `now_ms + min(retry_after_ms,
/// pause.max_ms)` for a 429 or 503 with a `Retry-After`, else 0 (also when
/// `pause.max_ms` is 0: pauses off).
pub fn pause_until_ms(health: &Health, outcome: &AttemptOutcome, now_ms: u64) -> u64 {
    match outcome {
        AttemptOutcome::Response { status: 429 | 503, retry_after_ms: Some(ra) } if health.pause_max_ms > 0 => {
            now_ms.saturating_add((*ra).min(health.pause_max_ms))
        }
        _ => 0,
    }
}

/// A format-3 decision after an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HealthDecision {
    /// Format 2's decision.
    Decided(Decision),
    /// The budget refused and the section holds refusals: wait until
    /// `until_ms`, then gate, then one `reserve` call ([`settle_wake`]).
    Hold { until_ms: u64, refresh_credentials: bool },
}

/// What [`settle`] hands back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HealthSettlement {
    pub decision: HealthDecision,
    /// As format 2: the store's verdict differs from the rule on its counts.
    pub budget_disagreement: bool,
}

/// Format 2's `settle`, then a refused retry becomes a hold when `health`
/// holds budget refusals.
pub fn settle(
    policy: &Policy,
    health: Option<&Health>,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    now_ms: u64,
    reply: &StoreReply,
) -> Result<HealthSettlement, PolicyError> {
    // The policy before the section, as `compile` judges them (draft 4).
    policy.validate()?;
    if let Some(h) = health {
        h.validate().map_err(|e| e.within("health"))?;
    }
    let Settlement { decision, budget_disagreement } = step::settle(policy, state, outcome, now_ms, reply)?;
    let refused = matches!(&decision, Decision::Stop(s) if s.reason == StopReason::RetryBudgetExhausted);
    if refused && health.is_some_and(|h| h.hold_budget_refusals) {
        if let Gates::NeedsBudget(p) = gates(policy, state, outcome, now_ms)? {
            let deadline_ms = state.first_attempted_at_ms.saturating_add(policy.window_ms);
            let until_ms = now_ms.saturating_add(p.retry.delay_ms).min(deadline_ms);
            let decision = HealthDecision::Hold { until_ms, refresh_credentials: p.retry.refresh_credentials };
            return Ok(HealthSettlement { decision, budget_disagreement });
        }
    }
    Ok(HealthSettlement { decision: HealthDecision::Decided(decision), budget_disagreement })
}

/// A held (budget-refused) event at its wake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wake {
    pub event_id: String,
    pub endpoint_id: String,
    /// Attempts made (`>= 1`: a budget hold follows an attempt).
    pub attempts: u32,
    pub first_attempted_at_ms: u64,
    /// Wakes the budget already refused for this hold.
    pub refusals: u32,
}

/// What the wake's `reserve` reply means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WakeDecision {
    /// Reserved: send the retry now.
    Send,
    /// Refused: hold again (`refusals` is the new count to keep).
    Hold { until_ms: u64, refusals: u32 },
    /// The store could not answer: fails closed.
    Stop { dead_letter: DeadLetter },
}

/// The wake's `reserve` reply (module docs). `now_ms` is the wake's instant.
/// The policy is judged first, then `wake.attempts` (0 is `invalid_state`:
/// a budget hold follows an attempt). The window is not judged here (the
/// gate before the wake's call did): a refused wake past its deadline holds
/// until the deadline, an instant already reached, whose gate stops it.
pub fn settle_wake(policy: &Policy, wake: &Wake, reply: &StoreReply, now_ms: u64) -> Result<WakeDecision, PolicyError> {
    policy.validate()?;
    if wake.attempts < 1 {
        return Err(PolicyError::new(
            ErrorCode::InvalidState,
            "wake.attempts",
            "a held retry follows an attempt: >= 1",
        ));
    }
    Ok(match reply {
        StoreReply::Answered(r) if r.reserved => WakeDecision::Send,
        StoreReply::Answered(_) => {
            let refusals = wake.refusals.saturating_add(1);
            let index = wake.attempts.saturating_sub(1).saturating_add(refusals).min(MAX_RETRY_INDEX);
            let delay_ms = policy.backoff.delay_ms(&wake.event_id, index);
            let deadline_ms = wake.first_attempted_at_ms.saturating_add(policy.window_ms);
            WakeDecision::Hold { until_ms: now_ms.saturating_add(delay_ms).min(deadline_ms), refusals }
        }
        StoreReply::Unavailable => WakeDecision::Stop {
            dead_letter: DeadLetter {
                event_id: wake.event_id.clone(),
                endpoint_id: wake.endpoint_id.clone(),
                attempts: wake.attempts,
                elapsed_ms: now_ms.saturating_sub(wake.first_attempted_at_ms),
                stop_reason: StopReason::BudgetUnavailable,
            },
        },
    })
}
