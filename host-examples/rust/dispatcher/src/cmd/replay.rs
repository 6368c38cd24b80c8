//! `retry-policy-dispatcher replay`: replay dead letters of a journal as new
//! events (docs/health-dispatch.md section 4, docs/engine.md section 9).
//! Opens `--store FILE` as its one writer (the lock), resumes it into an
//! engine on `--policy`'s document, feeds the engine's `replay` input, and
//! appends the lines the engine writes for it (each replay's record first,
//! then the dead letter's with `replayed_as`); the attempts are the next
//! run's (`replica --store FILE`, or `--resume`): the engine runs with
//! `dispatch` off (it resumes, replays and journals, never sends). Prints the
//! `replayed` action as one JSON line: `{"replayed", "already_replayed",
//! "skipped_no_class", "ids"}`. Exit 0; 2 on bad flags, an unreadable
//! policy or a journal error (the command line is judged by policy-core's
//! `replica_args`, [`retry_policy_dispatcher::replica_args`]).

use std::path::Path;

use retry_policy_dispatcher::journal_file::JournalFile;
use retry_policy_dispatcher::replica_args::ReplaySettings;
use retry_policy_dispatcher::Metrics;
use serde_json::{json, Value};

/// The engine's answer as JSON, or its refusal as the error.
fn answer(out: Result<Result<String, String>, retry_policy_host::HostError>) -> Result<Value, String> {
    let text = out.map_err(|e| format!("policy artifact: {e}"))?.map_err(|e| format!("engine: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("engine answered no JSON: {e}"))?;
    if let Some(e) = v["errors"].as_array().and_then(|e| e.first()) {
        return Err(format!("{}: {}", e["error"].as_str().unwrap_or("error"), e["message"].as_str().unwrap_or("")));
    }
    Ok(v)
}

pub fn run(s: &ReplaySettings) -> Result<String, String> {
    let (store_path, policy_path) = (s.store.as_str(), s.policy.as_str());
    let mut filter = json!({"op": "replay"});
    for (field, x) in [("from_ms", s.from_ms), ("to_ms", s.to_ms), ("limit", s.limit)] {
        if let Some(x) = x {
            filter[field] = x.into();
        }
    }
    for (field, x) in [("endpoint_id", &s.endpoint), ("stop_reason", &s.reason)] {
        if let Some(x) = x {
            filter[field] = x.as_str().into();
        }
    }
    let now_ms = s.now_ms.unwrap_or_else(retry_policy_dispatcher::clock::now_ms);
    filter["now_ms"] = now_ms.into();
    let engine = super::replica::load_artifact(s.artifact.as_deref())?;
    let document = std::fs::read_to_string(policy_path).map_err(|e| format!("--policy {policy_path}: {e}"))?;
    super::replica::check_document(&engine, &document, &[], &Metrics::default())
        .map_err(|e| format!("--policy {policy_path}: {e}"))?;
    let (mut journal, bytes) =
        JournalFile::open(Path::new(store_path), now_ms).map_err(|e| format!("--store {store_path}: {e}"))?;
    let mut inst = engine
        .instantiate(retry_policy_core::SystemClock, retry_policy_core::InMemoryStore::new())
        .map_err(|e| format!("policy artifact: {e}"))?;
    let config = json!({"document": document, "memory_store": true, "dispatch": false});
    let handle = inst
        .engine_open(&config.to_string())
        .map_err(|e| format!("policy artifact: {e}"))?
        .map_err(|e| format!("--policy {policy_path}: {e}"))?;
    let journal_error = |e| format!("--store {store_path}: {e}");
    let mut outputs = Vec::new();
    if !bytes.is_empty() {
        let v = answer(inst.engine_resume(handle, now_ms, &bytes)).map_err(|e| format!("--store {store_path}: {e}"))?;
        outputs.extend(v["outputs"].as_array().cloned().unwrap_or_default());
    }
    let v = answer(inst.engine_feed(handle, &Value::Array(vec![filter]).to_string()))?;
    outputs.extend(v["outputs"].as_array().cloned().unwrap_or_default());
    let _ = inst.engine_close(handle);
    let mut replayed = None;
    for o in &outputs {
        journal.apply(o).map_err(journal_error)?;
        if o["action"] == "replayed" {
            replayed = Some(o.clone());
        }
    }
    journal.sync().map_err(journal_error)?;
    let mut r = replayed.ok_or("the engine answered the replay without a `replayed` action")?;
    if let Some(m) = r.as_object_mut() {
        m.remove("action");
    }
    Ok(r.to_string())
}
