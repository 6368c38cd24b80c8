//! Deciding after an attempt: deliver, retry after how long, or stop and
//! dead-letter with which reason.
//!
//! The gates run in a fixed order and the first that fires decides:
//!
//! 1. `success` -> stop `delivered`
//! 2. `terminal` -> stop `terminal_response` (410 also `disable_endpoint`)
//! 3. `attempt >= max_attempts` -> stop `max_attempts_exhausted`
//! 4. `elapsed >= window_ms` -> stop `retry_window_elapsed`
//! 5. `elapsed + delay > window_ms` -> stop `retry_window_elapsed`, where
//!    `delay = max(jittered delay of retry attempt-1, Retry-After)`
//! 6. no counts -> stop `budget_unavailable` (fails closed); budget refuses
//!    -> stop `retry_budget_exhausted`
//! 7. retry after `delay`
//!
//! The cheap, decisive gates come first; the budget, the only one that
//! needs the shared store, comes last. [`gates`] runs gates 1-5 and says
//! whether the budget is needed at all; [`crate::step`] builds the format-2
//! delivery step (one store request, then `settle`) on it.

use alloc::string::String;

use crate::backoff::Backoff;
use crate::budget::{Budget, BudgetCounts};
use crate::classify::{classify_error, classify_status, OutcomeClass};
use crate::error::{ErrorCode, PolicyError};
use crate::plan::validate_limits;

/// The policy an event class is delivered under.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Policy {
    pub backoff: Backoff,
    /// The retry window: how long an event may stay undelivered.
    pub window_ms: u64,
    /// Upper bound on attempts when planning (decide follows `max_attempts`).
    pub hard_cap: u32,
    pub budget: Budget,
}

impl Policy {
    /// Backoff, hard cap, window, then budget.
    pub fn validate(&self) -> Result<(), PolicyError> {
        validate_limits(&self.backoff, self.window_ms, self.hard_cap)?;
        self.budget.validate().map_err(|e| e.within("budget"))
    }
}

/// What the host persisted about an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryState {
    pub event_id: String,
    pub endpoint_id: String,
    /// 1-based: the attempt just completed.
    pub attempt: u32,
    /// The max attempts the event was admitted under.
    pub max_attempts: u32,
    /// When the event was first accepted (persisted, survives restarts).
    pub first_attempted_at_ms: u64,
    /// Whether signing material was already force-refreshed for this event.
    pub credentials_refreshed: bool,
}

/// How the attempt ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// An HTTP response, with its Retry-After (already in milliseconds) if any.
    Response { status: u16, retry_after_ms: Option<u64> },
    /// No response: a transport error kind such as `connect_timeout`.
    TransportError { kind: String },
}

/// Why a chain of attempts ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    Delivered,
    TerminalResponse,
    MaxAttemptsExhausted,
    RetryWindowElapsed,
    RetryBudgetExhausted,
    BudgetUnavailable,
}

impl StopReason {
    pub const ALL: [StopReason; 6] = [
        StopReason::Delivered,
        StopReason::TerminalResponse,
        StopReason::MaxAttemptsExhausted,
        StopReason::RetryWindowElapsed,
        StopReason::RetryBudgetExhausted,
        StopReason::BudgetUnavailable,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            StopReason::Delivered => "delivered",
            StopReason::TerminalResponse => "terminal_response",
            StopReason::MaxAttemptsExhausted => "max_attempts_exhausted",
            StopReason::RetryWindowElapsed => "retry_window_elapsed",
            StopReason::RetryBudgetExhausted => "retry_budget_exhausted",
            StopReason::BudgetUnavailable => "budget_unavailable",
        }
    }
}

/// What an operator reads about an event that was not delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadLetter {
    pub event_id: String,
    pub endpoint_id: String,
    /// Attempts made (the attempt just completed).
    pub attempts: u32,
    pub elapsed_ms: u64,
    pub stop_reason: StopReason,
}

impl DeadLetter {
    /// The dead letter of `state` after `state.attempt` attempts, `elapsed_ms`
    /// after its first one: the one place gates and `resume` build it.
    pub(crate) fn of(state: &DeliveryState, elapsed_ms: u64, stop_reason: StopReason) -> Self {
        DeadLetter {
            event_id: state.event_id.clone(),
            endpoint_id: state.endpoint_id.clone(),
            attempts: state.attempt,
            elapsed_ms,
            stop_reason,
        }
    }
}

/// Schedule another attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retry {
    pub delay_ms: u64,
    /// Force-refresh signing material before the retry (401/403 once).
    pub refresh_credentials: bool,
}

/// End the chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    pub reason: StopReason,
    /// 410 Gone: the endpoint should be disabled.
    pub disable_endpoint: bool,
    /// Present for every reason but `delivered`.
    pub dead_letter: Option<DeadLetter>,
}

/// The decision after an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Retry(Retry),
    Stop(Stop),
}

