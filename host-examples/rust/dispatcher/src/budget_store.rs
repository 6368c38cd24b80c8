//! Where the dispatcher keeps its retry-budget counts: in this process
//! (the default; a budget per replica) or in Redis (one budget for the
//! whole fleet, `fleet/README.md`). Both offer the same step, run after
//! every attempt: count it if it was a first attempt, and reserve a retry
//! if the policy wants one — atomically, returning the counts the decision
//! is then made on. The rule itself is never evaluated here: in-process it
//! is the component's `budget-allows`, in Redis the shared script.

use std::sync::Mutex;
use std::time::Duration;

use retry_policy_core::{Budget, BudgetCounter, BudgetCounts, InMemoryCounter};
use retry_policy_host::{HostError, PolicyInstance};

use crate::redis_budget::{RedisBudget, ScriptCall};

/// The budget store.
pub enum BudgetStore {
    /// Process-local counts (one budget per replica).
    Local(Mutex<InMemoryCounter>),
    /// Fleet-wide counts in Redis.
    Redis(RedisBudget),
}

/// Why the store could not answer (the budget then fails closed).
#[derive(Debug)]
pub enum StoreError {
    Unavailable(String),
    Policy(HostError),
}

impl BudgetStore {
    /// The in-process default.
    pub fn local() -> Self {
        BudgetStore::Local(Mutex::new(InMemoryCounter::new()))
    }

    /// Redis at `url` (`redis://host:port/db`); a bad URL is an error.
    pub fn redis(url: &str) -> Result<Self, String> {
        Ok(BudgetStore::Redis(RedisBudget::new(url, Duration::from_millis(500))?))
    }

    pub fn name(&self) -> &'static str {
        match self {
            BudgetStore::Local(_) => "in-memory",
            BudgetStore::Redis(_) => "redis",
        }
    }

    /// Redis round trips so far (0 in-process).
    pub fn round_trips(&self) -> u64 {
        match self {
            BudgetStore::Local(_) => 0,
            BudgetStore::Redis(r) => r.round_trips(),
        }
    }

    /// After an attempt to `endpoint_id` at `now_ms`: count it if it was a
    /// first attempt (`first`), and if `reserve` is set, reserve one retry
    /// when the budget allows it. Returns the counts the reservation was
    /// judged on (`None` when no reservation was asked for). One round trip
    /// in Redis.
    pub fn settle(
        &self,
        policy: &mut PolicyInstance,
        endpoint_id: &str,
        budget: &Budget,
        now_ms: u64,
        first: bool,
        reserve: bool,
    ) -> Result<Option<BudgetCounts>, StoreError> {
        let window_ms = budget.window_ms.max(1);
        match self {
            BudgetStore::Local(counter) => {
                let mut c = counter.lock().unwrap_or_else(|p| p.into_inner());
                let bucket = now_ms / window_ms;
                if first {
                    let _ = c.record(endpoint_id, window_ms, bucket, false);
                }
                if !reserve {
                    return Ok(None);
                }
                let Ok(counts) = c.read(endpoint_id, window_ms, bucket);
                if policy.budget_allows(budget, now_ms, &counts).map_err(StoreError::Policy)? {
                    let _ = c.record(endpoint_id, window_ms, bucket, true);
                }
                Ok(Some(counts))
            }
            BudgetStore::Redis(r) => {
                let mut calls = Vec::with_capacity(2);
                if first {
                    calls.push(ScriptCall::Record { is_retry: false });
                }
                if reserve {
                    calls.push(ScriptCall::Reserve(budget));
                }
                if calls.is_empty() {
                    return Ok(None);
                }
                let replies = r.run(endpoint_id, window_ms, now_ms, &calls).map_err(|e| StoreError::Unavailable(e.to_string()))?;
                Ok(if reserve { replies.last().map(|x| x.counts) } else { None })
            }
        }
    }
}
