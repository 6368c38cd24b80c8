//! Pieces of the `retry-policy` CLI: durations and the schedule table.

use std::fmt::Write as _;

use retry_policy_core::{Backoff, LimitedBy, Plan};

use crate::{HostError, PolicyInstance};

/// `500ms`, `2s`, `15m`, `2h`, `1d`, or bare milliseconds.
pub fn parse_duration_ms(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().map_err(|_| format!("`{text}` is not a duration (try 500ms, 2s, 15m, 2h, 1d)"))?;
    let scale = match unit {
        "" | "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (ms, s, m, h, d)")),
    };
    n.checked_mul(scale).ok_or_else(|| format!("`{text}` is too long"))
}

/// `855000` -> `855 s` / `14m15s`-style, for humans.
pub fn human_ms(ms: u64) -> String {
    let s = ms / 1000;
    let frac = ms % 1000;
    let base = if s >= 3600 {
        format!("{}h{:02}m{:02}s", s / 3600, (s % 3600) / 60, s % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    };
    if frac == 0 {
        base
    } else {
        format!("{base}+{frac}ms")
    }
}

/// The schedule as a table: attempt, expected offset, ceiling of the wait
/// before it, cumulative worst case. Ceilings come from the component (the
/// delay of a `jitter: none` backoff is exactly its ceiling).
pub fn schedule_table(
    policy: &mut PolicyInstance,
    title: &str,
    backoff: &Backoff,
    window_ms: u64,
    hard_cap: u32,
    plan: &Plan,
) -> Result<String, HostError> {
    let mut out = String::new();
    let unjittered = Backoff { jitter: retry_policy_core::Jitter::None, ..*backoff };
    let _ = writeln!(
        out,
        "{title}: window {} ({} ms), {} attempts, expected span {} ms, worst case {} ms, limited by {}",
        human_ms(window_ms),
        window_ms,
        plan.max_attempts,
        plan.expected_span_ms,
        plan.worst_case_span_ms,
        plan.limited_by.as_str()
    );
    let _ = writeln!(
        out,
        "{:>7}  {:>12}  {:>12}  {:>14}  {:>10}",
        "attempt", "offset_ms", "ceiling_ms", "worst_case_ms", "offset"
    );
    let mut worst = 0u64;
    for (i, offset) in plan.offsets_ms.iter().enumerate() {
        let ceiling = if i == 0 { None } else { Some(policy.delay(&unjittered, "", (i - 1) as u32)?) };
        worst = worst.saturating_add(ceiling.unwrap_or(0));
        let c = ceiling.map_or_else(|| "-".to_string(), |c| c.to_string());
        let _ = writeln!(out, "{:>7}  {:>12}  {:>12}  {:>14}  {:>10}", i + 1, offset, c, worst, human_ms(*offset));
    }
    if plan.limited_by == LimitedBy::HardCap {
        let _ = writeln!(
            out,
            "WARNING: hard_cap {hard_cap} ended this schedule, not the window: the last attempt is expected at {} of a {} window.\n         The promise is not used up; raise hard_cap, or shorten the window to what the cap allows.",
            human_ms(plan.expected_span_ms),
            human_ms(window_ms)
        );
    }
    Ok(out)
}
