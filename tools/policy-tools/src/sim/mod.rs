//! `simulate`: a storm on a virtual clock. Endpoints answer by failure
//! pattern, traffic arrives per endpoint and class, N replicas share one
//! budget store or keep one each, and every decision is the engine's
//! evaluate, store call and settle (see [`run`]). No sockets, no sleeps:
//! minutes of virtual time take well under a second of wall time.

pub mod compare;
pub mod compare_json;
pub mod figures;
pub mod health;
pub mod output;
pub mod rng;
mod run;
pub mod scenario;
pub mod series;
pub mod world;

pub use run::{policies, run, EndpointTotals, Run};
pub use scenario::{Failure, Scenario, Scope, Variant};

use retry_policy_core::document::PolicyDocument;

use crate::DecisionSource;

/// Every variant of a scenario, under one seed.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulation {
    pub scenario: Scenario,
    pub seed: u64,
    pub runs: Vec<Run>,
}

/// Simulate every variant of `scenario` on `doc` (seed: `seed`, else the scenario's).
pub fn simulate(
    engine: &mut dyn DecisionSource,
    doc: &PolicyDocument,
    scenario: &Scenario,
    seed: Option<u64>,
) -> Result<Simulation, String> {
    let seed = seed.unwrap_or(scenario.seed);
    let runs =
        scenario.runs().iter().map(|v| run(engine, &doc.classes, scenario, v, seed)).collect::<Result<_, _>>()?;
    Ok(Simulation { scenario: scenario.clone(), seed, runs })
}
