//! `--artifact-from-redis` (docs/rollout.md, "What a replica does"): the
//! host library's [`Follower`] ticking through the budget store's own Redis
//! connections ([`RedisPool`]: the same URL, TLS roots, ACL user, Cluster
//! routing and per-command timeout). One tick runs before the first
//! admission; then a thread ticks every `--rollout-poll-ms` and hands a
//! swap to the driver's loop as `--watch-artifact-ms` does (the old engine
//! drains into a new one on the new artifact), so delivery never waits for it.

use std::sync::{Arc, Weak};
use std::time::Duration;

use redis::Value;
use retry_policy_host::rollout::{
    artifact_key, Counts, Follower, Identity, RolloutStore, Tick, TrustedKeys, REPLICAS_KEY, STATE_KEY,
};
use retry_policy_host::{LiveArtifact, Swapped};

use crate::args::Flags;
use crate::clock::now_ms;
use crate::driver::io::log;
use crate::metrics::Metrics;
use crate::redis_pool::RedisPool;
use crate::redis_store::RedisStore;

/// The follower's settings from the replica's flags.
pub struct Options {
    pub trusted: TrustedKeys,
    pub me: Identity,
    pub every: Duration,
}

/// `--artifact-from-redis`, `--trust-key`, `--replica-id`, `--rollout-poll-ms`
/// checked (docs/replica.md; each error is a usage error, exit 2);
/// `None` without `--artifact-from-redis`.
pub fn options(f: &Flags) -> Result<Option<Options>, String> {
    if let Some(id) = f.str("replica-id") {
        if id.is_empty() || id.len() > 200 {
            return Err(format!("--replica-id must be 1 to 200 bytes of UTF-8, not {} bytes", id.len()));
        }
    }
    let every: u64 = f.get("rollout-poll-ms", "a whole number of milliseconds (50 to 60000)")?.unwrap_or(500);
    if !(50..=60_000).contains(&every) {
        return Err(format!("--rollout-poll-ms must be from 50 to 60000, not `{every}`"));
    }
    if !f.has("artifact-from-redis") {
        return match f.str("trust-key") {
            Some(_) => Err("--trust-key is only used with --artifact-from-redis".into()),
            None => Ok(None),
        };
    }
    if f.str("redis").is_none() && f.str("redis-cluster").is_none() {
        return Err("--artifact-from-redis needs --redis URL or --redis-cluster URL".into());
    }
    if f.str("watch-artifact-ms").is_some() {
        return Err("--artifact-from-redis and --watch-artifact-ms exclude each other".into());
    }
    let path = f.str("trust-key").ok_or("--artifact-from-redis needs --trust-key FILE")?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--trust-key {path}: rollout_trust_invalid: cannot read it: {e}"))?;
    let trusted = TrustedKeys::parse(&text).map_err(|e| format!("--trust-key {path}: {e}"))?;
    Ok(Some(Options { trusted, me: Identity::rust(f.str("replica-id")), every: Duration::from_millis(every) }))
}

/// The rollout's commands on the budget store's connections, each within the store timeout.
pub struct PoolStore(pub Arc<RedisStore>);

impl PoolStore {
    fn pool(&self) -> &RedisPool {
        self.0.pool()
    }
}

fn bulk(v: Value) -> Result<Option<Vec<u8>>, String> {
    match v {
        Value::Nil => Ok(None),
        Value::BulkString(b) => Ok(Some(b)),
        Value::SimpleString(s) => Ok(Some(s.into_bytes())),
        other => Err(format!("redis answered {other:?} where a string or nil was expected")),
    }
}

impl RolloutStore for PoolStore {
    fn tick(&self, replica_id: &str, status: &str) -> Result<Option<Vec<u8>>, String> {
        let mut pipe = redis::pipe();
        pipe.cmd("HSET").arg(REPLICAS_KEY).arg(replica_id).arg(status).cmd("GET").arg(STATE_KEY);
        match self.pool().pipeline(&pipe, self.pool().deadline()).map_err(|e| e.to_string())? {
            Value::Array(mut replies) if replies.len() == 2 => bulk(replies.pop().unwrap_or(Value::Nil)),
            other => Err(format!("redis answered {other:?} to HSET + GET")),
        }
    }

