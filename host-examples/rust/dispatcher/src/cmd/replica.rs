//! `retry-policy-dispatcher replica`: one dispatcher replica for the fleet tests (the
//! REPLICA contract in the helper brief). Delivers `--events` events to
//! `--target` through the policy (class `storm` of `--policy`) until each
//! stops, then prints exactly one JSON line on stdout. Exit 0 unless the
//! arguments are bad (2).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use retry_policy_dispatcher::args::Flags;
use retry_policy_dispatcher::artifact_reload::with_document_version;
use retry_policy_dispatcher::budget_store::DEFAULT_STORE_TIMEOUT;
use retry_policy_dispatcher::drain::Signals;
use retry_policy_dispatcher::http_client::ClientConfig;
use retry_policy_dispatcher::journal_read::ComponentHasher;
use retry_policy_dispatcher::report::replica_summary;
use retry_policy_dispatcher::signing::{FileSecrets, Signer};
use retry_policy_dispatcher::tls::{TrustConfig, TrustRoots};
use retry_policy_dispatcher::{BudgetStore, Dispatcher, DispatcherConfig, EventStore, Metrics, NewEvent};
use retry_policy_host::{ArtifactRef, PolicyEngine};

/// The artifact of `--artifact` (or its old name `--component`), else
/// `RETRY_POLICY_ARTIFACT`, else the copy built in (logged as loaded once
/// the document is known: [`log_loaded`]).
pub fn load_artifact(f: &Flags) -> Result<PolicyEngine, String> {
    let path = f.str("artifact").or_else(|| f.str("component"));
    PolicyEngine::load(path.map_or(ArtifactRef::Default, |p| ArtifactRef::Path(Path::new(p))), None)
        .map_err(|e| format!("policy artifact: {e}"))
}

/// `policy artifact loaded sha256=... document_version=...` (docs/artifact.md)
/// with the version of the document `d` runs, as `/metrics` shows it.
pub fn log_loaded(d: &Dispatcher) {
    let info = with_document_version(&d.artifact_info(), &d.policy_version());
    eprintln!("dispatcher: {}", info.loaded_line());
}

/// The path `--watch-artifact-ms` polls: `--artifact`, else `RETRY_POLICY_ARTIFACT`.
pub fn artifact_path(f: &Flags) -> Option<std::path::PathBuf> {
    f.str("artifact")
        .or_else(|| f.str("component"))
        .map(Into::into)
        .or_else(|| retry_policy_host::artifact::env_path().map(Into::into)) // empty means unset
}

/// `--watch-artifact-ms N`: the file to poll and how often (`None` without
/// the flag). N is a whole number of milliseconds, at least 1.
pub fn artifact_watch(f: &Flags) -> Result<Option<(std::path::PathBuf, Duration)>, String> {
    let Some(ms) = f.positive_ms("watch-artifact-ms")? else {
        return Ok(None);
    };
    let path = artifact_path(f).ok_or("--watch-artifact-ms needs --artifact PATH or $RETRY_POLICY_ARTIFACT")?;
    Ok(Some((path, Duration::from_millis(ms))))
}

/// The flags every dispatcher command shares: the client, the clock and
/// the budget store.
pub fn common(f: &Flags) -> Result<(DispatcherConfig, BudgetStore), String> {
    let ms = "a whole number of milliseconds";
    let defaults = ClientConfig::default();
    // `--ca-file`: checked before anything is sent; the same roots serve
    // https:// targets and a rediss:// store (`trust.rustls_client_config()`).
    let trust_config = TrustConfig { ca_file: f.str("ca-file").map(Into::into) };
    let trust = TrustRoots::load(&trust_config).map_err(|e| e.to_string())?;
    let client = ClientConfig {
        connect_ms: f.get("connect-timeout-ms", ms)?.unwrap_or(defaults.connect_ms),
        attempt_deadline_ms: f.get("attempt-deadline-ms", ms)?.unwrap_or(defaults.attempt_deadline_ms),
        allow_private_targets: f.has("allow-private-targets"),
        trust,
        ..defaults
    };
    if client.connect_ms == 0 || client.attempt_deadline_ms == 0 {
        return Err("--connect-timeout-ms and --attempt-deadline-ms must be at least 1".into());
    }
    let config = DispatcherConfig {
        concurrency: f.get("concurrency", "a whole number")?.unwrap_or(8),
        deadline_ms: f.get("deadline-ms", ms)?,
        rate_per_s: f.get("rate", "a number of events per second")?,
        clock_offset_ms: f.get("clock-offset-ms", "a whole number of milliseconds (may be negative)")?.unwrap_or(0),
        client,
        signer: f.str("signing-secrets").map(|p| Arc::new(Signer::new(Box::new(FileSecrets(p.into()))))),
        document_from_artifact: false,
        cap_events_in_progress: true,
    };
    let timeout: u64 = f.get("store-timeout-ms", ms)?.unwrap_or(DEFAULT_STORE_TIMEOUT.as_millis() as u64);
    if timeout == 0 {
        return Err("--store-timeout-ms must be at least 1".into());
    }
    let (timeout, skew) = (Duration::from_millis(timeout), !f.has("no-skew-check"));
    let budget = match (f.str("redis"), f.str("redis-cluster")) {
        (Some(_), Some(_)) => return Err("give --redis or --redis-cluster, not both".into()),
        // A rediss:// store trusts what https:// targets do (`--ca-file`).
        (Some(url), None) => {
            BudgetStore::redis_with(url, timeout, skew, &config.client.trust).map_err(|e| format!("--redis: {e}"))?
        }
        (None, Some(url)) => BudgetStore::redis_cluster_with(url, timeout, skew, &config.client.trust)
            .map_err(|e| format!("--redis-cluster: {e}"))?,
        (None, None) => BudgetStore::local(),
    };
    if let Some(w) = budget.eviction_warning() {
        eprintln!("replica: WARNING: {w}");
    }
    Ok((config, budget))
}

