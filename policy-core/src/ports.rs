//! The two things a host injects: a clock and a budget store. The crate
//! never reads a clock or touches a store itself; these tiny traits let a
//! host (or a test) drive [`decide`] with whatever it has. A fake clock and
//! an in-memory store ship here for tests and single-process hosts.

use alloc::collections::BTreeMap;
use alloc::string::String;
use core::cell::Cell;

use crate::budget::Budget;
use crate::decide::{AttemptOutcome, Decision, DeliveryState, Policy};
use crate::error::PolicyError;
use crate::step::{evaluate, settle};
use crate::store::{apply, HeldBuckets, Reservation, StoreReply, StoreRequest};

/// Wall-clock milliseconds (Unix epoch), the same clock the first-attempt
/// instant was persisted with.
pub trait Clock {
    fn now_ms(&self) -> u64;
}

/// A clock that moves only when told to.
#[derive(Debug, Default)]
pub struct FakeClock {
    now_ms: Cell<u64>,
}

impl FakeClock {
    pub fn new(now_ms: u64) -> Self {
        FakeClock { now_ms: Cell::new(now_ms) }
    }
    pub fn set(&self, now_ms: u64) {
        self.now_ms.set(now_ms);
    }
    pub fn advance(&self, by_ms: u64) {
        self.now_ms.set(self.now_ms.get().saturating_add(by_ms));
    }
}

impl Clock for FakeClock {
    fn now_ms(&self) -> u64 {
        self.now_ms.get()
    }
}

/// The system clock (`std` feature).
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

#[cfg(feature = "std")]
impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
    }
}

/// A budget store speaking the store protocol ([`crate::store`]): every
/// request answered in ONE call, atomic per endpoint. `budget` and `now_ms`
/// are what a `reserve` judges with.
pub trait BudgetStore {
    type Error;
    fn call(&mut self, request: &StoreRequest, budget: &Budget, now_ms: u64) -> Result<Reservation, Self::Error>;
}

/// A process-local store: for each (endpoint, bucket width) it holds the two
/// newest buckets ([`HeldBuckets`]), so memory is bounded by the endpoints
/// and widths in use, and applies [`crate::store::apply`] to them.
/// Process-local budgets do not hold across replicas; a fleet shares one
/// store (Redis) instead.
#[derive(Debug, Default, Clone)]
pub struct InMemoryStore {
    held: BTreeMap<(String, u64), HeldBuckets>,
}

impl InMemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// What the store holds for an endpoint and width (for tests and tools).
    pub fn held(&self, endpoint_id: &str, window_ms: u64) -> HeldBuckets {
        self.held.get(&(String::from(endpoint_id), window_ms)).copied().unwrap_or_default()
    }
}

impl BudgetStore for InMemoryStore {
    type Error = core::convert::Infallible;

    fn call(&mut self, request: &StoreRequest, budget: &Budget, now_ms: u64) -> Result<Reservation, Self::Error> {
        let slot = self.held.entry((request.endpoint_id.clone(), request.window_ms)).or_default();
        let (reply, held) = apply(request, budget, now_ms, slot);
        *slot = held;
        Ok(reply)
    }
}

/// The whole delivery step with an injected clock and store: [`evaluate`],
/// at most ONE store call, [`settle`]. A store error fails a pending retry
/// closed (`budget_unavailable`); a failed `record` of a decided first
/// attempt changes nothing (only retries need the budget).
pub fn decide<C: Clock + ?Sized, S: BudgetStore + ?Sized>(
    policy: &Policy,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    clock: &C,
    store: &mut S,
) -> Result<Decision, PolicyError> {
    let now_ms = clock.now_ms();
    let step = evaluate(policy, state, outcome, now_ms)?;
    let reply = match &step.store {
        Some(request) => {
            store.call(request, &policy.budget, now_ms).map_or(StoreReply::Unavailable, StoreReply::Answered)
        }
        None => StoreReply::Unavailable,
    };
    if let Some(decision) = step.decision {
        return Ok(decision);
    }
    Ok(settle(policy, state, outcome, now_ms, &reply)?.decision)
}
