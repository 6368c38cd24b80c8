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

/// The calling thread's CPU time in ns (`CLOCK_THREAD_CPUTIME_ID`; 0 where
/// the platform refuses it): the engine's share in the dispatcher's bench.
pub fn thread_cpu_ns() -> u64 {
    cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// The process's CPU time in ns, every thread (`CLOCK_PROCESS_CPUTIME_ID`).
pub fn process_cpu_ns() -> u64 {
    cpu_ns(libc::CLOCK_PROCESS_CPUTIME_ID)
}

fn cpu_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is handed, or returns -1.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return 0;
    }
    (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
}
