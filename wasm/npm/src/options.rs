//! The options objects, read with serde-wasm-bindgen: camelCase keys, every
//! key optional, unknown keys refused (`invalid_options`), so a misspelt
//! option is an error rather than a silent default.

use js_sys::{Array, Object};
use policy_tools::lint::Rate;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use wasm_bindgen::{JsCast, JsValue};

use crate::errors::ToolError;

/// `format`: the CLI's `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Plain data, shaped like the CLI's `--format json`.
    #[default]
    Json,
    /// The CLI's text.
    Text,
}

/// An expected rate: `"KEY=N/s"` as the CLI's `--rate`, or `{key, per_s}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum RateOption {
    Text(String),
    Pair { key: String, per_s: f64 },
}

impl RateOption {
    pub fn to_rate(&self) -> Result<Rate, ToolError> {
        let text = match self {
            RateOption::Text(t) => t.clone(),
            RateOption::Pair { key, per_s } => format!("{key}={per_s}/s"),
        };
        Rate::parse(&text).map_err(|e| ToolError::new("invalid_options", e))
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct LintOptions {
    /// The document's name: `.toml` reads TOML, anything else JSON (default `policy.json`).
    pub path: Option<String>,
    pub rates: Vec<RateOption>,
    pub format: Format,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct SimulateOptions {
    /// The policy document's name (default `policy.json`).
    pub policy_path: Option<String>,
    /// The scenario's name (default `scenario.json`).
    pub scenario_path: Option<String>,
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Per-second series in the result (default true, as the CLI's JSON).
    pub series: Option<bool>,
    /// Also draw the CLI's SVG charts, keyed by the file names `--out` writes.
    pub charts: bool,
    pub format: Format,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct CompareOptions {
    /// The policy document's name (default `policy.json`).
    pub policy_path: Option<String>,
    /// The scenario's name (default `scenario.json`).
    pub scenario_path: Option<String>,
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Also draw the CLI's chart, keyed by the file name `--out` writes.
    pub charts: bool,
    pub format: Format,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct DiffOptions {
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub format: Format,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct ScheduleOptions {
    pub path: Option<String>,
    /// Only these classes (default: every class, in the document's order).
    pub classes: Option<Vec<String>>,
}

/// The keys an options object may have (serde-wasm-bindgen reads a struct's
/// fields by name and never sees other keys, so they are checked here).
pub trait Keys {
    const KEYS: &'static [&'static str];
}

impl Keys for LintOptions {
    const KEYS: &'static [&'static str] = &["path", "rates", "format"];
}
impl Keys for SimulateOptions {
    const KEYS: &'static [&'static str] = &["policyPath", "scenarioPath", "seed", "series", "charts", "format"];
}
impl Keys for CompareOptions {
    const KEYS: &'static [&'static str] = &["policyPath", "scenarioPath", "seed", "charts", "format"];
}
impl Keys for DiffOptions {
    const KEYS: &'static [&'static str] = &["oldPath", "newPath", "format"];
}
impl Keys for ScheduleOptions {
    const KEYS: &'static [&'static str] = &["path", "classes"];
}

/// Read an options object; `undefined` and `null` are all defaults.
pub fn parse<T: DeserializeOwned + Default + Keys>(value: JsValue) -> Result<T, ToolError> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    let refuse = |m: String| ToolError::new("invalid_options", format!("options: {m}"));
    let Some(object) = value.dyn_ref::<Object>().filter(|_| !value.is_function() && !Array::is_array(&value)) else {
        return Err(refuse("expected an object".into()));
    };
    for key in Object::keys(object).iter() {
        let key = key.as_string().unwrap_or_default();
        if !T::KEYS.contains(&key.as_str()) {
            return Err(refuse(format!("unknown field `{key}`, expected one of `{}`", T::KEYS.join("`, `"))));
        }
    }
    serde_wasm_bindgen::from_value(value).map_err(|e| {
        let m = e.to_string();
        refuse(m.strip_prefix("Error: ").unwrap_or(&m).to_string())
    })
}
