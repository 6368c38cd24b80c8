//! `compareHealth`: `retry-policy simulate --compare-health yes` in
//! JavaScript — one scenario run as format 2 and with the document's
//! `health` sections (a default section in every class when it has none),
//! the CLI's table and goals, and its chart.

use policy_tools::charts::health_svg;
use policy_tools::native::NativeEngine;
use policy_tools::sim::compare::{self, Comparison};
use policy_tools::sim::Scenario;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use crate::errors::Coded;
use crate::limits;
use crate::options::{self, CompareOptions, Format};

/// The comparison as data: per endpoint the table's rows, the goals, the
/// store calls of both runs, and the CLI's text.
fn data(c: &Comparison) -> Value {
    let endpoints: Vec<Value> = c
        .scenario
        .endpoints
        .iter()
        .enumerate()
        .map(|(i, ep)| {
            let rows: Vec<Value> = compare::rows(c, i)
                .into_iter()
                .map(|[figure, format2, health, ratio]| {
                    json!({"figure": figure, "format2": format2, "health": health, "ratio": ratio})
                })
                .collect();
            json!({"id": ep.id, "pattern": compare::pattern(&ep.failure),
                   "normal_per_s": c.health.endpoints[i].normal_per_s, "rows": rows})
        })
        .collect();
    let goals: Vec<Value> =
        compare::goals(c).into_iter().map(|g| json!({"endpoint": g.endpoint, "met": g.met, "text": g.text})).collect();
    let calls = |r: &policy_tools::sim::health::FleetRun| {
        json!({"attempt_calls": r.attempt_calls, "probe_calls": r.probe_calls, "wake_calls": r.wake_calls,
               "unfinished": r.unfinished})
    };
    json!({
        "scenario": c.scenario.name,
        "seed": c.seed,
        "replicas": c.scenario.replicas,
        "health_source": c.policy_source,
        "endpoints": endpoints,
        "calls": {"format2": calls(&c.format2), "health": calls(&c.health)},
        "goals": goals,
        "text": compare::render(c),
    })
}

/// `retry-policy simulate --compare-health yes`: `{scenario, seed, replicas,
/// health_source, endpoints: [{id, pattern, normal_per_s, rows: [{figure,
/// format2, health, ratio}]}], calls, goals: [{endpoint, met, text}], text}`
/// (`text` is the CLI's output without its wall-time and `wrote` lines),
/// plus `charts: {"<scenario>-health.svg": svg}` with `charts: true`; the
/// text alone with `format: "text"`.
#[wasm_bindgen(js_name = compareHealth)]
pub fn compare_health(policy: &str, scenario: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let o: CompareOptions = options::parse(options)?;
    let p = compare::load_text(&mut NativeEngine, o.policy_path.as_deref().unwrap_or("policy.json"), policy)
        .code("invalid_document")?;
    let sc =
        Scenario::parse(o.scenario_path.as_deref().unwrap_or("scenario.json"), scenario).code("invalid_scenario")?;
    limits::check(&sc)?;
    let c = compare::compare(&mut NativeEngine, &p, &sc, o.seed).code("simulation_failed")?;
    if o.format == Format::Text {
        return Ok(JsValue::from_str(&compare::render(&c)));
    }
    let mut v = data(&c);
    if o.charts {
        v["charts"] = json!({ format!("{}-health.svg", sc.name): health_svg(&c).code("chart_failed")? });
    }
    Ok(crate::exports::to_js(&v)?)
}
