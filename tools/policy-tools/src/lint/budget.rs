//! The sample-floor rules: `min_sample` against the traffic an endpoint
//! sees. Every verdict is policy-core's `budget_allows` on the counts (the
//! rule the component's stores run).

use retry_policy_core::{BucketCounts, BudgetCounts};

use super::rules::ClassFacts;
use super::{Finding, Rate, Severity};
use crate::engine::{budget_allows, EngineError};
use crate::human::{ms, pct};

/// Search no further than this many attempts per window.
const LIMIT: u64 = 200_000;

fn allows(c: &ClassFacts, total: u64, retries: u64) -> Result<bool, EngineError> {
    let counts = BudgetCounts { current: BucketCounts { total, retries }, previous: BucketCounts::default() };
    budget_allows(&c.policy.budget, 0, &counts)
}

/// Retries the budget lets through, one after the other, on a window that
/// already holds `first` first attempts (at most `limit`).
fn retries_allowed(c: &ClassFacts, first: u64, limit: u64) -> Result<u64, EngineError> {
    let mut k = 0;
    while k < limit && allows(c, first + k, k)? {
        k += 1;
    }
    Ok(k)
}

/// The budget rules for one class, with the rates that apply to it.
pub fn check(c: &ClassFacts, rates: &[Rate], classes: &[String]) -> Result<Vec<Finding>, EngineError> {
    let mut out = Vec::new();
    let b = c.policy.budget;
    let field = c.field("budget.min_sample");
    if !allows(c, b.min_sample, 0)? {
        let mut t = b.min_sample;
        while t < LIMIT && !allows(c, t, 0)? {
            t += 1;
        }
        out.push(
            Finding::new(
                Severity::Warning,
                "min_sample_no_retry_at_floor",
                field.clone(),
                format!(
                    "at the sample floor no retry fits: ratio {} needs {t} attempts in a window before one retry, so an endpoint with {}..{} attempts per window can never retry; raise min_sample to at least {t}",
                    b.ratio,
                    b.min_sample,
                    t.saturating_sub(1)
                ),
            )
            .with("min_sample", b.min_sample)
            .with("ratio", b.ratio)
            .with("first_total_allowing_a_retry", t),
        );
    }
    for rate in rates.iter().filter(|r| r.key == c.name || !classes.contains(&r.key)) {
        let who = if rate.key == c.name { format!("class {}", c.name) } else { format!("endpoint {}", rate.key) };
        let first = (rate.per_s * b.window_ms as f64 / 1000.0).round() as u64;
        let storm_cap = first.saturating_mul(u64::from(c.plan.max_attempts.saturating_sub(1))).min(LIMIT);
        let k = retries_allowed(c, first, storm_cap + 1)?;
        let base = |f: Finding| {
            f.with("rate_per_s", rate.per_s)
                .with("first_attempts_per_window", first)
                .with("min_sample", b.min_sample)
                .with("retries_allowed_per_window", k)
                .with("ratio", b.ratio)
        };
        let head = format!("{who} at {}/s sends {first} first attempts per {} window", rate.per_s, ms(b.window_ms));
        if first >= b.min_sample && k == 0 {
            out.push(base(Finding::new(
                Severity::Error,
                "min_sample_too_low",
                field.clone(),
                format!("{head} (min_sample {}): the budget allows no retry on them, so its first failure already stops retry_budget_exhausted; raise min_sample above {first}", b.min_sample),
            )));
        } else if first >= b.min_sample && k < 3 {
            out.push(base(Finding::new(
                Severity::Warning,
                "min_sample_too_low",
                field.clone(),
                format!("{head} (min_sample {}): only {k} retries per window fit, so two or three unlucky events throttle it; a quiet endpoint's retries cost little: raise min_sample above {first}", b.min_sample),
            )));
        } else if k > storm_cap {
            out.push(base(Finding::new(
                Severity::Warning,
                "min_sample_too_high",
                field.clone(),
                format!("{head}: even if every event used all {} attempts ({storm_cap} retries) the window stays under min_sample {}, so the budget never engages", c.plan.max_attempts, b.min_sample),
            )));
        } else {
            let share = k as f64 / (first + k).max(1) as f64;
            if share > 2.0 * b.ratio {
                out.push(base(Finding::new(
                    Severity::Warning,
                    "min_sample_too_high",
                    field.clone(),
                    format!("{head}: below min_sample {} retries pass unjudged, so the budget engages only at {} retries ({} of attempts), not {}", b.min_sample, k, pct(share), pct(b.ratio)),
                ).with("share_at_engagement", share)));
            }
        }
    }
    Ok(out)
}
