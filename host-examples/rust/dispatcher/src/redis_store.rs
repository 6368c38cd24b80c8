//! The fleet-wide budget store in Redis (`docs/contract.md`, "The store in
//! Redis"), on the `redis` crate ([`crate::redis_pool`]): one hash per
//! endpoint and bucket width under the component's `store-key` (its hash tag
//! is the endpoint's hex id, so a Redis Cluster keeps it on one master), the
//! one script `fleet/budget.lua` (embedded at build time), and exactly ONE
//! script command per store call:
//!
//! * the process's first call is an `EVAL` (it loads the script as
//!   `SCRIPT LOAD` would, so loading costs no extra command); later calls
//!   are `EVALSHA`;
//! * on `NOSCRIPT` (Redis restarted, `SCRIPT FLUSH`, a cluster node that
//!   never saw it) nothing ran, so that one command is sent again as `EVAL`:
//!   nothing can be counted twice. The commands are built here with
//!   `redis::cmd`, not `redis::Script::invoke`: on `NOSCRIPT` that sends
//!   `SCRIPT LOAD` and then `EVALSHA` again, two commands where one `EVAL`
//!   does;
//! * every call has a deadline (`--store-timeout-ms`, default 250 ms) over
//!   connect, TLS, write and read; a timeout, an I/O error, an error reply
//!   (the script's clock-skew check among them) or a reply of the wrong
//!   shape is a failed call ([`RedisError`]), and the policy fails closed.
//!
//! Cluster mode: the crate's cluster client routes the command to the
//! master owning its key's slot and follows `MOVED` and `ASK` itself.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use redis::Value;

use crate::redis_error::RedisError;
use crate::redis_pool::RedisPool;
use retry_policy_host::tls::TrustRoots;

/// `fleet/budget.lua`, the script every host loads.
pub const BUDGET_LUA: &str = include_str!("../../../../fleet/budget.lua");

/// The Redis store. Share it between threads.
pub struct RedisStore {
    pool: RedisPool,
    sha: String,
    /// Whether Redis is believed to hold the script (after a first `EVAL`).
    loaded: AtomicBool,
    commands: AtomicU64,
}

impl RedisStore {
    /// A standalone Redis at `url`. A bad URL is a configuration error whose
    /// message never echoes it (it may hold a password). Connections open
    /// lazily: an unreachable Redis makes retries `budget_unavailable`, it
    /// does not stop the dispatcher.
    pub fn new(url: &str, timeout: Duration, trust: &TrustRoots) -> Result<RedisStore, RedisError> {
        Self::open(url, false, timeout, trust)
    }

    /// A Redis Cluster reached through the seed node `url` (the other
    /// masters are discovered by the crate's cluster client).
    pub fn cluster(url: &str, timeout: Duration, trust: &TrustRoots) -> Result<RedisStore, RedisError> {
        Self::open(url, true, timeout, trust)
    }

    fn open(url: &str, cluster: bool, timeout: Duration, trust: &TrustRoots) -> Result<RedisStore, RedisError> {
        let timeout = timeout.max(Duration::from_millis(1));
        Ok(RedisStore {
            pool: RedisPool::new(url, cluster, timeout, trust)?,
            sha: redis::Script::new(BUDGET_LUA).get_hash().to_string(),
            loaded: AtomicBool::new(false),
            commands: AtomicU64::new(0),
        })
    }

    /// Ask Redis (the URL's node) for its `maxmemory-policy` (once, at
    /// start): why budget keys can be evicted, or `None` for `noeviction` —
    /// and also when Redis refuses `CONFIG` (managed services) or cannot be
    /// reached: then nothing is known and nothing is said.
    pub fn eviction_warning(&self) -> Option<String> {
        let mut cmd = redis::cmd("CONFIG");
        cmd.arg("GET").arg("maxmemory-policy");
        match self.pool.on_seed(&cmd, self.pool.deadline()) {
            Ok(Value::Array(items)) => match items.get(1) {
                Some(Value::BulkString(p)) => eviction_warning(&String::from_utf8_lossy(p)),
                _ => None,
            },
            Ok(Value::Map(pairs)) => match pairs.first() {
                Some((_, Value::BulkString(p))) => eviction_warning(&String::from_utf8_lossy(p)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The store's connections (the fleet rollout's follower sends its
    /// ticks through them: same URL, TLS, user and timeout).
    pub fn pool(&self) -> &RedisPool {
        &self.pool
    }

    /// Script commands sent so far (`NOSCRIPT` fallbacks included).
    pub fn commands(&self) -> u64 {
        self.commands.load(Ordering::Relaxed)
    }

    /// One engine `store_call` (docs/engine.md section 6): the script with
    /// `key` and the engine's `argv` (8 arguments for a format-2 call, 18
    /// with health fields), its reply as integers (any other shape is a
    /// failed call; what they mean is the engine's business). One script
    /// command, within the store timeout.
    pub fn call_ints(&self, key: &str, argv: &[String]) -> Result<Vec<i64>, RedisError> {
        match self.script(key, argv)? {
            Value::Array(items) => items
                .iter()
                .map(|i| match i {
                    Value::Int(x) => Ok(*x),
                    _ => Err(RedisError::Protocol("budget.lua answered a value that is not an integer".into())),
                })
                .collect(),
            _ => Err(RedisError::Protocol("budget.lua answered something other than integers".into())),
        }
    }

    /// One script command (`EVAL` first, then `EVALSHA`; `NOSCRIPT` sends
    /// the same command again as `EVAL`).
    fn script(&self, key: &str, argv: &[String]) -> Result<Value, RedisError> {
        let deadline = self.pool.deadline();
        let script = |verb: &str, body: &str| {
            self.commands.fetch_add(1, Ordering::Relaxed);
            let mut cmd = redis::cmd(verb);
            cmd.arg(body).arg(1).arg(key).arg(argv);
            self.pool.query(&cmd, deadline)
        };
        let first =
            if self.loaded.load(Ordering::Relaxed) { script("EVALSHA", &self.sha) } else { script("EVAL", BUDGET_LUA) };
        let reply = match first {
            // Nothing ran: the same command again, carrying the script.
            Err(e) if e.is_noscript() => script("EVAL", BUDGET_LUA),
            other => other,
        }?;
        self.loaded.store(true, Ordering::Relaxed);
        Ok(reply)
    }
}

/// Why `maxmemory-policy` `policy` endangers the budget, or `None`. Under
/// any policy but `noeviction` Redis may evict budget hashes when memory is
/// full: counts silently reset and retries are silently allowed.
pub fn eviction_warning(policy: &str) -> Option<String> {
    (policy != "noeviction").then(|| {
        format!(
            "Redis maxmemory-policy is '{}': budget keys can be evicted, which silently resets the counts and \
             allows retries; use maxmemory-policy noeviction for the budget database",
            policy.chars().filter(|c| !c.is_control()).take(64).collect::<String>()
        )
    })
}

#[cfg(test)]
#[path = "tests_redis_store.rs"]
mod tests;
