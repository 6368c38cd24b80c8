//! `--artifact-from-redis` (docs/rollout.md, "What a replica does"): the
//! host library's [`Follower`] (a driver of the component's follower)
//! ticking through the budget store's own Redis connections ([`RedisPool`]:
//! the same URL, TLS roots, ACL user, Cluster routing and per-command
//! timeout; the artifact's fetch gets at least 5 s). One tick runs before
//! the first admission (its swap is told by the `policy artifact loaded ...
//! source=redis` line alone); then a thread ticks every `--rollout-poll-ms`
//! and hands a swap to the driver's loop as `--watch-artifact-ms` does (the
//! old engine drains into a new one on the new artifact), so delivery never
//! waits for it. Swaps and refusals after the first tick count in
//! `webhook_policy_reloads_total`.

use std::sync::{Arc, Weak};
use std::time::Duration;

use redis::Value;
use retry_policy_host::rollout::{
    read_trust_file, rust_identity, Counts, Follower, Identity, RolloutStore, MAX_RECORD_BYTES, REPLICAS_KEY, STATE_KEY,
};
use retry_policy_host::{LiveArtifact, Swapped};

use crate::clock::now_ms;
use crate::driver::io::log;
use crate::metrics::Metrics;
use crate::redis_store::RedisStore;
use crate::replica_args::ReplicaSettings;

/// The artifact's fetch (up to 4 MiB) may take this long even when the store timeout is shorter.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The follower's settings from the replica's flags.
pub struct Options {
    /// The `--trust-key` file's text (the component reads its keys).
    pub trust_pem: String,
    /// The file's path, for the error that names it.
    pub trust_path: String,
    pub me: Identity,
    pub every: Duration,
}

/// `--artifact-from-redis`'s follower: the `--trust-key` file read (the
/// flags themselves were judged by the core's `replica_args`); `None`
/// without `--artifact-from-redis`.
pub fn options(s: &ReplicaSettings) -> Result<Option<Options>, String> {
    if !s.artifact_from_redis {
        return Ok(None);
    }
    let path = s.trust_key.as_deref().ok_or("--artifact-from-redis needs --trust-key FILE")?;
    let trust_pem = read_trust_file(std::path::Path::new(path)).map_err(|e| format!("--trust-key {path}: {e}"))?;
    let me = rust_identity(Some(&s.replica_id));
    Ok(Some(Options { trust_pem, trust_path: path.into(), me, every: Duration::from_millis(s.rollout_poll_ms) }))
}

fn bulk(v: Value) -> Result<Option<Vec<u8>>, String> {
    match v {
        Value::Nil => Ok(None),
        Value::BulkString(b) => Ok(Some(b)),
        Value::SimpleString(s) => Ok(Some(s.into_bytes())),
        other => Err(format!("redis answered {other:?} where a string or nil was expected")),
    }
}

/// The rollout's commands on the budget store's connections, each within the store timeout.
impl RolloutStore for RedisStore {
    fn tick(&self, replica_id: &str, status: &str) -> Result<Option<Vec<u8>>, String> {
        let mut pipe = redis::pipe();
        pipe.cmd("HSET").arg(REPLICAS_KEY).arg(replica_id).arg(status);
        pipe.cmd("GETRANGE").arg(STATE_KEY).arg(0).arg(MAX_RECORD_BYTES);
        match self.pool().pipeline(&pipe, self.pool().deadline()).map_err(|e| e.to_string())? {
            Value::Array(mut replies) if replies.len() == 2 => bulk(replies.pop().unwrap_or(Value::Nil)),
            other => Err(format!("redis answered {other:?} to HSET + GETRANGE")),
        }
    }

    fn artifact_len(&self, key: &str) -> Result<u64, String> {
        let mut cmd = redis::cmd("HSTRLEN");
        cmd.arg(key).arg("bytes");
        match self.pool().query(&cmd, self.pool().deadline()).map_err(|e| e.to_string())? {
            Value::Int(n) => u64::try_from(n).map_err(|_| format!("HSTRLEN answered {n}")),
            other => Err(format!("redis answered {other:?} to HSTRLEN")),
        }
    }

    fn artifact(&self, key: &str) -> Result<[Option<Vec<u8>>; 3], String> {
        let mut cmd = redis::cmd("HMGET");
        cmd.arg(key).arg("bytes").arg("signature").arg("key_id");
        let deadline = self.pool().deadline_at_least(FETCH_TIMEOUT);
        match self.pool().query(&cmd, deadline).map_err(|e| e.to_string())? {
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
    pub store: Arc<RedisStore>,
    pub live: Arc<LiveArtifact>,
    pub metrics: Arc<Metrics>,
    pub every: Duration,
    /// The replica's document follows the artifact (no `--policy`): the
    /// driver then counts the swap as a document reload itself.
    pub document_from_artifact: bool,
}

impl Following {
    /// A follower of `options` on `store`'s connections, for `live`; a
    /// trust file with no Ed25519 key is refused here (exit 2).
    pub fn new(
        options: Options,
        store: Arc<RedisStore>,
        live: Arc<LiveArtifact>,
        metrics: Arc<Metrics>,
        document_from_artifact: bool,
    ) -> Result<Following, String> {
        let follower = Follower::open(&options.me, &options.trust_pem, now_ms(), &live)
            .map_err(|e| format!("--trust-key {}: {e}", options.trust_path))?;
        Ok(Following { follower, store, live, metrics, every: options.every, document_from_artifact })
    }

    /// One tick, its log lines written (and, after the first tick, its
    /// reload counted); a swap is returned.
    fn tick(&mut self, first: bool) -> Option<Swapped> {
        // The version `webhook_policy_info` shows (None before it is set: the artifact's).
        let version = self.metrics.policy_info().map(|[_, _, v]| v);
        let tick = self.follower.tick(&*self.store, &self.live, counts(&self.metrics), version.as_deref(), now_ms());
        tick.log.iter().for_each(|line| log(line));
        if let Some(e) = &tick.error {
            log(&format!("rollout: {e}"));
        }
        if tick.refused.is_some() && !first {
            self.metrics.policy_reload(false);
        }
        let sw = tick.swapped?;
        // The driver counts a swap whose embedded document it takes; any other here.
        let driver_counts = self.document_from_artifact && sw.new.document_json.is_some();
        if !first && !driver_counts {
            self.metrics.policy_reload(true);
        }
        Some(sw)
    }
    /// The tick before the first admission: a swap is made here (the run
    /// starts on it; the artifact's load line tells it).
    pub fn first_tick(&mut self) {
        let _ = self.tick(true);
    }

    /// Tick every `every` on a thread; each swap goes to `on_swap`. Stops
    /// when the live artifact is dropped (the run ended).
    pub fn spawn(mut self, on_swap: Box<dyn Fn(Swapped) + Send>) -> Result<(), String> {
        let live: Weak<LiveArtifact> = Arc::downgrade(&self.live);
        std::thread::Builder::new()
            .name("rollout-follow".into())
            .spawn(move || loop {
                std::thread::sleep(self.every);
                // The run is over when only this follower holds the artifact.
                if live.strong_count() <= 1 {
                    return;
                }
                if let Some(sw) = self.tick(false) {
                    on_swap(sw);
                }
            })
            .map(drop)
            .map_err(|e| format!("--artifact-from-redis: cannot start the follower: {e}"))
    }
}
