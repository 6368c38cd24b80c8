//! The two things a host injects: a clock and a budget counter. The crate
//! never reads a clock or touches a store itself; these tiny traits let a
//! host (or a test) drive [`decide`] with whatever it has. A fake clock and
//! an in-memory counter ship here for tests and single-process hosts.

use alloc::collections::BTreeMap;
use alloc::string::String;
use core::cell::Cell;

use crate::budget::{BucketCounts, BudgetCounts};
use crate::decide::{evaluate, AttemptOutcome, Decision, DeliveryState, Policy, Step};
use crate::error::PolicyError;

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
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0)
    }
}

/// Per-endpoint attempt counts in buckets of `window_ms`. `bucket` is
/// `now_ms / window_ms`, computed by the policy so no host repeats it.
pub trait BudgetCounter {
    type Error;
    /// Counts of `bucket` and `bucket - 1` for the endpoint.
    fn read(&mut self, endpoint_id: &str, window_ms: u64, bucket: u64) -> Result<BudgetCounts, Self::Error>;
    /// Count one attempt in `bucket` (and one retry if `is_retry`).
    fn record(&mut self, endpoint_id: &str, window_ms: u64, bucket: u64, is_retry: bool) -> Result<(), Self::Error>;
}

/// A process-local counter: each (endpoint, bucket width) keeps only its two
/// newest buckets, so memory is bounded by the number of endpoints and
/// budget windows in use. Process-local budgets do
/// not hold across replicas; a fleet shares one store instead.
#[derive(Debug, Default, Clone)]
pub struct InMemoryCounter {
    /// Keyed by endpoint and bucket width: two classes with different budget
    /// windows on one endpoint count in separate buckets (as the Redis keys do).
    endpoints: BTreeMap<(String, u64), Buckets>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Buckets {
    /// Newest bucket index and its counts, then the one before it.
    newest: (u64, BucketCounts),
    older: (u64, BucketCounts),
}

impl Buckets {
    fn get(&self, bucket: u64) -> BucketCounts {
        if self.newest.0 == bucket {
            self.newest.1
        } else if self.older.0 == bucket {
            self.older.1
        } else {
            BucketCounts::default()
        }
    }
}

impl InMemoryCounter {
    pub fn new() -> Self {
        Self::default()
    }
}

impl BudgetCounter for InMemoryCounter {
    type Error = core::convert::Infallible;

    fn read(&mut self, endpoint_id: &str, window_ms: u64, bucket: u64) -> Result<BudgetCounts, Self::Error> {
        let b = self.endpoints.get(&(String::from(endpoint_id), window_ms)).copied().unwrap_or_default();
        let previous = bucket.checked_sub(1).map(|p| b.get(p)).unwrap_or_default();
        Ok(BudgetCounts { current: b.get(bucket), previous })
    }

    fn record(&mut self, endpoint_id: &str, window_ms: u64, bucket: u64, is_retry: bool) -> Result<(), Self::Error> {
        let b = self.endpoints.entry((String::from(endpoint_id), window_ms)).or_default();
        if bucket > b.newest.0 {
            // Roll forward: the newest bucket becomes the older one only if
            // it is the bucket right before; otherwise the older is empty.
            b.older = if bucket == b.newest.0 + 1 { b.newest } else { (bucket - 1, BucketCounts::default()) };
            b.newest = (bucket, BucketCounts::default());
        }
        let slot = if b.newest.0 == bucket {
            &mut b.newest.1
        } else if b.older.0 == bucket {
            &mut b.older.1
        } else {
            // Older than both kept buckets: no longer read by anyone.
            return Ok(());
        };
        slot.total += 1;
        slot.retries += u64::from(is_retry);
        Ok(())
    }
}

/// Decide with an injected clock and counter. The counter is read only when
/// gates 1-5 want a retry; a scheduled retry is recorded (reserved) in the
/// counter at once, so the host must not record it again when it sends it.
/// A counter error on read or record stops the event `budget_unavailable`:
/// the budget fails closed.
pub fn decide<C: Clock + ?Sized, B: BudgetCounter + ?Sized>(
    policy: &Policy,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    clock: &C,
    counter: &mut B,
) -> Result<Decision, PolicyError> {
    let pending = match evaluate(policy, state, outcome, clock.now_ms())? {
        Step::Decided(d) => return Ok(d),
        Step::NeedsBudget(p) => p,
    };
    let (window_ms, bucket) = (pending.budget.window_ms, pending.bucket());
    let counts = counter.read(&state.endpoint_id, window_ms, bucket).ok();
    let decision = pending.clone().resolve(counts.as_ref());
    if matches!(decision, Decision::Retry(_)) && counter.record(&state.endpoint_id, window_ms, bucket, true).is_err() {
        return Ok(pending.resolve(None));
    }
    Ok(decision)
}
