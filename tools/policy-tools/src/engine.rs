//! "The policy" as the tools see it: the operations of the component that
//! lint, simulate and diff need, in `policy-core`'s vocabulary.

use std::fmt;

use retry_policy_core::document::PolicyDocument;
use retry_policy_core::health::HealthDocument;
use retry_policy_core::{
    AttemptOutcome, Backoff, Budget, BudgetCounts, DeliveryState, HeldBuckets, Plan, Policy, PolicyError, Reservation,
    Settlement, Step, StoreReply, StoreRequest,
};

/// Why the engine gave no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineError {
    /// The policy refused the input: the contract's code and field.
    Refused(PolicyError),
    /// The engine itself failed (could not load, trapped).
    Failed(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Refused(e) => write!(f, "{e}"),
            EngineError::Failed(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<PolicyError> for EngineError {
    fn from(e: PolicyError) -> Self {
        EngineError::Refused(e)
    }
}

/// The policy operations the tools call. Every method is pure: same inputs,
/// same output, on every engine.
pub trait DecisionSource {
    /// Parse and validate a JSON policy document (format 2: a `health`
    /// member is an unknown field).
    fn load_document(&mut self, json: &str) -> Result<PolicyDocument, EngineError>;
    /// Parse and validate a format-3 document (format 2 plus optional
    /// `health` sections): each class's effective section, in document
    /// order (the component's `load-health-document`).
    fn load_health_document(&mut self, json: &str) -> Result<HealthDocument, EngineError>;
    /// The schedule a class's events are admitted under.
    fn plan(&mut self, backoff: &Backoff, window_ms: u64, hard_cap: u32) -> Result<Plan, EngineError>;
    /// Gates 1-5 and the one store request the attempt needs.
    fn evaluate(
        &mut self,
        policy: &Policy,
        state: &DeliveryState,
        outcome: &AttemptOutcome,
        now_ms: u64,
    ) -> Result<Step, EngineError>;
    /// The decision once the store answered.
    fn settle(
        &mut self,
        policy: &Policy,
        state: &DeliveryState,
        outcome: &AttemptOutcome,
        now_ms: u64,
        reply: &StoreReply,
    ) -> Result<Settlement, EngineError>;
    /// The in-memory store's rule: `request` applied to what it holds.
    fn store_apply(
        &mut self,
        request: &StoreRequest,
        budget: &Budget,
        now_ms: u64,
        held: &HeldBuckets,
    ) -> Result<(Reservation, HeldBuckets), EngineError>;
    /// A `Retry-After` header value in ms from `now_ms` (`None`: unusable).
    fn parse_retry_after(&mut self, header: &str, now_ms: u64) -> Result<Option<u64>, EngineError>;
}

/// Ceilings of retries `0..n`: `policy-core`'s own curve (ABI 1.0 no longer
/// exports `delay`; the curve is the same code inside the component).
pub fn ceilings(backoff: &Backoff, n: u32) -> Result<Vec<u64>, EngineError> {
    let unjittered = Backoff { jitter: retry_policy_core::Jitter::None, ..*backoff };
    Ok((0..n).map(|i| retry_policy_core::delay(&unjittered, "", i)).collect::<Result<_, _>>()?)
}

/// Whether one more retry fits the budget on these counts: `policy-core`'s
/// own rule (ABI 1.0 no longer exports `budget-allows`; the engine and the
/// stores run the same code inside the component).
pub fn budget_allows(budget: &Budget, now_ms: u64, counts: &BudgetCounts) -> Result<bool, EngineError> {
    Ok(retry_policy_core::budget_allows(budget, now_ms, counts)?)
}
