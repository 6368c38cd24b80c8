//! `compareHealth`: `retry-policy simulate --compare-health yes` in
//! JavaScript — one scenario run as format 2 and with the document's
//! `health` sections (a default section in every class when it has none),
//! the CLI's table and goals, and its chart.

use policy_tools::charts::health_svg;
use policy_tools::native::NativeEngine;
use policy_tools::sim::Scenario;
use policy_tools::sim::{compare, compare_json};
use serde_json::json;
use wasm_bindgen::prelude::*;

use crate::errors::Coded;
use crate::limits;
use crate::options::{self, CompareOptions, Format};

/// `retry-policy simulate --compare-health --format json`
/// (`policy_tools::sim::compare_json`: `{scenario, seed, replicas,
/// health_source, endpoints: [{id, pattern, normal_per_s, rows: [{figure,
/// format2, health, ratio}]}], calls, goals: [{endpoint, met, text}], text}`;
/// `text` is the text output without its wall-time and `wrote` lines),
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
    let mut v = compare_json::json(&c);
    if o.charts {
        v["charts"] = json!({ format!("{}-health.svg", sc.name): health_svg(&c).code("chart_failed")? });
    }
    Ok(crate::exports::to_js(&v)?)
}
