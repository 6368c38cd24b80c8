//! `simulate --compare-health --format json`: the comparison as data — per
//! endpoint the table's rows, the goals, the store calls of both runs, and
//! the text the command prints (the npm `compareHealth` returns the same).

use serde_json::{json, Value};

use super::compare::{goals, pattern, render, rows, Comparison};
use super::fleet::FleetRun;

fn calls(r: &FleetRun) -> Value {
    json!({"attempt_calls": r.attempt_calls, "probe_calls": r.probe_calls, "unfinished": r.unfinished})
}

/// `{scenario, seed, replicas, health_source, endpoints: [{id, pattern,
/// normal_per_s, rows: [{figure, format2, health, ratio}]}], calls: {format2,
/// health}, goals: [{endpoint, met, text}], text}`.
pub fn json(c: &Comparison) -> Value {
    let endpoints: Vec<Value> = c
        .scenario
        .endpoints
        .iter()
        .enumerate()
        .map(|(i, ep)| {
            let rows: Vec<Value> = rows(c, i)
                .into_iter()
                .map(|[figure, format2, health, ratio]| {
                    json!({"figure": figure, "format2": format2, "health": health, "ratio": ratio})
                })
                .collect();
            json!({"id": ep.id, "pattern": pattern(&ep.failure),
                   "normal_per_s": c.health.endpoints[i].normal_per_s, "rows": rows})
        })
        .collect();
    let goals: Vec<Value> =
        goals(c).into_iter().map(|g| json!({"endpoint": g.endpoint, "met": g.met, "text": g.text})).collect();
    json!({
        "scenario": c.scenario.name,
        "seed": c.seed,
        "replicas": c.scenario.replicas,
        "health_source": c.policy_source,
        "endpoints": endpoints,
        "calls": {"format2": calls(&c.format2), "health": calls(&c.health)},
        "goals": goals,
        "text": render(c),
    })
}
