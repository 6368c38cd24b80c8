//! What a run did, from the engine's actions and counters: the REPLICA
//! summary line (docs/replica.md, "The summary") and the demo's tables.
//! The host counts only what it does itself: the sends it made (attempts,
//! abandoned ones at the drain deadline included) and its store calls.

use std::collections::BTreeMap;

use retry_policy_core::health::HoldReason;
use retry_policy_core::StopReason;
use serde_json::{json, Map, Value};

use crate::metrics::Metrics;

/// One event's stop, in the order events stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    pub event_id: String,
    pub endpoint_id: String,
    pub reason: String,
    pub attempts: u64,
    /// The driver's clock when the engine said it.
    pub at_ms: u64,
}

/// The run's figures.
#[derive(Debug, Default)]
pub struct Tally {
    pub admitted: u64,
    /// Open (pending or held) events taken from `--store` and `--resume`.
    pub resumed: u64,
    pub first_attempts: u64,
    pub retries: u64,
    /// Every stop reason (zeros included) -> events that stopped with it.
    pub stops: BTreeMap<String, u64>,
    /// Every stop in order, when the run keeps them (the demo).
    pub stop_log: Vec<Stop>,
    /// Events admitted per endpoint, when the run keeps its stops.
    pub admitted_by_endpoint: BTreeMap<String, u64>,
    /// Holds started, by reason (every reason, zeros included).
    pub holds: BTreeMap<String, u64>,
    /// Events held now (the engine's gauge).
    pub held: u64,
    pub round_trips: u64,
    /// Boundary crossings into the engine (`engine-feed`, `engine-resume`).
    pub crossings: u64,
    /// This thread's CPU time inside those crossings, ns (the bench's engine share).
    pub engine_cpu_ns: u64,
    pub drained: bool,
    pub elapsed_ms: u64,
    /// The `replayed` action, when the run asked for one.
    pub replayed: Option<Value>,
}

impl Tally {
    pub fn new() -> Tally {
        Tally {
            stops: StopReason::ALL.iter().map(|r| (r.as_str().to_string(), 0)).collect(),
            holds: HoldReason::ALL.iter().map(|r| (r.as_str().to_string(), 0)).collect(),
            ..Tally::default()
        }
    }

    /// A send that reached (or tried to reach) the wire.
    pub fn attempted(&mut self, attempt: u32) {
        if attempt <= 1 {
            self.first_attempts += 1;
        } else {
            self.retries += 1;
        }
    }

    pub fn events(&self) -> u64 {
        self.admitted + self.resumed
    }

    pub fn pending(&self) -> u64 {
        self.events().saturating_sub(self.stops.values().sum())
    }

    /// The REPLICA summary line.
    pub fn summary(&self, m: &Metrics) -> Value {
        let kinds: Map<String, Value> = crate::transport_kind::ALL
            .iter()
            .map(|&(k, _)| (k.to_string(), json!(m.counter("webhook_transport_errors_total", Some(("kind", k))))))
            .collect();
        let probe_calls: u64 = ["true", "false", "error"]
            .iter()
            .map(|g| m.counter("webhook_probe_calls_total", Some(("granted", g))))
            .sum();
        json!({
            "host": "rust",
            "events": self.events(),
            "attempts": self.first_attempts + self.retries,
            "first_attempts": self.first_attempts,
            "retries": self.retries,
            "stop_reasons": self.stops,
            "pending": self.pending(),
            "redis_round_trips": self.round_trips,
            "elapsed_ms": self.elapsed_ms,
            "drained": self.drained,
            "transport_errors": kinds,
            "store_errors": m.counter("webhook_budget_store_errors_total", None),
            "budget_disagreements": m.counter("webhook_budget_disagreements_total", None),
            "holds": self.holds,
            "held": self.held,
            "probe_calls": probe_calls,
        })
    }
}
