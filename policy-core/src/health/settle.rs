//! Decisions after an attempt, format 3 (docs/health.md section 5), and
//! what the attempt's store call carries.
//!
//! Format 2's [`crate::step::settle`] runs first and is kept, except one
//! case: the budget refused the retry and the section holds refusals. Then
//! the event is held until `min(now_ms + delay_ms, deadline_ms)`, `delay_ms`
//! the retry's own (jittered, or `Retry-After` if longer), spending no
//! attempt. When it wakes it leaves like any held event: the gate, then a
//! release token, and no store call before its send (draft 6: a wake's
//! `reserve` was judged on the ratio, which follows new admissions, so
//! held events died when arrivals stopped).

use crate::classify::{classify_error, classify_status, OutcomeClass};
use crate::decide::{gates, AttemptOutcome, Decision, DeliveryState, Gates, Policy, StopReason};
use crate::error::PolicyError;
use crate::step::{self, Settlement};
use crate::store::StoreReply;

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
    /// `until_ms`, then leave as any held event does (the gate).
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
