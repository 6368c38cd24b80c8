//! `simulate`: a storm on a virtual clock. Endpoints answer by failure
//! pattern, traffic arrives per endpoint and class, N replicas share one
//! budget store or keep one each, and each replica is the delivery engine
//! itself (`policy-core`'s `engine`, the code the component runs): the one
//! loop of [`drive`] performs its actions as a dispatcher does, and every
//! figure is counted from those actions ([`tally`]). No sockets, no
//! sleeps: minutes of virtual time take well under a second of wall time.

pub mod compare;
pub mod compare_json;
pub mod document;
pub mod drive;
pub mod figures;
pub mod fleet;
pub mod output;
pub mod rng;
mod run;
pub mod scenario;
pub mod series;
pub mod tally;
pub mod world;

pub use document::policies;
pub use run::{run, EndpointTotals, Run};
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

/// Simulate every variant of `scenario` on `doc` (seed: `seed`, else the
/// scenario's). `engine` reads each variant's document first (the
/// component in the CLI), so a document it would refuse is not simulated.
pub fn simulate(
    engine: &mut dyn DecisionSource,
    doc: &PolicyDocument,
    scenario: &Scenario,
    seed: Option<u64>,
) -> Result<Simulation, String> {
    let seed = seed.unwrap_or(scenario.seed);
    let none = vec![None; doc.classes.len()];
    let runs = scenario
        .runs()
        .iter()
        .map(|v| {
            document::checked_document(engine, &doc.version, &policies(&doc.classes, v), &none)?;
            run(&doc.version, &doc.classes, scenario, v, seed)
        })
        .collect::<Result<_, String>>()?;
    Ok(Simulation { scenario: scenario.clone(), seed, runs })
}
