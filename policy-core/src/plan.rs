//! Deriving max attempts from the retry window.
//!
//! The window is the promise ("we keep trying for up to N minutes"); the
//! attempt count falls out of the backoff curve. Walk the cumulative
//! *expected* delay and keep every attempt that still starts inside the
//! window, up to `hard_cap` attempts:
//!
//! ```text
//! attempts = 1; elapsed = 0; offsets = [0]
//! while attempts < hard_cap:
//!     nxt = expected_ms(attempts - 1)
//!     if elapsed + nxt > window_ms: break
//!     elapsed += nxt; offsets.push(elapsed); attempts += 1
//! ```
//!
//! `worst_case_span_ms` sums the ceilings instead (every jittered delay on
//! its ceiling). `limited_by = HardCap` flags a schedule the cap cut short
//! while the window still had room: the promise is not used up, and tooling
//! should refuse or at least shout about such a policy.

use alloc::vec::Vec;

use crate::backoff::Backoff;
use crate::error::{ErrorCode, PolicyError};

/// Largest retry window accepted: 30 days.
pub const MAX_WINDOW_MS: u64 = 2_592_000_000;
/// Largest hard cap on attempts.
pub const MAX_HARD_CAP: u32 = 100;

/// What ended the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitedBy {
    /// The next attempt would start after the window closes.
    Window,
    /// The hard cap ended it while the window had room left.
    HardCap,
}

impl LimitedBy {
    pub const fn as_str(self) -> &'static str {
        match self {
            LimitedBy::Window => "window",
            LimitedBy::HardCap => "hard_cap",
        }
    }
}

/// The schedule an event is admitted under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub max_attempts: u32,
    /// Sum of expected delays up to the last attempt.
    pub expected_span_ms: u64,
    /// Expected start of each attempt, relative to the first (`[0, ...]`).
    pub offsets_ms: Vec<u64>,
    /// Span if every delay lands on its ceiling.
    pub worst_case_span_ms: u64,
    pub limited_by: LimitedBy,
}

/// Check `hard_cap` and `window_ms` (after the backoff).
pub fn validate_limits(backoff: &Backoff, window_ms: u64, hard_cap: u32) -> Result<(), PolicyError> {
    backoff.validate().map_err(|e| e.within("backoff"))?;
    if !(1..=MAX_HARD_CAP).contains(&hard_cap) {
        return Err(PolicyError::new(ErrorCode::InvalidHardCap, "hard_cap", "must be in 1..=100"));
    }
    if window_ms > MAX_WINDOW_MS {
        return Err(PolicyError::new(ErrorCode::InvalidWindow, "window_ms", "must be at most 2592000000 ms (30 days)"));
    }
    Ok(())
}

/// Derive the schedule for a window. Validates backoff, then `hard_cap`,
/// then `window_ms`.
pub fn plan(backoff: &Backoff, window_ms: u64, hard_cap: u32) -> Result<Plan, PolicyError> {
    validate_limits(backoff, window_ms, hard_cap)?;
    let mut attempts: u32 = 1;
    let mut elapsed: u64 = 0;
    let mut offsets_ms = Vec::with_capacity(hard_cap as usize);
    offsets_ms.push(0);
    while attempts < hard_cap {
        let next = backoff.expected_ms(attempts - 1);
        if elapsed.saturating_add(next) > window_ms {
            break;
        }
        elapsed += next;
        offsets_ms.push(elapsed);
        attempts += 1;
    }
    let worst_case_span_ms = (0..attempts - 1).fold(0u64, |sum, i| sum.saturating_add(backoff.ceiling_ms(i)));
    let cap_ended_it = attempts == hard_cap && elapsed.saturating_add(backoff.expected_ms(attempts - 1)) <= window_ms;
    Ok(Plan {
        max_attempts: attempts,
        expected_span_ms: elapsed,
        offsets_ms,
        worst_case_span_ms,
        limited_by: if cap_ended_it { LimitedBy::HardCap } else { LimitedBy::Window },
    })
}