pub fn run(f: &Flags) -> Result<String, String> {
    let watch = artifact_watch(f)?;
    let metrics_bind = f.host_port("metrics-addr")?;
    let target = f.required("target")?.to_string();
    let endpoint_id = f.required("endpoint-id")?.to_string();
    if endpoint_id.is_empty() {
        return Err("--endpoint-id must not be empty".into());
    }
    let events: u64 = f.get("events", "a whole number")?.ok_or("--events is required")?;
    let drain_ms: u64 = f.get("drain-ms", "a whole number of milliseconds (0 or more)")?.unwrap_or(5_000);
    // SIGTERM/SIGINT from here on drain the run instead of killing it.
    let signals = Signals::install().map_err(|e| format!("cannot install the SIGTERM/SIGINT handlers: {e}"))?;
    let class = f.str("class").unwrap_or("storm").to_string();
    let engine = load_artifact(f)?;
    let (document, from_artifact) = match f.str("policy") {
        Some(p) => (std::fs::read_to_string(p).map_err(|e| format!("--policy {p}: {e}"))?, false),
        None => match &engine.info().document_json {
            Some(text) => (text.clone(), true),
            None => return Err("--policy is required (the artifact embeds no document)".into()),
        },
    };
    let (mut config, budget) = common(f)?;
    config.document_from_artifact = from_artifact;
    let offset = config.clock_offset_ms;
    // `--store J` locks J, cuts a torn last record and continues J's own
    // pending events (a restart after a crash); `--resume OTHER` also takes
    // another replica's pending events (journal format 1, any language's);
    // each keeps the policy it was admitted under, checked against its hash.
    let mut hasher = ComponentHasher::new(&engine)?;
    let (store, mut resumed) = match f.str("store") {
        Some(p) => EventStore::open_journal(Path::new(p), &mut hasher).map_err(|e| format!("--store {p}: {e}"))?,
        None => (EventStore::in_memory(), Vec::new()),
    };
    if let Some(p) = f.str("resume").filter(|p| Some(*p) != f.str("store")) {
        resumed.extend(EventStore::read_journal(Path::new(p), &mut hasher).map_err(|e| format!("--resume {p}: {e}"))?);
    }
    resumed.retain(|r| r.is_open());
    // The summary counts this run's events: the ones it resumes and the
    // ones it admits, never what else `--store`'s journal holds.
    let resumed_ids: std::collections::HashSet<String> = resumed.iter().map(|r| r.event_id.clone()).collect();

    let prefix = format!("rust-{}-", std::process::id());
    let admitted =
        |id: &str| id.strip_prefix(prefix.as_str()).and_then(|i| i.parse::<u64>().ok()).is_some_and(|i| i < events);
    let this_run = |id: &str| resumed_ids.contains(id) || admitted(id);
    let ids = prefix.clone();
    let source = (0..events).map(move |i| NewEvent {
        event_id: format!("{ids}{i}"),
        endpoint_id: endpoint_id.clone(),
        target: target.clone(),
        class: class.clone(),
        at_ms: None,
    });
    let class_name = f.str("class").unwrap_or("storm");
    let metrics = Arc::new(Metrics::default());
    let _server = match metrics_bind {
        Some(bind) => {
            let server = metrics.serve(&bind).map_err(|e| format!("--metrics-addr {bind}: {e}"))?;
            eprintln!("replica: metrics on {}", server.url("/metrics"));
            Some(server)
        }
        None => None,
    };
    let d =
        Dispatcher::start(engine, &document, &[class_name], budget, store, metrics, config, resumed, Box::new(source))?;
    log_loaded(&d);
    if let (true, Some(p)) = (f.has("watch-policy"), f.str("policy")) {
        d.watch_policy(Path::new(p), Duration::from_millis(200));
    }
    if let Some((path, every)) = watch {
        d.watch_artifact(&path, every).map_err(|e| format!("--watch-artifact-ms: {e}"))?;
    }
    let (d, drained) = d.wait_or_drain(&signals, Duration::from_millis(drain_ms));
    let elapsed_ms = retry_policy_dispatcher::dispatcher::skewed_now(offset).saturating_sub(d.start_ms());
    let records: Vec<_> = d.store().all().into_iter().filter(|r| this_run(&r.event_id)).collect();
    let m = d.metrics();
    // The REPLICA summary's fixed key set (docs/replica.md): store errors
    // are `store_errors`, refused destinations `transport_errors.destination_refused`.
    let line = replica_summary(&records, m, d.budget().round_trips(), elapsed_ms, drained);
    Ok(line.to_string())
}