/// Gates 1-5 passed: a retry is wanted; only the budget (gate 6) remains.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingRetry {
    pub retry: Retry,
    pub budget: Budget,
    pub now_ms: u64,
    dead_letter: DeadLetter,
}

/// The outcome of gates 1-5.
#[derive(Clone, Debug, PartialEq)]
pub enum Gates {
    /// A gate fired.
    Decided(Decision),
    /// Only the budget remains.
    NeedsBudget(PendingRetry),
}

impl PendingRetry {
    /// Bucket the budget counts live in.
    pub fn bucket(&self) -> u64 {
        self.budget.bucket(self.now_ms)
    }

    /// Gate 6 on the budget's verdict: `None` means the store could not be
    /// read (fails closed), `Some(allowed)` is the verdict.
    pub fn resolve_verdict(self, verdict: Option<bool>) -> Decision {
        match verdict {
            Some(true) => Decision::Retry(self.retry),
            Some(false) => stop(StopReason::RetryBudgetExhausted, false, Some(self.dead_letter)),
            None => stop(StopReason::BudgetUnavailable, false, Some(self.dead_letter)),
        }
    }

    /// Gates 6 and 7 on counts: `None` means the store could not be read.
    pub fn resolve(self, counts: Option<&BudgetCounts>) -> Decision {
        let verdict = counts.map(|c| self.budget.allows_retry(self.now_ms, c));
        self.resolve_verdict(verdict)
    }
}

fn stop(reason: StopReason, disable_endpoint: bool, dead_letter: Option<DeadLetter>) -> Decision {
    let dead_letter = dead_letter.map(|mut d| {
        d.stop_reason = reason;
        d
    });
    Decision::Stop(Stop { reason, disable_endpoint, dead_letter })
}

/// `1 <= max_attempts <= 100` (bounded work: the largest `hard_cap`).
pub(crate) fn validate_max_attempts(state: &DeliveryState) -> Result<(), PolicyError> {
    if !(1..=crate::plan::MAX_HARD_CAP).contains(&state.max_attempts) {
        return Err(PolicyError::new(ErrorCode::InvalidState, "max_attempts", "must be in 1..=100"));
    }
    Ok(())
}

/// Validate, then run gates 1-5.
pub fn gates(
    policy: &Policy,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    now_ms: u64,
) -> Result<Gates, PolicyError> {
    policy.validate()?;
    if state.attempt < 1 {
        return Err(PolicyError::new(ErrorCode::InvalidState, "attempt", "must be at least 1 (1-based)"));
    }
    validate_max_attempts(state)?;
    let (class, status, retry_after_ms) = match outcome {
        AttemptOutcome::Response { status, retry_after_ms } => {
            (classify_status(*status).map_err(|e| e.within("outcome"))?, Some(*status), *retry_after_ms)
        }
        AttemptOutcome::TransportError { kind } => (classify_error(kind), None, None),
    };
    // 401/403: retryable once, after a forced credential refresh.
    let auth = matches!(status, Some(401) | Some(403));
    let (class, refresh_credentials) = match (auth, state.credentials_refreshed) {
        (true, false) => (OutcomeClass::Retryable, true),
        (true, true) => (OutcomeClass::Terminal, false),
        (false, _) => (class, false),
    };
    let elapsed_ms = now_ms.saturating_sub(state.first_attempted_at_ms);
    let dead_letter = DeadLetter::of(state, elapsed_ms, StopReason::Delivered);
    let decided = |reason, disable| Ok(Gates::Decided(stop(reason, disable, Some(dead_letter.clone()))));
    match class {
        OutcomeClass::Success => return Ok(Gates::Decided(stop(StopReason::Delivered, false, None))),
        OutcomeClass::Terminal => return decided(StopReason::TerminalResponse, status == Some(410)),
        OutcomeClass::Retryable => {}
    }
    if state.attempt >= state.max_attempts {
        return decided(StopReason::MaxAttemptsExhausted, false);
    }
    if elapsed_ms >= policy.window_ms {
        return decided(StopReason::RetryWindowElapsed, false);
    }
    let jittered = policy.backoff.delay_ms(&state.event_id, state.attempt - 1);
    let delay_ms = retry_after_ms.map_or(jittered, |ra| jittered.max(ra));
    if elapsed_ms.saturating_add(delay_ms) > policy.window_ms {
        return decided(StopReason::RetryWindowElapsed, false);
    }
    Ok(Gates::NeedsBudget(PendingRetry {
        retry: Retry { delay_ms, refresh_credentials },
        budget: policy.budget,
        now_ms,
        dead_letter,
    }))
}

/// The pure decision: `now_ms` and the budget counts are inputs (`None` when
/// the store could not be read).
pub fn decide_with(
    policy: &Policy,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    now_ms: u64,
    budget_counts: Option<&BudgetCounts>,
) -> Result<Decision, PolicyError> {
    Ok(match gates(policy, state, outcome, now_ms)? {
        Gates::Decided(d) => d,
        Gates::NeedsBudget(pending) => pending.resolve(budget_counts),
    })
}
