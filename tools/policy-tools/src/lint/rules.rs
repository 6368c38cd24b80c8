//! The schedule rules: what the plan of one class promises, against its window.

use retry_policy_core::{LimitedBy, Plan, Policy, MAX_HARD_CAP};

use super::{Finding, Severity};
use crate::engine::{DecisionSource, EngineError};
use crate::human::{ms, pct};

/// Everything the rules read about one class, all from the engine.
#[derive(Debug, Clone)]
pub struct ClassFacts {
    pub name: String,
    pub policy: Policy,
    pub plan: Plan,
    /// Ceiling of each retry of the plan, plus one more (the next that did not fit).
    pub ceilings: Vec<u64>,
    /// Offset of each attempt with every delay on its ceiling.
    pub worst_offsets: Vec<u64>,
}

impl ClassFacts {
    pub fn gather(engine: &mut dyn DecisionSource, name: &str, policy: &Policy) -> Result<ClassFacts, EngineError> {
        let plan = engine.plan(&policy.backoff, policy.window_ms, policy.hard_cap)?;
        let n = plan.max_attempts.min(MAX_HARD_CAP);
        let ceilings = crate::engine::ceilings(&policy.backoff, n)?;
        let mut worst_offsets = vec![0u64];
        for c in ceilings.iter().take(plan.max_attempts as usize - 1) {
            let last = *worst_offsets.last().unwrap_or(&0);
            worst_offsets.push(last.saturating_add(*c));
        }
        Ok(ClassFacts { name: name.to_string(), policy: *policy, plan, ceilings, worst_offsets })
    }

    pub fn field(&self, rest: &str) -> String {
        format!("classes.{}.{rest}", self.name)
    }
}

/// The schedule rules for one class.
pub fn check(engine: &mut dyn DecisionSource, c: &ClassFacts) -> Result<Vec<Finding>, EngineError> {
    let mut out = Vec::new();
    let p = &c.policy;
    let plan = &c.plan;
    let window = p.window_ms;
    if plan.limited_by == LimitedBy::HardCap {
        let free = engine.plan(&p.backoff, window, MAX_HARD_CAP)?;
        let needed = if free.limited_by == LimitedBy::Window {
            format!("raise hard_cap to {} (the window's own count)", free.max_attempts)
        } else {
            format!("even hard_cap {MAX_HARD_CAP} cannot fill it: raise cap_ms")
        };
        out.push(
            Finding::new(
                Severity::Error,
                "hard_cap_cuts_schedule",
                c.field("hard_cap"),
                format!(
                    "limited_by = hard_cap: {} attempts, the last expected at {} of a {} window ({}); events dead-letter max_attempts_exhausted {} before the promise; {needed}, or shorten window_ms",
                    plan.max_attempts,
                    ms(plan.expected_span_ms),
                    ms(window),
                    pct(plan.expected_span_ms as f64 / window.max(1) as f64),
                    ms(window.saturating_sub(plan.expected_span_ms)),
                ),
            )
            .with("hard_cap", p.hard_cap)
            .with("max_attempts", plan.max_attempts)
            .with("expected_span_ms", plan.expected_span_ms)
            .with("worst_case_span_ms", plan.worst_case_span_ms)
            .with("window_ms", window)
            .with("max_attempts_at_hard_cap_100", free.max_attempts),
        );
    }
    let first = c.ceilings.first().copied().unwrap_or(0);
    if plan.max_attempts == 1 {
        out.push(
            Finding::new(
                Severity::Error,
                "first_retry_misses_window",
                c.field("window_ms"),
                format!(
                    "no retry fits: the first retry is expected after {} (ceiling {}), past the {} window; every failure dead-letters after one attempt",
                    ms(plan.offsets_ms.get(1).copied().unwrap_or(first / 2)),
                    ms(first),
                    ms(window)
                ),
            )
            .with("first_retry_ceiling_ms", first)
            .with("window_ms", window),
        );
    } else if first > window {
        out.push(
            Finding::new(
                Severity::Warning,
                "first_retry_misses_window",
                c.field("backoff.base_ms"),
                format!(
                    "the first retry's ceiling {} is past the {} window: events that draw a long first delay are never retried (retry_window_elapsed)",
                    ms(first),
                    ms(window)
                ),
            )
            .with("first_retry_ceiling_ms", first)
            .with("window_ms", window),
        );
    }
    if p.backoff.cap_ms > window {
        out.push(
            Finding::new(
                Severity::Warning,
                "cap_longer_than_window",
                c.field("backoff.cap_ms"),
                format!(
                    "cap_ms {} is longer than the {} window: no delay can ever reach the cap, so it caps nothing",
                    ms(p.backoff.cap_ms),
                    ms(window)
                ),
            )
            .with("cap_ms", p.backoff.cap_ms)
            .with("window_ms", window),
        );
    }
    if plan.worst_case_span_ms > window {
        let reachable = c.worst_offsets.iter().filter(|o| **o <= window).count();
        let times = plan.worst_case_span_ms as f64 / window.max(1) as f64;
        let severity = if times > 1.5 { Severity::Warning } else { Severity::Info };
        out.push(
            Finding::new(
                severity,
                "worst_case_beyond_window",
                c.field("backoff"),
                format!(
                    "worst-case span {} is {times:.2}x the {} window: with delays on their ceilings attempts {}..{} start past it, so unlucky events stop retry_window_elapsed after {reachable} of {} attempts",
                    ms(plan.worst_case_span_ms),
                    ms(window),
                    reachable + 1,
                    plan.max_attempts,
                    plan.max_attempts
                ),
            )
            .with("worst_case_span_ms", plan.worst_case_span_ms)
            .with("window_ms", window)
            .with("attempts_reachable_in_worst_case", reachable)
            .with("max_attempts", plan.max_attempts),
        );
    }
    if p.budget.window_ms > window {
        out.push(
            Finding::new(
                Severity::Warning,
                "budget_window_longer_than_class",
                c.field("budget.window_ms"),
                format!(
                    "the budget's {} buckets outlive the class's {} window: retries are judged on counts of events already dead, so a storm long over still throttles new events",
                    ms(p.budget.window_ms),
                    ms(window)
                ),
            )
            .with("budget_window_ms", p.budget.window_ms)
            .with("window_ms", window),
        );
    }
    if !p.budget.sliding {
        out.push(
            Finding::new(
                Severity::Warning,
                "fixed_window_sawtooth",
                c.field("budget.sliding"),
                format!(
                    "sliding = false: the counts reset at every {} rollover, so a broken endpoint gets a fresh {} allowance each bucket (a sawtooth of retry storms); use the sliding estimate",
                    ms(p.budget.window_ms),
                    pct(p.budget.ratio)
                ),
            )
            .with("budget_window_ms", p.budget.window_ms)
            .with("ratio", p.budget.ratio),
        );
    }
    Ok(out)
}