    fn artifact_len(&self, sha256: &str) -> Result<u64, String> {
        let mut cmd = redis::cmd("HSTRLEN");
        cmd.arg(artifact_key(sha256)).arg("bytes");
        match self.pool().query(&cmd, self.pool().deadline()).map_err(|e| e.to_string())? {
            Value::Int(n) => u64::try_from(n).map_err(|_| format!("HSTRLEN answered {n}")),
            other => Err(format!("redis answered {other:?} to HSTRLEN")),
        }
    }

    fn artifact(&self, sha256: &str) -> Result<[Option<Vec<u8>>; 3], String> {
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(artifact_key(sha256)).arg("bytes").arg("signature").arg("key_id");
        match self.pool().query(&cmd, self.pool().deadline()).map_err(|e| e.to_string())? {
            Value::Array(items) if items.len() == 3 => {
                let mut it = items.into_iter().map(bulk);
                let mut next = || it.next().unwrap_or(Ok(None));
                Ok([next()?, next()?, next()?])
            }
            other => Err(format!("redis answered {other:?} to HMGET")),
        }
    }
}

/// Events finished and dead-lettered so far, from the engine's counters.
pub fn counts(metrics: &Metrics) -> Counts {
    let dead: u64 = retry_policy_core::StopReason::ALL
        .into_iter()
        .filter(|r| *r != retry_policy_core::StopReason::Delivered)
        .map(|r| metrics.counter("webhook_deadletter_total", Some(("stop_reason", r.as_str()))))
        .sum();
    Counts { events: metrics.counter("webhook_delivered_total", None) + dead, dead_letters: dead }
}

/// A follower with what it ticks against.
pub struct Following {
    pub follower: Follower,
    pub store: PoolStore,
    pub live: Arc<LiveArtifact>,
    pub metrics: Arc<Metrics>,
    pub every: Duration,
}

/// One tick, its log lines written; a swap is returned.
fn tick(
    follower: &mut Follower,
    store: &PoolStore,
    live: &LiveArtifact,
    metrics: &Metrics,
    every: Duration,
) -> Option<Swapped> {
    match follower.tick(store, live, counts(metrics), now_ms()) {
        Tick::Idle | Tick::Settled => None,
        Tick::StoreFailed { message, first } => {
            if first {
                log(&format!(
                    "rollout: the store failed, keeping sha256={} (tried again every {} ms): {message}",
                    live.info().sha256,
                    every.as_millis()
                ));
            }
            None
        }
        Tick::Refused { line, .. } => {
            log(&line);
            None
        }
        Tick::Swapped(sw) => Some(*sw),
    }
}

impl Following {
    /// A follower of `options` on `store`'s connections, for `live`.
    pub fn new(options: Options, store: Arc<RedisStore>, live: Arc<LiveArtifact>, metrics: Arc<Metrics>) -> Following {
        let follower = Follower::new(options.me, options.trusted, now_ms());
        Following { follower, store: PoolStore(store), live, metrics, every: options.every }
    }

    /// The tick before the first admission: a swap is made here (the run
    /// starts on it) and logged.
    pub fn first_tick(&mut self) {
        if let Some(sw) = tick(&mut self.follower, &self.store, &self.live, &self.metrics, self.every) {
            log(&sw.line());
        }
    }

    /// Tick every `every` on a thread; each swap goes to `on_swap`. Stops
    /// when the live artifact is dropped (the run ended).
    pub fn spawn(self, on_swap: Box<dyn Fn(Swapped) + Send>) -> Result<(), String> {
        let Following { mut follower, store, live, metrics, every } = self;
        let live: Weak<LiveArtifact> = Arc::downgrade(&live);
        std::thread::Builder::new()
            .name("rollout-follow".into())
            .spawn(move || loop {
                std::thread::sleep(every);
                let Some(live) = live.upgrade() else { return };
                if let Some(sw) = tick(&mut follower, &store, &live, &metrics, every) {
                    on_swap(sw);
                }
            })
            .map(drop)
            .map_err(|e| format!("--artifact-from-redis: cannot start the follower: {e}"))
    }
}
