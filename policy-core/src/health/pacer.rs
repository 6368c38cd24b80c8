//! The release pacer (docs/health.md section 4, gate 6): per replica and
//! endpoint, a token bucket that held events spend to leave.
//!
//! # The math
//!
//! ```text
//! rate     = max(release.floor_per_s, release.multiple * normal_per_s)   (tokens per second)
//! capacity = max(rate, 1)                      (one second's worth, at least one token)
//! tokens'  = min(capacity, tokens + rate * elapsed_ms / 1000)   elapsed_ms = now_ms - updated_ms (0 if negative)
//! tokens' >= 1: send, tokens' - 1 left
//! else:         wait until now_ms + ceil((1 - tokens') * 1000 / rate)
//! ```
//!
//! in doubles, left to right. Every call stores `tokens'` (after the spend)
//! and `updated_ms = now_ms`. A new pacer (`Default`: 0 tokens at instant
//! 0) is full at its first use. New events spend nothing, so after a
//! recovery an endpoint sees at most `(1 + multiple)` times its normal rate
//! from the fleet, plus `floor_per_s` per replica.
//!
//! `normal_per_s` is the rate the replica admitted new events to the
//! endpoint over the budget window: [`normal_per_s`] from the admissions it
//! counted in the budget's buckets, with the budget's sliding weight.

use crate::budget::Budget;
use crate::error::{ErrorCode, PolicyError};

use super::section::Release;
use super::state::sliding_weight;

/// The largest `normal_per_s` a pacer takes (bounds the rate: no infinity).
pub const MAX_NORMAL_PER_S: f64 = 1e9;

/// One replica's token bucket for one endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pacer {
    /// Finite, `>= 0`.
    pub tokens: f64,
    pub updated_ms: u64,
    /// Finite, `0..=1e9`.
    pub normal_per_s: f64,
}

/// What the pacer says about one held event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// A token was spent: the event may leave.
    Send,
    /// No token: the next one accrues at `until_ms`.
    Wait { until_ms: u64 },
}

impl Pacer {
    /// `tokens` finite and `>= 0`, `normal_per_s` finite in `0..=1e9`
    /// (`invalid_input`, `pacer.<field>`).
    pub fn validate(&self) -> Result<(), PolicyError> {
        if !(self.tokens >= 0.0 && self.tokens.is_finite()) {
            return Err(PolicyError::new(ErrorCode::InvalidInput, "pacer.tokens", "must be a finite number >= 0"));
        }
        if !(self.normal_per_s >= 0.0 && self.normal_per_s <= MAX_NORMAL_PER_S) {
            return Err(PolicyError::new(ErrorCode::InvalidInput, "pacer.normal_per_s", "must be in 0..=1e9"));
        }
        Ok(())
    }
}

/// Tokens per second for held events.
pub fn rate_per_s(release: &Release, normal_per_s: f64) -> f64 {
    release.floor_per_s.max(release.multiple * normal_per_s)
}

/// Spend a token for one held event at `now_ms`, if there is one (module
/// docs). Returns the verdict and the pacer to keep.
pub fn pace(pacer: &Pacer, release: &Release, now_ms: u64) -> (Pace, Pacer) {
    let rate = rate_per_s(release, pacer.normal_per_s);
    let tokens = tokens_at(pacer, release, now_ms);
    let mut next = Pacer { tokens, updated_ms: now_ms, normal_per_s: pacer.normal_per_s };
    if tokens >= 1.0 {
        next.tokens = tokens - 1.0;
        return (Pace::Send, next);
    }
    let wait_ms = ceil_u64((1.0 - tokens) * 1000.0 / rate);
    (Pace::Wait { until_ms: now_ms.saturating_add(wait_ms.max(1)) }, next)
}

/// The tokens `pacer` holds at `now_ms` before any spend (`tokens'` of the
/// module docs), at the rate its `normal_per_s` gives.
pub(crate) fn tokens_at(pacer: &Pacer, release: &Release, now_ms: u64) -> f64 {
    let rate = rate_per_s(release, pacer.normal_per_s);
    let capacity = rate.max(1.0);
    let elapsed_ms = now_ms.saturating_sub(pacer.updated_ms) as f64;
    capacity.min(pacer.tokens + rate * elapsed_ms / 1000.0)
}

/// `ceil(x)` for a positive `x` (core has no `f64::ceil`), saturating.
pub(crate) fn ceil_u64(x: f64) -> u64 {
    let t = x as u64;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

/// The rate the replica admitted new events at over the budget window:
/// `(current + previous * w) * 1000 / window_ms`, `w` the budget's sliding
/// weight at `now_ms`, capped at 1e9. `current`/`previous` are the
/// replica's own admissions in buckets `floor(now_ms / window_ms)` and the
/// one before.
pub fn normal_per_s(budget: &Budget, now_ms: u64, current: u64, previous: u64) -> f64 {
    let w = sliding_weight(budget, now_ms);
    let window = (budget.window_ms.max(1)) as f64;
    ((current as f64 + previous as f64 * w) * 1000.0 / window).min(MAX_NORMAL_PER_S)
}
