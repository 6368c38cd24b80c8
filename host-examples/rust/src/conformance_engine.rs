//! Engine trace vectors (`engine-*.json`, format `webhook-retry-policy/engine-trace 1`,
//! docs/engine.md section 14) on a host: open an engine on the case's
//! config, feed each step's input alone, and compare the actions, the
//! refused input's code and the timeout with the step's expectations.

use serde_json::Value;

use retry_policy_core::engine::{wire, Config, Engine};
use retry_policy_core::json;

use crate::engine::PolicyInstance;

/// The trace file format.
pub const FORMAT: &str = "webhook-retry-policy/engine-trace 1";

/// What a host needs to run traces: the engine behind the wire.
pub trait EngineHost {
    /// Open an engine on the JSON config; `Err` is the refusal as text.
    fn open(&mut self, config: &str) -> Result<u32, String>;
    /// Feed a JSON batch; the engine's JSON answer.
    fn feed(&mut self, handle: u32, inputs: &str) -> Result<String, String>;
    fn close(&mut self, handle: u32);
}

/// The native engine (policy-core), one at a time.
#[derive(Default)]
pub struct NativeEngines {
    engines: Vec<Option<Engine>>,
}

impl EngineHost for NativeEngines {
    fn open(&mut self, config: &str) -> Result<u32, String> {
        let v = json::parse(config).map_err(|e| e.to_string())?;
        let config: Config = wire::config(&v).map_err(|e| e.to_string())?;
        self.engines.push(Some(Engine::new(config).map_err(|e| e.to_string())?));
        Ok(self.engines.len() as u32 - 1)
    }
    fn feed(&mut self, handle: u32, inputs: &str) -> Result<String, String> {
        let e = self.engines.get_mut(handle as usize).and_then(Option::as_mut).ok_or("no such engine")?;
        wire::feed(e, inputs).map_err(|e| e.to_string())
    }
    fn close(&mut self, handle: u32) {
        if let Some(e) = self.engines.get_mut(handle as usize) {
            *e = None;
        }
    }
}

/// The component's engines, through a loaded instance.
pub struct ComponentEngines<'a>(pub &'a mut PolicyInstance);

impl EngineHost for ComponentEngines<'_> {
    fn open(&mut self, config: &str) -> Result<u32, String> {
        self.0.engine_open(config).map_err(|e| e.to_string())?
    }
    fn feed(&mut self, handle: u32, inputs: &str) -> Result<String, String> {
        self.0.engine_feed(handle, inputs).map_err(|e| e.to_string())?
    }
    fn close(&mut self, handle: u32) {
        let _ = self.0.engine_close(handle);
    }
}

fn only(v: &Value, allowed: &[&str], at: &str) -> Result<(), String> {
    let m = v.as_object().ok_or_else(|| format!("{at}: not an object"))?;
    match m.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!("{at}: unknown field {k:?}")),
        None => Ok(()),
    }
}

/// The file's cases (unknown fields refused).
pub fn file_cases(doc: &Value) -> Result<Vec<Value>, String> {
    only(doc, &["format", "spec", "regenerate", "cases"], "file")?;
    doc["cases"].as_array().cloned().ok_or_else(|| "cases: expected an array".into())
}

/// Run one case; `Err` names the failing step.
pub fn run_case(host: &mut dyn EngineHost, case: &Value) -> Result<(), String> {
    only(case, &["name", "comment", "config", "steps"], "case")?;
    let handle = host.open(&case["config"].to_string()).map_err(|e| format!("config refused: {e}"))?;
    let result = run_steps(host, handle, case);
    host.close(handle);
    result
}

fn run_steps(host: &mut dyn EngineHost, handle: u32, case: &Value) -> Result<(), String> {
    for (i, step) in case["steps"].as_array().ok_or("steps: expected an array")?.iter().enumerate() {
        only(step, &["input", "expect", "error", "timeout_ms"], "step")?;
        let batch = Value::Array(vec![step["input"].clone()]).to_string();
        let got: Value = serde_json::from_str(&host.feed(handle, &batch).map_err(|e| format!("step {i}: {e}"))?)
            .map_err(|e| format!("step {i}: the answer is not JSON: {e}"))?;
        let error = got["errors"].as_array().and_then(|e| e.first()).map(|e| e["error"].clone());
        if error != step.get("error").cloned() {
            return Err(format!("step {i}: error {error:?}, expected {:?}", step.get("error")));
        }
        if let Some(want) = step.get("expect") {
            if got["outputs"] != *want {
                return Err(format!("step {i}: actions {} expected {want}", got["outputs"]));
            }
        }
        if let Some(want) = step.get("timeout_ms") {
            if got["timeout_ms"] != *want {
                return Err(format!("step {i}: timeout_ms {} expected {want}", got["timeout_ms"]));
            }
        }
    }
    Ok(())
}
