//! Pieces of the `retry-policy` CLI: durations, the schedule table, the
//! component as the decision source of `lint`, `simulate` and `diff`
//! (policy-tools), and `bundle` / `inspect` ([`artifact`]); documents read
//! one way for every command ([`document`]); one exit-code rule ([`exit`]).

pub mod args;
pub mod artifact;
pub mod document;
pub mod exit;
#[cfg(feature = "rollout")]
pub mod rollout;

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

/// `855000` -> `14m15s`, for humans (the tools' one formatter).
pub use policy_tools::human::ms as human_ms;

/// The schedule as a table: attempt, expected offset, ceiling of the wait
/// before it, cumulative worst case. The plan comes from the component, the
/// ceilings from policy-core's curve (`policy_tools::engine::ceilings`: ABI
/// 1.0 no longer exports `delay`).
pub fn schedule_table(
    title: &str,
    backoff: &Backoff,
    window_ms: u64,
    hard_cap: u32,
    plan: &Plan,
) -> Result<String, HostError> {
    let mut out = String::new();
    let ceilings =
        policy_tools::engine::ceilings(backoff, plan.max_attempts.saturating_sub(1)).map_err(|e| match e {
            policy_tools::EngineError::Refused(p) => HostError::Policy(p),
            policy_tools::EngineError::Failed(m) => HostError::Load(m),
        })?;
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
        let ceiling = if i == 0 { None } else { ceilings.get(i - 1).copied() };
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

/// The component as the policy tools' decision source: `lint`, `simulate`
/// and `diff` get every number from the same artifact the dispatchers run.
pub struct ComponentSource(pub PolicyInstance);

fn engine_err(e: HostError) -> policy_tools::EngineError {
    match e {
        HostError::Policy(p) => policy_tools::EngineError::Refused(p),
        other => policy_tools::EngineError::Failed(other.to_string()),
    }
}

impl policy_tools::DecisionSource for ComponentSource {
    fn load_document(
        &mut self,
        json: &str,
    ) -> Result<retry_policy_core::document::PolicyDocument, policy_tools::EngineError> {
        let doc = self.0.load_document(json).map_err(engine_err)?;
        let version = doc.version.clone();
        Ok(retry_policy_core::document::PolicyDocument { version, classes: crate::document_classes(&doc) })
    }

    fn load_health_document(
        &mut self,
        json: &str,
    ) -> Result<retry_policy_core::health::HealthDocument, policy_tools::EngineError> {
        let doc = self.0.load_health_document(json).map_err(engine_err)?;
        let classes = doc.classes.iter().map(|c| (c.name.clone(), c.policy)).collect();
        let health = doc.classes.into_iter().map(|c| (c.name, c.health)).collect();
        Ok(retry_policy_core::health::HealthDocument {
            document: retry_policy_core::document::PolicyDocument { version: doc.version, classes },
            health,
        })
    }

    fn plan(&mut self, backoff: &Backoff, window_ms: u64, hard_cap: u32) -> Result<Plan, policy_tools::EngineError> {
        self.0.plan(backoff, window_ms, hard_cap).map_err(engine_err)
    }

    fn evaluate(
        &mut self,
        policy: &retry_policy_core::Policy,
        state: &retry_policy_core::DeliveryState,
        outcome: &retry_policy_core::AttemptOutcome,
        now_ms: u64,
    ) -> Result<retry_policy_core::Step, policy_tools::EngineError> {
        self.0.evaluate(policy, state, outcome, now_ms).map_err(engine_err)
    }

    fn settle(
        &mut self,
        policy: &retry_policy_core::Policy,
        state: &retry_policy_core::DeliveryState,
        outcome: &retry_policy_core::AttemptOutcome,
        now_ms: u64,
        reply: &retry_policy_core::StoreReply,
    ) -> Result<retry_policy_core::Settlement, policy_tools::EngineError> {
        self.0.settle(policy, state, outcome, now_ms, reply).map_err(engine_err)
    }

    fn store_apply(
        &mut self,
        request: &retry_policy_core::StoreRequest,
        budget: &retry_policy_core::Budget,
        now_ms: u64,
        held: &retry_policy_core::HeldBuckets,
    ) -> Result<(retry_policy_core::Reservation, retry_policy_core::HeldBuckets), policy_tools::EngineError> {
        self.0.store_apply(request, budget, now_ms, held).map_err(engine_err)
    }

    fn parse_retry_after(&mut self, header: &str, now_ms: u64) -> Result<Option<u64>, policy_tools::EngineError> {
        self.0.parse_retry_after(header, now_ms).map_err(engine_err)
    }
}
