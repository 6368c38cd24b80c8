//! `retry-policy-dispatcher replay`: replay dead letters of a journal as new
//! events (docs/health-dispatch.md section 4). Opens `--store FILE` as its
//! one writer (the lock), admits each chosen dead letter under `--policy`'s
//! current document, writes the replays and exits; the next run
//! (`replica --store FILE`, or `--resume`) sends them, paced. Prints one
//! JSON line: `{"replayed", "already_replayed", "skipped_no_class", "ids"}`.
//! Exit 0; 2 on bad flags, an unreadable policy or a journal error.

use std::path::Path;

use retry_policy_core::StopReason;
use retry_policy_dispatcher::args::Flags;
use retry_policy_dispatcher::artifact_reload::with_document_version;
use retry_policy_dispatcher::journal_read::ComponentHasher;
use retry_policy_dispatcher::replay::{replay, ReplayFilter, DEFAULT_LIMIT};
use retry_policy_dispatcher::EventStore;
use retry_policy_host::Policies;

pub fn run(f: &Flags) -> Result<String, String> {
    let store_path = f.required("store")?;
    let policy_path = f.required("policy")?;
    let stop_reason = match f.str("reason") {
        None => None,
        Some(r) => Some(
            StopReason::ALL
                .into_iter()
                .find(|x| x.as_str() == r && *x != StopReason::Delivered)
                .ok_or_else(|| format!("--reason {r}: not a stop reason of a dead letter"))?,
        ),
    };
    let n = "a whole number";
    let filter = ReplayFilter {
        endpoint_id: f.str("endpoint").map(str::to_string),
        stop_reason,
        from_ms: f.get("from-ms", n)?,
        to_ms: f.get("to-ms", n)?,
        limit: f.get("limit", n)?.unwrap_or(DEFAULT_LIMIT),
    };
    let now_ms: u64 = f.get("now-ms", n)?.unwrap_or_else(retry_policy_dispatcher::dispatcher::now_ms);
    let engine = crate::cmd::replica::load_artifact(f)?;
    let text = std::fs::read_to_string(policy_path).map_err(|e| format!("--policy {policy_path}: {e}"))?;
    let mut inst = engine
        .instantiate(retry_policy_core::SystemClock, retry_policy_core::InMemoryStore::new())
        .map_err(|e| format!("policy artifact: {e}"))?;
    let policies = Policies::new(&mut inst, &text).map_err(|e| format!("--policy {policy_path}: {e}"))?;
    let shown = with_document_version(engine.info(), &policies.current().version);
    eprintln!("dispatcher: {}", shown.loaded_line());
    let mut hasher = ComponentHasher::new(&engine).map_err(|e| e.to_string())?;
    let (store, records) = EventStore::open_journal(Path::new(store_path), &mut hasher)
        .map_err(|e| format!("--store {store_path}: {e}"))?;
    let report = replay(&store, &records, &policies, &mut inst, &filter, now_ms)
        .map_err(|e| format!("--store {store_path}: {e}"))?;
    Ok(report.to_json().to_string())
}
