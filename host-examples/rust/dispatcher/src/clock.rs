//! The dispatcher's clock: the wall clock plus `--clock-offset-ms`.

use retry_policy_core::{Clock, SystemClock};

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemClock.now_ms()
}

/// The wall clock plus `offset_ms` (saturating).
pub fn skewed_now(offset_ms: i64) -> u64 {
    let t = now_ms();
    if offset_ms >= 0 {
        t.saturating_add(offset_ms as u64)
    } else {
        t.saturating_sub(offset_ms.unsigned_abs())
    }
}
