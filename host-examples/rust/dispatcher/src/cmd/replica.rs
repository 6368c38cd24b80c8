//! `retry-policy-dispatcher replica`: the REPLICA program (docs/replica.md),
//! the dispatcher driven from the command line. Delivers `--events` events
//! to `--target` through the delivery engine (class `storm` of `--policy`,
//! or `--class`) until each stops, then prints exactly one JSON line on
//! stdout. Exit 0 unless the arguments or the setup are bad (2).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use retry_policy_dispatcher::artifact_reload::{live, with_document_version};
use retry_policy_dispatcher::drain::Signals;
use retry_policy_dispatcher::driver::{self, DriverConfig, NewEvent, Run};
use retry_policy_dispatcher::http_client::ClientConfig;
use retry_policy_dispatcher::journal_file::{self, JournalFile};
use retry_policy_dispatcher::redis_store::RedisStore;
use retry_policy_dispatcher::replica_args::ReplicaSettings;
use retry_policy_dispatcher::rollout_follow::{self, Following};
use retry_policy_dispatcher::signing::{FileSecrets, Signer};
use retry_policy_dispatcher::Metrics;
use retry_policy_host::tls::{TrustConfig, TrustRoots};
use retry_policy_host::{ArtifactRef, Policies, PolicyEngine};

/// The artifact at `path` (`--artifact`), else `RETRY_POLICY_ARTIFACT`,
/// else the copy built in.
pub fn load_artifact(path: Option<&str>) -> Result<PolicyEngine, String> {
    PolicyEngine::load(path.map_or(ArtifactRef::Default, |p| ArtifactRef::Path(Path::new(p))), None)
        .map_err(|e| format!("policy artifact: {e}"))
}

/// `--watch-artifact-ms N`: the file to poll (`--artifact`, else
/// `RETRY_POLICY_ARTIFACT`: the core checked one is there) and how often.
fn artifact_watch(s: &ReplicaSettings) -> Result<Option<(std::path::PathBuf, Duration)>, String> {
    let Some(ms) = s.watch_artifact_ms else { return Ok(None) };
    let path = s.artifact.as_ref().ok_or("--watch-artifact-ms needs --artifact PATH or $RETRY_POLICY_ARTIFACT")?;
    Ok(Some((path.into(), Duration::from_millis(ms))))
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

/// The replica's driver settings; `--ca-file` is read (checked before
/// anything is sent; the same roots serve https:// targets and a rediss:// store).
fn driver_config(s: &ReplicaSettings) -> Result<DriverConfig, String> {
    let trust =
        TrustRoots::load(&TrustConfig { ca_file: s.ca_file.as_ref().map(Into::into) }).map_err(|e| e.to_string())?;
    let client = ClientConfig {
        connect_ms: s.connect_timeout_ms,
        attempt_deadline_ms: s.attempt_deadline_ms,
        allow_private_targets: s.allow_private_targets,
        trust,
        ..ClientConfig::default()
    };
    Ok(DriverConfig {
        concurrency: s.concurrency,
        deadline_ms: s.deadline_ms,
        rate_per_s: s.rate,
        clock_offset_ms: s.clock_offset_ms,
        skew_check: !s.no_skew_check,
        client,
        signer: s.signing_secrets.as_ref().map(|p| Arc::new(Signer::new(Box::new(FileSecrets(p.into()))))),
        drain: Duration::from_millis(s.drain_ms),
        ..DriverConfig::default()
    })
}

/// The budget store of `--redis URL` or `--redis-cluster URL` (`None`: the
/// engine keeps it in memory), each call bounded by `timeout`; a rediss://
/// store trusts what https:// targets do (`--ca-file`).
pub fn budget_store(
    redis: Option<&str>,
    cluster: Option<&str>,
    timeout: Duration,
    trust: &TrustRoots,
) -> Result<Option<Arc<RedisStore>>, String> {
    let redis = match (redis, cluster) {
        (Some(url), _) => RedisStore::new(url, timeout, trust).map_err(|e| format!("--redis: {e}"))?,
        (None, Some(url)) => RedisStore::cluster(url, timeout, trust).map_err(|e| format!("--redis-cluster: {e}"))?,
        (None, None) => return Ok(None),
    };
    if let Some(w) = redis.eviction_warning() {
        eprintln!("replica: WARNING: {w}");
    }
    Ok(Some(Arc::new(redis)))
}

/// `--store`'s file, its bytes, and `--resume`'s bytes.
pub type Journals = (Option<JournalFile>, Vec<u8>, Option<Vec<u8>>);

/// `--store FILE` (locked, its bytes resumed first) and `--resume OTHER`
/// (read only, resumed next; any language's journal).
pub fn journals(store: Option<&str>, resume: Option<&str>, now_ms: u64) -> Result<Journals, String> {
    let (journal, own) = match store {
        Some(p) => {
            let (j, bytes) = JournalFile::open(Path::new(p), now_ms).map_err(|e| format!("--store {p}: {e}"))?;
            (Some(j), bytes)
        }
        None => (None, Vec::new()),
    };
    let other = match resume.filter(|p| Some(*p) != store) {
        Some(p) => Some(journal_file::read(Path::new(p)).map_err(|e| format!("--resume {p}: {e}"))?),
        None => None,
    };
    Ok((journal, own, other))
}

pub fn run(s: &ReplicaSettings) -> Result<String, String> {
    let rollout = rollout_follow::options(s)?;
    let watch = artifact_watch(s)?;
    // SIGTERM/SIGINT from here on drain the run instead of killing it.
    let signals = Signals::install().map_err(|e| format!("cannot install the SIGTERM/SIGINT handlers: {e}"))?;
    let class = s.class.clone();
    let engine = load_artifact(s.artifact.as_deref())?;
    // Without --policy the document is the artifact's: after the first
    // rollout tick, which may bring one.
    let from_artifact = s.policy.is_none();
    let metrics = Arc::new(Metrics::default());
    let mut config = driver_config(s)?;
    let timeout = Duration::from_millis(s.store_timeout_ms);
    let redis = budget_store(s.redis.as_deref(), s.redis_cluster.as_deref(), timeout, &config.client.trust)?;
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
    let document = match &s.policy {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("--policy {p}: {e}"))?,
        None => engine.info().document_json.clone().ok_or("--policy is required (the artifact embeds no document)")?,
    };
    check_document(&engine, &document, &[class.as_str()], &metrics)?;
    config.document_from_artifact = from_artifact;
    let (journal, store_bytes, resume_bytes) =
        journals(s.store.as_deref(), s.resume.as_deref(), retry_policy_dispatcher::clock::now_ms())?;
    let prefix = format!("rust-{}-", std::process::id());
    let (endpoint_id, target) = (s.endpoint_id.clone(), s.target.clone());
    let source = (0..s.events).map(move |i| NewEvent {
        event_id: format!("{prefix}{i}"),
        endpoint_id: endpoint_id.clone(),
        target: target.clone(),
        class: class.clone(),
        at_ms: None,
    });
    let _server = match &s.metrics_addr {
        Some(addr) => {
            let bind = addr.bind();
            let server = metrics.serve(&bind).map_err(|e| format!("--metrics-addr {bind}: {e}"))?;
            eprintln!("replica: metrics on {}", server.url("/metrics"));
            Some(server)
        }
        None => None,
    };
    // `--watch-policy` (a Rust extra): `--policy` polled every 200 ms.
    let watch_policy = match (s.watch_policy, &s.policy) {
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
