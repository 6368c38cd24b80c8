//! One run of a scenario variant (format 2: the document's classes without
//! their `health` sections): the engine-driven loop of [`super::drive`],
//! reported as a per-second series and per-endpoint totals.

use std::collections::BTreeMap;

use retry_policy_core::{Policy, StopReason};

use super::document::policies;
use super::drive::{drive, traffic_of, Setup};
use super::scenario::{Scenario, Scope, Variant};
use super::series::Series;
use super::tally::Tally;

/// What happened to one endpoint over the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointTotals {
    pub id: String,
    pub healthy: bool,
    pub events: u64,
    /// `send` actions to it, and of those with attempt number 2 or more.
    pub attempts: u64,
    pub retries: u64,
    pub delivered: u64,
    pub dead: [u64; 5],
    /// Reasons of the first dead letters, in the order they stopped.
    pub first_stops: Vec<StopReason>,
}

/// The result of one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub variant: String,
    pub replicas: u32,
    pub scope: Scope,
    pub ratio: f64,
    pub sliding: bool,
    pub min_sample: u64,
    pub series: Series,
    pub endpoints: Vec<EndpointTotals>,
    /// `webhook_budget_disagreements_total`, summed over replicas.
    pub disagreements: u64,
    /// Inputs fed to the replicas' engines (admits, results, store answers, ticks).
    pub engine_calls: u64,
    /// Events still undecided when the drain time ran out.
    pub unfinished: u64,
    /// Every counter the engines moved (docs/metrics.md), summed over
    /// replicas: `name` or `name{label=value}`.
    pub counters: BTreeMap<String, u64>,
}

/// Run one variant of `scenario` with `seed` (`version`: the document's).
pub fn run(
    version: &str,
    classes: &[(String, Policy)],
    scenario: &Scenario,
    variant: &Variant,
    seed: u64,
) -> Result<Run, String> {
    let pols = policies(classes, variant);
    traffic_of(scenario, &pols)?;
    let replicas = variant.replicas.unwrap_or(scenario.replicas);
    let scope = variant.budget.unwrap_or(scenario.budget);
    let health = vec![None; pols.len()];
    let setup = Setup { scenario, classes: &pols, health: &health, version, replicas, scope, seed };
    let mut tally = Tally::new(scenario, |_| 0.0);
    let unfinished = drive(&setup, &mut tally).map_err(|e| format!("variant {}: {e}", variant.name))?;
    let disagreements = tally.counter("webhook_budget_disagreements_total");
    let counters = tally.counters();
    let b = pols.first().map(|(_, p)| p.budget).unwrap_or_default();
    Ok(Run {
        variant: variant.name.clone(),
        replicas,
        scope,
        ratio: b.ratio,
        sliding: b.sliding,
        min_sample: b.min_sample,
        series: tally.series,
        endpoints: tally.endpoints,
        disagreements,
        engine_calls: tally.inputs,
        unfinished,
        counters,
    })
}
