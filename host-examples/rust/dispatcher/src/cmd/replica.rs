//! `retry-policy-dispatcher replica`: one dispatcher replica for the fleet tests (the
//! REPLICA contract in the helper brief). Delivers `--events` events to
//! `--target` through the policy (class `storm` of `--policy`) until each
//! stops, then prints exactly one JSON line on stdout. Exit 0 unless the
//! arguments are bad (2).

use std::path::Path;
use std::sync::Arc;

use retry_policy_dispatcher::args::Flags;
use retry_policy_dispatcher::report::replica_json;
use retry_policy_dispatcher::{BudgetStore, Dispatcher, DispatcherConfig, EventStore, Metrics, NewEvent, Status};
use retry_policy_host::{default_component_path, PolicyEngine};

pub const USAGE: &str = "usage: retry-policy-dispatcher replica --target URL --endpoint-id ID --events N --policy FILE
                                       [--concurrency C (8)] [--redis redis://host:port/db] [--deadline-ms N]
                                       [--class NAME (storm)] [--rate EVENTS_PER_S] [--store FILE.jsonl]
                                       [--resume FILE.jsonl] [--component PATH]
  --store   also journal every event (JSON lines) to FILE
  --resume  first continue the pending events of another replica's journal
            (they keep their first-attempt instant and schedule)";

const VALUES: &[&str] = &[
    "target", "endpoint-id", "events", "concurrency", "policy", "redis", "deadline-ms", "class", "rate", "store", "resume",
    "component",
];

pub fn run(args: &[String]) -> Result<String, String> {
    let f = Flags::parse(args, VALUES, &[])?;
    let target = f.required("target")?.to_string();
    let endpoint_id = f.required("endpoint-id")?.to_string();
    if endpoint_id.is_empty() {
        return Err("--endpoint-id must not be empty".into());
    }
    let events: u64 = f.get("events", "a whole number")?.ok_or("--events is required")?;
    let class = f.str("class").unwrap_or("storm").to_string();
    let policy_path = f.required("policy")?;
    let document = std::fs::read_to_string(policy_path).map_err(|e| format!("--policy {policy_path}: {e}"))?;
    let config = DispatcherConfig {
        concurrency: f.get("concurrency", "a whole number")?.unwrap_or(8),
        deadline_ms: f.get("deadline-ms", "a whole number of milliseconds")?,
        rate_per_s: f.get("rate", "a number of events per second")?,
        ..DispatcherConfig::default()
    };
    let budget = match f.str("redis") {
        Some(url) => BudgetStore::redis(url).map_err(|e| format!("--redis: {e}"))?,
        None => BudgetStore::local(),
    };
    let resumed = match f.str("resume") {
        Some(p) => EventStore::read_journal(Path::new(p))?.into_iter().filter(|r| r.status == Status::Pending).collect(),
        None => Vec::new(),
    };
    let store = match f.str("store") {
        Some(p) => EventStore::with_journal(Path::new(p))?,
        None => EventStore::in_memory(),
    };
    let component = f.str("component").map(Into::into).unwrap_or_else(default_component_path);
    let engine = PolicyEngine::from_file(&component).map_err(|e| e.to_string())?;

    let prefix = format!("rust-{}", std::process::id());
    let source = (0..events).map(move |i| NewEvent {
        event_id: format!("{prefix}-{i}"),
        endpoint_id: endpoint_id.clone(),
        target: target.clone(),
        class: class.clone(),
        at_ms: None,
    });
    let class_name = f.str("class").unwrap_or("storm");
    let metrics = Arc::new(Metrics::default());
    let d = Dispatcher::start(engine, &document, &[class_name], budget, store, metrics, config, resumed, Box::new(source))?;
    let d = d.wait();
    let elapsed_ms = retry_policy_dispatcher::dispatcher::now_ms().saturating_sub(d.start_ms());
    let records = d.store().all();
    let m = d.metrics();
    let line = replica_json(&records, m.first_attempts(), m.retries(), d.budget().round_trips(), elapsed_ms);
    Ok(line.to_string())
}
