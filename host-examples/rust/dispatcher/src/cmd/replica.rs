//! `retry-policy-dispatcher replica`: the REPLICA program (docs/replica.md),
//! the dispatcher driven from the command line. Delivers `--events` events
//! to `--target` through the delivery engine (class `storm` of `--policy`,
//! or `--class`) until each stops, then prints exactly one JSON line on
//! stdout. Exit 0 unless the arguments or the setup are bad (2).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use retry_policy_dispatcher::args::Flags;
use retry_policy_dispatcher::artifact_reload::{live, with_document_version};
use retry_policy_dispatcher::drain::Signals;
use retry_policy_dispatcher::driver::{self, DriverConfig, NewEvent, Run};
use retry_policy_dispatcher::http_client::ClientConfig;
use retry_policy_dispatcher::journal_file::{self, JournalFile};
use retry_policy_dispatcher::redis_store::RedisStore;
use retry_policy_dispatcher::rollout_follow::{self, Following};
use retry_policy_dispatcher::signing::{FileSecrets, Signer};
use retry_policy_dispatcher::Metrics;
use retry_policy_host::tls::{TrustConfig, TrustRoots};
use retry_policy_host::{ArtifactRef, Policies, PolicyEngine};

/// Default deadline of one store call.
const DEFAULT_STORE_TIMEOUT_MS: u64 = 250;

/// The artifact of `--artifact` (or its old name `--component`), else
/// `RETRY_POLICY_ARTIFACT`, else the copy built in.
pub fn load_artifact(f: &Flags) -> Result<PolicyEngine, String> {
    let path = f.str("artifact").or_else(|| f.str("component"));
    PolicyEngine::load(path.map_or(ArtifactRef::Default, |p| ArtifactRef::Path(Path::new(p))), None)
        .map_err(|e| format!("policy artifact: {e}"))
}

/// `--watch-artifact-ms N`: the file to poll (`--artifact`, else
/// `RETRY_POLICY_ARTIFACT`) and how often (`None` without the flag). N is a
/// whole number of milliseconds, at least 1.
pub fn artifact_watch(f: &Flags) -> Result<Option<(std::path::PathBuf, Duration)>, String> {
    let Some(ms) = f.positive_ms("watch-artifact-ms")? else {
        return Ok(None);
    };
    let path = f
        .str("artifact")
        .or_else(|| f.str("component"))
        .map(Into::into)
        .or_else(|| retry_policy_host::artifact::env_path().map(Into::into)) // empty means unset
        .ok_or("--watch-artifact-ms needs --artifact PATH or $RETRY_POLICY_ARTIFACT")?;
    Ok(Some((path, Duration::from_millis(ms))))
}

/// Load and check the document (the component validates it; every class in
/// `needed` must be there); logs the artifact's load line with its version
/// (docs/artifact.md) and sets `webhook_policy_info`.
pub fn check_document(
    engine: &PolicyEngine,
    document: &str,
    needed: &[&str],
    metrics: &Metrics,
) -> Result<String, String> {
    let mut inst = engine
        .instantiate(retry_policy_core::SystemClock, retry_policy_core::InMemoryStore::new())
        .map_err(|e| format!("policy artifact: {e}"))?;
    let check = |doc: &_| retry_policy_dispatcher::artifact_reload::has_classes(doc, needed.iter().copied());
    let policies = Policies::new_checked(&mut inst, document, check).map_err(|e| format!("policy document: {e}"))?;
    let version = policies.current().version.clone();
    eprintln!("dispatcher: {}", with_document_version(engine.info(), &version).loaded_line());
    metrics.set_policy_info(engine.info(), &version);
    Ok(version)
}

/// The flags every dispatcher command shares: the client, the clock and
/// the budget store (`None`: the engine keeps it in memory).
pub fn common(f: &Flags) -> Result<(DriverConfig, Option<Arc<RedisStore>>), String> {
    let ms = "a whole number of milliseconds";
    let defaults = ClientConfig::default();
    // `--ca-file`: checked before anything is sent; the same roots serve
    // https:// targets and a rediss:// store.
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
    let drain_ms: u64 = f.get("drain-ms", "a whole number of milliseconds (0 or more)")?.unwrap_or(5_000);
    let config = DriverConfig {
        concurrency: f.get("concurrency", "a whole number")?.unwrap_or(8),
        deadline_ms: f.get("deadline-ms", ms)?,
        rate_per_s: f.get("rate", "a number of events per second")?,
        clock_offset_ms: f.get("clock-offset-ms", "a whole number of milliseconds (may be negative)")?.unwrap_or(0),
        skew_check: !f.has("no-skew-check"),
        client,
        signer: f.str("signing-secrets").map(|p| Arc::new(Signer::new(Box::new(FileSecrets(p.into()))))),
        drain: Duration::from_millis(drain_ms),
        ..DriverConfig::default()
    };
    let timeout: u64 = f.get("store-timeout-ms", ms)?.unwrap_or(DEFAULT_STORE_TIMEOUT_MS);
    if timeout == 0 {
        return Err("--store-timeout-ms must be at least 1".into());
    }
    let timeout = Duration::from_millis(timeout);
    let trust = &config.client.trust;
    let redis = match (f.str("redis"), f.str("redis-cluster")) {
        (Some(_), Some(_)) => return Err("give --redis or --redis-cluster, not both".into()),
        // A rediss:// store trusts what https:// targets do (`--ca-file`).
        (Some(url), None) => RedisStore::new(url, timeout, trust).map_err(|e| format!("--redis: {e}"))?,
        (None, Some(url)) => RedisStore::cluster(url, timeout, trust).map_err(|e| format!("--redis-cluster: {e}"))?,
        (None, None) => return Ok((config, None)),
    };
    if let Some(w) = redis.eviction_warning() {
        eprintln!("replica: WARNING: {w}");
    }
    Ok((config, Some(Arc::new(redis))))
}

