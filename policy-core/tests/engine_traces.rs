//! Every trace vector (`tests/vectors/engine-*.json`, docs/engine.md
//! section 14) through the engine's wire: after each step's input the
//! actions, the refused input's code and the timeout must be exactly the
//! expected ones. Unknown fields in a vector file are an error; a failure
//! names the case and the step.

use std::fs;
use std::path::PathBuf;

use retry_policy_core::engine::{wire, Engine};
use retry_policy_core::json;
use serde_json::Value;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn keys_within(v: &Value, allowed: &[&str], at: &str) {
    let Some(m) = v.as_object() else { panic!("{at}: not an object") };
    for k in m.keys() {
        assert!(allowed.contains(&k.as_str()), "{at}: unknown field {k:?}");
    }
}

fn run_case(case: &Value) -> Result<(), String> {
    keys_within(case, &["name", "comment", "config", "steps"], "case");
    let config = json::parse(&case["config"].to_string()).map_err(|e| format!("config: {e}"))?;
    let config = wire::config(&config).map_err(|e| format!("config: {e}"))?;
    let mut engine = Engine::new(config).map_err(|e| format!("config: {e}"))?;
    for (i, step) in case["steps"].as_array().ok_or("steps is not an array")?.iter().enumerate() {
        keys_within(step, &["input", "expect", "error", "timeout_ms"], "step");
        let batch = Value::Array(vec![step["input"].clone()]).to_string();
        let got = wire::feed(&mut engine, &batch).map_err(|e| format!("step {i}: {e}"))?;
        let got: Value = serde_json::from_str(&got).map_err(|e| format!("step {i}: {e}"))?;
        let error = got["errors"].as_array().and_then(|e| e.first()).map(|e| e["error"].clone());
        let want_error = step.get("error").cloned();
        if error != want_error {
            return Err(format!("step {i}: error {error:?}, expected {want_error:?}"));
        }
        if let Some(want) = step.get("expect") {
            if got["outputs"] != *want {
                return Err(format!("step {i}: actions\n  got      {}\n  expected {}", got["outputs"], want));
            }
        }
        if let Some(want) = step.get("timeout_ms") {
            if got["timeout_ms"] != *want {
                return Err(format!("step {i}: timeout_ms {}, expected {want}", got["timeout_ms"]));
            }
        }
    }
    Ok(())
}

#[test]
fn every_engine_trace_gives_exactly_its_expected_actions() {
    let mut files: Vec<PathBuf> = fs::read_dir(dir())
        .expect("tests/vectors")
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("engine-"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no engine-*.json trace files");
    let (mut passed, mut failed) = (0, Vec::new());
    for f in &files {
        let v: Value = serde_json::from_str(&fs::read_to_string(f).unwrap()).unwrap();
        keys_within(&v, &["format", "spec", "regenerate", "cases"], "file");
        assert_eq!(v["format"], "webhook-retry-policy/engine-trace 1", "{}", f.display());
        for case in v["cases"].as_array().unwrap() {
            match run_case(case) {
                Ok(()) => passed += 1,
                Err(e) => failed.push(format!("{} / {}: {e}", f.file_name().unwrap().to_string_lossy(), case["name"])),
            }
        }
    }
    assert!(failed.is_empty(), "{passed} passed, {} failed:\n{}", failed.len(), failed.join("\n"));
    assert!(passed > 0);
}
