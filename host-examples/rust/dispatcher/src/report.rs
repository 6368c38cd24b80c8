//! Summaries of a run: stop reasons per endpoint (the demo's table) and the
//! REPLICA contract's one-line JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use retry_policy_core::StopReason;
use serde_json::{json, Map, Value};

use crate::store::{EventRecord, Status};

/// Events per stop reason (every reason present, zeros included), plus
/// `pending` for events that have not stopped.
pub fn stop_reason_counts<'a>(
    records: impl IntoIterator<Item = &'a EventRecord>,
) -> (BTreeMap<&'static str, u64>, u64) {
    let mut counts: BTreeMap<&'static str, u64> = StopReason::ALL.iter().map(|r| (r.as_str(), 0)).collect();
    let mut pending = 0;
    for r in records {
        match (r.status, r.stop_reason) {
            (Status::Pending | Status::Held, _) | (_, None) => pending += 1,
            (_, Some(reason)) => *counts.entry(reason.as_str()).or_default() += 1,
        }
    }
    (counts, pending)
}

/// The REPLICA summary (docs/replica.md, "The summary"): the counts of
/// [`replica_json`] plus `drained`, `transport_errors` (every kind of
/// fleet/transport-kinds.json, zeros included), `store_errors` and
/// `budget_disagreements`, from the run's metrics.
pub fn replica_summary(
    records: &[EventRecord],
    metrics: &crate::Metrics,
    round_trips: u64,
    elapsed_ms: u64,
    drained: bool,
) -> Value {
    let mut line = replica_json(records, metrics.first_attempts(), metrics.retries(), round_trips, elapsed_ms);
    let kinds: Map<String, Value> =
        crate::transport_kind::names().map(|k| (k.to_string(), json!(metrics.transport_errors(k)))).collect();
    line["drained"] = drained.into();
    line["transport_errors"] = kinds.into();
    line["store_errors"] = metrics.budget_store_errors().into();
    line["budget_disagreements"] = metrics.budget_disagreements().into();
    // Format 3 (docs/replica.md): every hold reason, zeros included; events
    // still held (also in `pending`); probe and wake calls (also round trips).
    let h = &metrics.health;
    let holds: Map<String, Value> =
        crate::metrics_health::HOLD_REASONS.iter().map(|r| (r.as_str().to_string(), json!(h.holds(*r)))).collect();
    line["holds"] = holds.into();
    line["held"] = records.iter().filter(|r| r.status == Status::Held).count().into();
    line["probe_calls"] = h.probe_calls().into();
    line["wake_calls"] = h.wake_calls().into();
    line
}

/// The REPLICA line's counts: `{"host","events","attempts","first_attempts","retries",
/// "stop_reasons","pending","redis_round_trips","elapsed_ms"}`.
pub fn replica_json(
    records: &[EventRecord],
    first_attempts: u64,
    retries: u64,
    round_trips: u64,
    elapsed_ms: u64,
) -> Value {
    let (counts, pending) = stop_reason_counts(records);
    let reasons: Map<String, Value> = counts.into_iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    json!({
        "host": "rust",
        "events": records.len(),
        "attempts": first_attempts + retries,
        "first_attempts": first_attempts,
        "retries": retries,
        "stop_reasons": reasons,
        "pending": pending,
        "redis_round_trips": round_trips,
        "elapsed_ms": elapsed_ms,
    })
}

const COLUMNS: [(StopReason, &str); 6] = [
    (StopReason::Delivered, "delivered"),
    (StopReason::TerminalResponse, "terminal"),
    (StopReason::MaxAttemptsExhausted, "max_attempts"),
    (StopReason::RetryBudgetExhausted, "budget_exh"),
    (StopReason::RetryWindowElapsed, "window"),
    (StopReason::BudgetUnavailable, "budget_unav"),
];

/// A table: one row per endpoint (in `order`), one column per stop reason,
/// then attempts made.
pub fn endpoint_table(records: &[EventRecord], order: &[&str]) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:<10} {:>7}", "endpoint", "events");
    for (_, c) in COLUMNS {
        let _ = write!(out, " {c:>12}");
    }
    let _ = writeln!(out, " {:>9} {:>8}", "attempts", "pending");
    for ep in order {
        let rows: Vec<&EventRecord> = records.iter().filter(|r| r.endpoint_id == *ep).collect();
        let (counts, pending) = stop_reason_counts(rows.iter().copied());
        let attempts: u64 = rows.iter().map(|r| u64::from(r.attempts)).sum();
        let _ = write!(out, "{:<10} {:>7}", ep, rows.len());
        for (r, _) in COLUMNS {
            let _ = write!(out, " {:>12}", counts[r.as_str()]);
        }
        let _ = writeln!(out, " {attempts:>9} {pending:>8}");
    }
    out
}