/// `--store`'s file, its bytes, and `--resume`'s bytes.
pub type Journals = (Option<JournalFile>, Vec<u8>, Option<Vec<u8>>);

/// `--store FILE` (locked, its bytes resumed first) and `--resume OTHER`
/// (read only, resumed next; any language's journal).
pub fn journals(f: &Flags, now_ms: u64) -> Result<Journals, String> {
    let (journal, own) = match f.str("store") {
        Some(p) => {
            let (j, bytes) = JournalFile::open(Path::new(p), now_ms).map_err(|e| format!("--store {p}: {e}"))?;
            (Some(j), bytes)
        }
        None => (None, Vec::new()),
    };
    let other = match f.str("resume").filter(|p| Some(*p) != f.str("store")) {
        Some(p) => Some(journal_file::read(Path::new(p)).map_err(|e| format!("--resume {p}: {e}"))?),
        None => None,
    };
    Ok((journal, own, other))
}

pub fn run(f: &Flags) -> Result<String, String> {
    let rollout = rollout_follow::options(f)?;
    let watch = artifact_watch(f)?;
    let metrics_bind = f.host_port("metrics-addr")?;
    let target = f.required("target")?.to_string();
    let endpoint_id = f.required("endpoint-id")?.to_string();
    if endpoint_id.is_empty() {
        return Err("--endpoint-id must not be empty".into());
    }
    let events: u64 = f.get("events", "a whole number")?.ok_or("--events is required")?;
    // SIGTERM/SIGINT from here on drain the run instead of killing it.
    let signals = Signals::install().map_err(|e| format!("cannot install the SIGTERM/SIGINT handlers: {e}"))?;
    let class = f.str("class").unwrap_or("storm").to_string();
    let engine = load_artifact(f)?;
    // Without --policy the document is the artifact's: after the first
    // rollout tick, which may bring one.
    let from_artifact = f.str("policy").is_none();
    let metrics = Arc::new(Metrics::default());
    let (mut config, redis) = common(f)?;
    let needed = vec![class.clone()];
    let artifact = Arc::new(live(engine, from_artifact, needed.clone()));
    // `--artifact-from-redis`: one tick before the first admission (a swap
    // there is what the run starts on), the others on the follower's thread.
    let follow: Option<driver::Follow> = match (rollout, &redis) {
        (Some(options), Some(store)) => {
            let mut following =
                Following::new(options, store.clone(), artifact.clone(), metrics.clone(), from_artifact)?;
            following.first_tick();
            Some(Box::new(move |on_swap| following.spawn(on_swap)))
        }
        (Some(_), None) => return Err("--artifact-from-redis needs --redis URL or --redis-cluster URL".into()),
        (None, _) => None,
    };
    let engine = artifact.current();
    let document = match f.str("policy") {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("--policy {p}: {e}"))?,
        None => engine.info().document_json.clone().ok_or("--policy is required (the artifact embeds no document)")?,
    };
    check_document(&engine, &document, &[class.as_str()], &metrics)?;
    config.document_from_artifact = from_artifact;
    let (journal, store_bytes, resume_bytes) = journals(f, retry_policy_dispatcher::clock::now_ms())?;
    let prefix = format!("rust-{}-", std::process::id());
    let source = (0..events).map(move |i| NewEvent {
        event_id: format!("{prefix}{i}"),
        endpoint_id: endpoint_id.clone(),
        target: target.clone(),
        class: class.clone(),
        at_ms: None,
    });
    let _server = match metrics_bind {
        Some(bind) => {
            let server = metrics.serve(&bind).map_err(|e| format!("--metrics-addr {bind}: {e}"))?;
            eprintln!("replica: metrics on {}", server.url("/metrics"));
            Some(server)
        }
        None => None,
    };
    // `--watch-policy` (a Rust extra): `--policy` polled every 200 ms.
    let watch_policy = match (f.has("watch-policy"), f.str("policy")) {
        (true, Some(p)) => Some((p.into(), Duration::from_millis(200))),
        (true, None) => return Err("--watch-policy needs --policy FILE".into()),
        _ => None,
    };
    let tally = driver::run(Run {
        artifact,
        document,
        redis,
        journal,
        store_bytes,
        resume_bytes,
        metrics: metrics.clone(),
        config,
        source: Box::new(source),
        signals,
        watch,
        watch_policy,
        needed,
        follow,
        progress: None,
    })?;
    Ok(tally.summary(&metrics).to_string())
}
