//! The fleet-wide retry budget in Redis, exactly as `fleet/README.md`
//! says: keys `rb:{<endpoint_id>}:<window_ms>:<bucket>` (hash `t`, `r`),
//! the one script `fleet/budget.lua` (embedded at build time), `EVALSHA`
//! with an `EVAL` fallback on `NOSCRIPT`, modes `record` / `reserve` /
//! `read`. The script's SHA-1 is computed here, and the process's first
//! call is an `EVAL` (which loads the script as `SCRIPT LOAD` would), so
//! loading costs no extra round trip.
//!
//! Round trips: the first attempt's `record` is sent together with the
//! `reserve` that follows it when that attempt failed (two commands,
//! pipelined in one write), so every attempt costs at most one round trip.
//! A connection error drops the connection; the next call opens a new one,
//! so the counter recovers by itself when Redis comes back.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use retry_policy_core::{BucketCounts, Budget, BudgetCounter, BudgetCounts};

use crate::resp::{Connection, RedisError, RedisUrl, Reply};

/// `fleet/budget.lua`, the script every host loads.
pub const BUDGET_LUA: &str = include_str!("../../../../fleet/budget.lua");

/// `rb:{<endpoint_id>}:<window_ms>:<bucket>`.
pub fn bucket_key(endpoint_id: &str, window_ms: u64, bucket: i128) -> String {
    format!("rb:{{{endpoint_id}}}:{window_ms}:{bucket}")
}

/// One call of the script.
#[derive(Clone, Copy, Debug)]
pub enum ScriptCall<'a> {
    Record { is_retry: bool },
    Reserve(&'a Budget),
    Read,
}

/// What the script returns: the counts before its change, and `reserved`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScriptReply {
    pub counts: BudgetCounts,
    pub reserved: bool,
}

/// The Redis counter. Share it between threads (`&RedisBudget` or `Arc`).
pub struct RedisBudget {
    url: RedisUrl,
    timeout: Duration,
    pool: Mutex<Vec<Connection>>,
    sha: String,
    /// Whether Redis is believed to hold the script (after a first `EVAL`).
    loaded: AtomicBool,
    round_trips: AtomicU64,
    errors: AtomicU64,
}

impl RedisBudget {
    /// Parse the URL (a bad URL is a configuration error). Connections are
    /// opened lazily: an unreachable Redis makes retries `budget_unavailable`,
    /// it does not stop the dispatcher.
    pub fn new(url: &str, timeout: Duration) -> Result<RedisBudget, String> {
        Ok(RedisBudget {
            url: RedisUrl::parse(url)?,
            timeout,
            pool: Mutex::new(Vec::new()),
            sha: crate::sha1::sha1_hex(BUDGET_LUA.as_bytes()),
            loaded: AtomicBool::new(false),
            round_trips: AtomicU64::new(0),
            errors: AtomicU64::new(0),
        })
    }

    /// Round trips made so far (`NOSCRIPT` fallbacks included).
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::Relaxed)
    }

    /// Calls that failed because Redis was unreachable or answered an error.
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }

    /// Run script calls on one endpoint's buckets at `now_ms`, pipelined in
    /// one round trip; one reply per call, in order.
    pub fn run(
        &self,
        endpoint_id: &str,
        window_ms: u64,
        now_ms: u64,
        calls: &[ScriptCall<'_>],
    ) -> Result<Vec<ScriptReply>, RedisError> {
        let r = self.with_connection(|conn| self.run_on(conn, endpoint_id, window_ms, now_ms, calls));
        if r.is_err() {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    fn run_on(
        &self,
        conn: &mut Connection,
        endpoint_id: &str,
        window_ms: u64,
        now_ms: u64,
        calls: &[ScriptCall<'_>],
    ) -> Result<Vec<ScriptReply>, RedisError> {
        let window_ms = window_ms.max(1);
        let bucket = i128::from(now_ms / window_ms);
        let cur = bucket_key(endpoint_id, window_ms, bucket);
        let prev = bucket_key(endpoint_id, window_ms, bucket - 1);
        let argvs: Vec<[String; 7]> = calls.iter().map(|c| argv(c, now_ms, window_ms)).collect();
        let build = |verb: &'static [u8], body: &[u8]| -> Vec<Vec<Vec<u8>>> {
            argvs
                .iter()
                .map(|a| {
                    let mut cmd: Vec<Vec<u8>> = vec![verb.to_vec(), body.to_vec(), b"2".to_vec(), cur.clone().into(), prev.clone().into()];
                    cmd.extend(a.iter().map(|s| s.clone().into_bytes()));
                    cmd
                })
                .collect()
        };
        let mut replies = if self.loaded.load(Ordering::Relaxed) {
            self.send(conn, &build(b"EVALSHA", self.sha.as_bytes()))?
        } else {
            self.send(conn, &build(b"EVAL", BUDGET_LUA.as_bytes()))?
        };
        if replies.iter().any(|r| matches!(r, Err(RedisError::Server(m)) if m.starts_with("NOSCRIPT"))) {
            // Redis restarted or its script cache was flushed: EVAL loads it again.
            // Every call of the batch failed alike (nothing was applied).
            replies = self.send(conn, &build(b"EVAL", BUDGET_LUA.as_bytes()))?;
        }
        if replies.iter().all(Result::is_ok) {
            self.loaded.store(true, Ordering::Relaxed);
        }
        replies.into_iter().map(|r| r.and_then(|reply| parse_reply(&reply))).collect()
    }

    fn send(&self, conn: &mut Connection, cmds: &[Vec<Vec<u8>>]) -> Result<Vec<Result<Reply, RedisError>>, RedisError> {
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        let borrowed: Vec<Vec<&[u8]>> = cmds.iter().map(|c| c.iter().map(Vec::as_slice).collect()).collect();
        conn.pipeline(&borrowed)
    }

    fn with_connection<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T, RedisError>) -> Result<T, RedisError> {
        let pooled = self.pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => Connection::open(&self.url, self.timeout)?,
        };
        let r = f(&mut conn);
        // A broken connection (I/O or garbled reply) is dropped; the next call reconnects.
        if !matches!(r, Err(RedisError::Io(_)) | Err(RedisError::Protocol(_))) {
            self.pool.lock().unwrap_or_else(|p| p.into_inner()).push(conn);
        }
        r
    }
}

