//! The exported functions. Each reads text through `policy-tools` exactly
//! as the CLI reads files, on `policy-core` (`NativeEngine`), and returns
//! what the CLI prints: the same JSON (as plain JS data) or the same text.

use policy_tools::charts::{schedule_svg, share_svg, stops_svg};
use policy_tools::commands::schedule_series;
use policy_tools::native::NativeEngine;
use policy_tools::sim::{self, output, Scenario};
use policy_tools::{diff as diffs, lint as lints, source};
use retry_policy_core::document::PolicyDocument;
use retry_policy_core::health::HealthDocument;
use serde::Serialize;
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;

use crate::errors::{Coded, ToolError};
use crate::limits;
use crate::options::{self, DiffOptions, Format, LintOptions, ScheduleOptions, SimulateOptions};

/// JSON data as plain JS data (objects, arrays, numbers, strings, null).
pub(crate) fn to_js(v: &Value) -> Result<JsValue, ToolError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| ToolError::new("invalid_options", format!("result: {e}")))
}

/// The CLI's JSON text (its renderers' output) as JS data.
fn json_text(text: &str) -> Result<JsValue, ToolError> {
    to_js(&serde_json::from_str(text).code("invalid_options")?)
}

/// A document (format 2 or 3) and its sections, through the engine.
fn load_health(path: &str, text: &str) -> Result<HealthDocument, ToolError> {
    source::load_text(&mut NativeEngine, path, text).code("invalid_document")
}

/// The document's classes (simulate and schedule run format 2).
fn load(path: &str, text: &str) -> Result<PolicyDocument, ToolError> {
    load_health(path, text).map(|d| d.document)
}

/// The budget window in seconds the summaries use (the CLI's rule: the first class's).
fn budget_window_s(doc: &PolicyDocument) -> usize {
    doc.classes.first().map_or(60, |(_, p)| (p.budget.window_ms / 1000).max(1) as usize)
}

/// `retry-policy lint FILE`: `{file, classes, errors, warnings, infos, findings}`,
/// or `{file, unreadable}` when the text cannot be read at all.
#[wasm_bindgen]
pub fn lint(text: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let o: LintOptions = options::parse(options)?;
    let path = o.path.as_deref().unwrap_or("policy.json");
    let rates = o.rates.iter().map(|r| r.to_rate()).collect::<Result<Vec<_>, _>>()?;
    let out = match (lints::lint_text(&mut NativeEngine, path, text, &rates), o.format) {
        (Ok(report), Format::Json) => json_text(&lints::render_json(&report))?,
        (Ok(report), Format::Text) => JsValue::from_str(&lints::render_text(&report)),
        (Err(e), Format::Json) => to_js(&json!({"file": path, "unreadable": e.0}))?,
        (Err(e), Format::Text) => JsValue::from_str(&format!("unreadable: {}\n", e.0)),
    };
    Ok(out)
}

/// `retry-policy simulate --format json` (series included unless `series: false`),
/// plus `charts` (`{"schedule.svg", "share.svg", "stops-<variant>.svg"}`) when asked.
#[wasm_bindgen]
pub fn simulate(policy: &str, scenario: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let o: SimulateOptions = options::parse(options)?;
    let doc = load(o.policy_path.as_deref().unwrap_or("policy.json"), policy)?;
    let sc =
        Scenario::parse(o.scenario_path.as_deref().unwrap_or("scenario.json"), scenario).code("invalid_scenario")?;
    limits::check(&sc)?;
    let simulation = sim::simulate(&mut NativeEngine, &doc, &sc, o.seed).code("simulation_failed")?;
    let bw = budget_window_s(&doc);
    if o.format == Format::Text {
        return Ok(JsValue::from_str(&output::summary(&simulation, bw)));
    }
    let mut v = output::json(&simulation, bw, o.series.unwrap_or(true));
    if o.charts {
        v["charts"] = Value::Object(charts(&doc, &simulation)?);
    }
    Ok(to_js(&v)?)
}

/// The SVGs `simulate --out DIR` writes, by file name, with the CLI's titles.
fn charts(doc: &PolicyDocument, s: &sim::Simulation) -> Result<Map<String, Value>, ToolError> {
    let mut out = Map::new();
    let series = schedule_series(&mut NativeEngine, doc).code("chart_failed")?;
    out.insert("schedule.svg".into(), schedule_svg(&series).code("chart_failed")?.into());
    let title = format!("{}: retry share of failing endpoints per second vs the ratio", s.scenario.name);
    out.insert("share.svg".into(), share_svg(&title, &s.runs).code("chart_failed")?.into());
    for run in &s.runs {
        let title = format!("{} / {}: dead letters per second by stop reason", s.scenario.name, run.variant);
        out.insert(format!("stops-{}.svg", run.variant), stops_svg(&title, run).code("chart_failed")?.into());
    }
    Ok(out)
}

/// `retry-policy diff OLD NEW`: `[{class, status, changes: [{field, old, new, effect?}]}]`
/// (health fields carry `effect`).
#[wasm_bindgen]
pub fn diff(old: &str, new: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let o: DiffOptions = options::parse(options)?;
    let a = load_health(o.old_path.as_deref().unwrap_or("old.json"), old)?;
    let b = load_health(o.new_path.as_deref().unwrap_or("new.json"), new)?;
    let d = diffs::diff(&mut NativeEngine, &a, &b).code("invalid_document")?;
    Ok(match o.format {
        Format::Json => json_text(&diffs::render_json(&d))?,
        Format::Text => JsValue::from_str(&diffs::render_text(&d)),
    })
}

/// Each class's schedule, `{classes: [{class, window_ms, limited_by,
/// expected_ms, worst_ms}], svg}`: the offsets the schedule chart draws, and
/// the chart (`simulate --out`'s `schedule.svg` for the chosen classes).
#[wasm_bindgen]
pub fn schedule(text: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let o: ScheduleOptions = options::parse(options)?;
    let doc = load(o.path.as_deref().unwrap_or("policy.json"), text)?;
    let mut series = schedule_series(&mut NativeEngine, &doc).code("invalid_document")?;
    if let Some(only) = &o.classes {
        if let Some(missing) = only.iter().find(|c| !series.iter().any(|s| &s.class == *c)) {
            return Err(
                ToolError::new("invalid_options", format!("classes: no class `{missing}` in the document")).into()
            );
        }
        series.retain(|s| only.contains(&s.class));
    }
    let classes: Vec<Value> = series
        .iter()
        .map(|s| {
            json!({"class": s.class, "window_ms": s.window_ms, "limited_by": s.limited_by,
                   "expected_ms": s.expected_ms, "worst_ms": s.worst_ms})
        })
        .collect();
    let svg = schedule_svg(&series).code("chart_failed")?;
    Ok(to_js(&json!({"classes": classes, "svg": svg}))?)
}
