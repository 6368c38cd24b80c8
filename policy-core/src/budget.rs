//! The fleet-wide retry budget: retries to an endpoint may not exceed
//! `ratio` of all attempts to it.
//!
//! # The math
//!
//! Counts live per endpoint in buckets `floor(now_ms / window_ms)`, each
//! holding `total` (every attempt, first ones and retries) and `retries`.
//! With sliding windows the previous bucket is weighted by the share of it
//! that still lies inside a window ending now (a sliding estimate, so the
//! budget does not reset at every rollover):
//!
//! ```text
//! w           = (window_ms - now_ms % window_ms) / window_ms   (sliding; else 0)
//! est_total   = current.total   + previous.total   * w
//! est_retries = current.retries + previous.retries * w
//! allows      = est_total < min_sample                          (too little signal)
//!            || est_retries + 1 <= ratio * (est_total + 1)      (counting this retry)
//! ```
//!
//! All in doubles, in exactly this order. The `+ 1` on both sides counts the
//! retry being decided, so 100 attempts and 10 retries refuse the 11th at
//! a 10% ratio (the design note's own test, which its code fails).

use crate::error::{ErrorCode, PolicyError};

/// Budget configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Largest share of attempts that may be retries, in `(0, 1]`.
    pub ratio: f64,
    /// Bucket width, in milliseconds (`>= 1`).
    pub window_ms: u64,
    /// Below this many (estimated) attempts a retry is always allowed.
    pub min_sample: u64,
    /// Weight the previous bucket (sliding estimate); `false` = fixed windows.
    pub sliding: bool,
}

impl Default for Budget {
    /// The design note's starting point: 10% over 60 s, 50-attempt floor, sliding.
    fn default() -> Self {
        Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true }
    }
}

/// Counts of one bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BucketCounts {
    pub total: u64,
    pub retries: u64,
}

/// The current bucket and the one before it, as read from the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BudgetCounts {
    pub current: BucketCounts,
    pub previous: BucketCounts,
}

impl Budget {
    /// `0 < ratio <= 1` (finite) and `window_ms >= 1`.
    pub fn validate(&self) -> Result<(), PolicyError> {
        if !(self.ratio > 0.0 && self.ratio <= 1.0) {
            return Err(PolicyError::new(ErrorCode::InvalidBudget, "ratio", "must be in (0, 1]"));
        }
        if self.window_ms < 1 {
            return Err(PolicyError::new(ErrorCode::InvalidBudget, "window_ms", "must be at least 1 ms"));
        }
        Ok(())
    }

    /// The bucket `now_ms` falls in (`floor(now_ms / window_ms)`). An
    /// invalid budget (`window_ms` 0) has one bucket, 0: never a panic.
    pub fn bucket(&self, now_ms: u64) -> u64 {
        now_ms.checked_div(self.window_ms).unwrap_or(0)
    }

    /// Whether one more retry fits the budget. Meant for a validated budget;
    /// with `window_ms` 0 the previous bucket weighs nothing (never a panic).
    pub fn allows_retry(&self, now_ms: u64, counts: &BudgetCounts) -> bool {
        let window = self.window_ms as f64;
        let w = match now_ms.checked_rem(self.window_ms) {
            Some(rem) if self.sliding => (self.window_ms - rem) as f64 / window,
            _ => 0.0,
        };
        let est_total = counts.current.total as f64 + counts.previous.total as f64 * w;
        let est_retries = counts.current.retries as f64 + counts.previous.retries as f64 * w;
        if est_total < self.min_sample as f64 {
            return true;
        }
        est_retries + 1.0 <= self.ratio * (est_total + 1.0)
    }
}

/// Validate, then decide whether a retry fits.
pub fn budget_allows(budget: &Budget, now_ms: u64, counts: &BudgetCounts) -> Result<bool, PolicyError> {
    budget.validate()?;
    Ok(budget.allows_retry(now_ms, counts))
}