fn argv(call: &ScriptCall<'_>, now_ms: u64, window_ms: u64) -> [String; 7] {
    let (now, window) = (now_ms.to_string(), window_ms.to_string());
    match call {
        ScriptCall::Record { is_retry } => {
            ["record".into(), if *is_retry { "1" } else { "0" }.into(), now, window, "0".into(), "0".into(), "0".into()]
        }
        // `{}` of an f64 is the shortest text that parses back to the same
        // double, so the script compares with exactly the policy's ratio.
        ScriptCall::Reserve(b) => [
            "reserve".into(),
            "0".into(),
            now,
            window,
            format!("{}", b.ratio),
            b.min_sample.to_string(),
            if b.sliding { "1" } else { "0" }.into(),
        ],
        ScriptCall::Read => ["read".into(), "0".into(), now, window, "0".into(), "0".into(), "0".into()],
    }
}

fn parse_reply(reply: &Reply) -> Result<ScriptReply, RedisError> {
    let items = match reply {
        Reply::Array(Some(items)) if items.len() == 5 => items,
        other => return Err(RedisError::Protocol(format!("budget.lua answered {other:?}"))),
    };
    let mut n = [0u64; 5];
    for (slot, item) in n.iter_mut().zip(items) {
        *slot = match item {
            Reply::Int(v) if *v >= 0 => *v as u64,
            other => return Err(RedisError::Protocol(format!("budget.lua answered {other:?} in its counts"))),
        };
    }
    Ok(ScriptReply {
        counts: BudgetCounts {
            current: BucketCounts { total: n[0], retries: n[1] },
            previous: BucketCounts { total: n[2], retries: n[3] },
        },
        reserved: n[4] == 1,
    })
}

/// The Redis counter as `policy-core`'s [`BudgetCounter`], to plug into
/// the WIT `decide` (its `read` and `record-attempt` imports) with
/// `PolicyEngine::instantiate`. The dispatcher itself uses the atomic
/// `reserve` flow instead (one round trip, no race between replicas).
#[derive(Clone)]
pub struct RedisCounter(pub std::sync::Arc<RedisBudget>);

impl BudgetCounter for RedisCounter {
    type Error = String;

    fn read(&mut self, endpoint_id: &str, window_ms: u64, bucket: u64) -> Result<BudgetCounts, String> {
        let now_ms = bucket.saturating_mul(window_ms);
        let r = self.0.run(endpoint_id, window_ms, now_ms, &[ScriptCall::Read]).map_err(|e| e.to_string())?;
        Ok(r[0].counts)
    }

    fn record(&mut self, endpoint_id: &str, window_ms: u64, bucket: u64, is_retry: bool) -> Result<(), String> {
        let now_ms = bucket.saturating_mul(window_ms);
        self.0.run(endpoint_id, window_ms, now_ms, &[ScriptCall::Record { is_retry }]).map(|_| ()).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_fleet_schema_with_the_endpoint_as_hash_tag() {
        assert_eq!(bucket_key("ep_42", 60_000, 28_333_333), "rb:{ep_42}:60000:28333333");
    }

    #[test]
    fn reserve_sends_the_ratio_as_its_shortest_exact_text() {
        let b = Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true };
        let a = argv(&ScriptCall::Reserve(&b), 1_700_000_000_123, 60_000);
        assert_eq!(a, ["reserve", "0", "1700000000123", "60000", "0.1", "50", "1"].map(String::from));
        assert_eq!(a[4].parse::<f64>().unwrap(), 0.1);
    }

    #[test]
    fn an_unreachable_redis_is_an_io_error_not_a_panic() {
        let budget = RedisBudget::new("redis://127.0.0.1:1", Duration::from_millis(200)).unwrap();
        let r = budget.run("ep", 1000, 5000, &[ScriptCall::Read]);
        assert!(matches!(r, Err(RedisError::Io(_))), "{r:?}");
        assert_eq!(budget.errors(), 1);
    }
}
