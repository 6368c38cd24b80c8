//! One side of the format-2 vs health comparison: the scenario as written
//! (its replicas and budget scope) through the engine-driven loop of
//! [`super::drive`], each class with its `health` section or none, reported
//! as issue 19's per-endpoint [`Figures`].

use retry_policy_core::health::Health;
use retry_policy_core::Policy;

use super::drive::{drive, Setup};
use super::figures::Figures;
use super::scenario::{Scenario, Traffic};
use super::tally::Tally;

/// One side of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetRun {
    /// `format 2` or `health`.
    pub label: String,
    pub replicas: u32,
    pub endpoints: Vec<Figures>,
    /// Store calls tied to an attempt: every `store_call` action that is
    /// not a probe (`record`, `reserve`, `record_reserve`, `report`).
    pub attempt_calls: u64,
    /// `webhook_probe_calls_total` (every `granted` label).
    pub probe_calls: u64,
    /// Inputs fed to the replicas' engines.
    pub engine_calls: u64,
    /// Events still undecided when the drain time ran out.
    pub unfinished: u64,
}

/// The endpoint's new events per second, averaged over the arrivals.
fn normal_rate(scenario: &Scenario, id: &str) -> f64 {
    let d = scenario.duration_s.max(1);
    let secs = |t: &Traffic| t.to_s.unwrap_or(d).min(d).saturating_sub(t.from_s) as f64;
    scenario.traffic.iter().filter(|t| t.endpoint == id).map(|t| t.rate_per_s * secs(t) / d as f64).sum()
}

/// Run `scenario` as written with a health section per class (`None`
/// everywhere: format 2).
pub fn run_fleet(
    version: &str,
    classes: &[(String, Policy)],
    health: &[Option<Health>],
    scenario: &Scenario,
    seed: u64,
    label: &str,
) -> Result<FleetRun, String> {
    let setup = Setup { scenario, classes, health, version, replicas: scenario.replicas, scope: scenario.budget, seed };
    let mut tally = Tally::new(scenario, |id| normal_rate(scenario, id));
    let unfinished = drive(&setup, &mut tally)?;
    tally.finish();
    let probe_calls = tally.counter("webhook_probe_calls_total");
    Ok(FleetRun {
        label: label.to_string(),
        replicas: scenario.replicas,
        endpoints: tally.figures,
        attempt_calls: tally.store_calls.saturating_sub(probe_calls),
        probe_calls,
        engine_calls: tally.inputs,
        unfinished,
    })
}
