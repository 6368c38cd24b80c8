//! The fleet-wide budget store in Redis (`docs/contract.md`, "The store in
//! Redis"), on [`crate::resp`]: one hash per endpoint and bucket width
//! under the component's `store-key`, the one script `fleet/budget.lua`
//! (embedded at build time), and exactly ONE script command per store call:
//!
//! * the process's first call is an `EVAL` (it loads the script as
//!   `SCRIPT LOAD` would, so loading costs no extra command); later calls
//!   are `EVALSHA` with the SHA-1 computed here (`sha1_smol`);
//! * on `NOSCRIPT` (Redis restarted, `SCRIPT FLUSH`) nothing ran, so that one
//!   command is sent again as `EVAL`: nothing can be counted twice;
//! * every call has a deadline (`--store-timeout-ms`, default 250 ms) over
//!   connect, write and read; a timeout, an I/O error, an error reply (the
//!   script's clock-skew check among them) or a reply of the wrong shape is
//!   a failed call, and the policy fails closed.
//!
//! A connection that saw an I/O error or a timeout is dropped (a late reply
//! must never be read as the answer to the next command); the next call
//! opens a new one, so the store recovers by itself when Redis comes back.
//!
//! In cluster mode ([`RedisStore::cluster`]) each call goes to the master
//! owning its key's slot ([`crate::redis_cluster`]); a `MOVED` reply (nothing
//! ran) sends the same command once more to the node it names.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use retry_policy_core::{BucketCounts, Budget, BudgetCounts, Reservation, StoreRequest};

use crate::redis_cluster::{moved_to, slot, SlotMap};
use crate::resp::{Connection, RedisError, RedisUrl, Reply};

/// `fleet/budget.lua`, the script every host loads.
pub const BUDGET_LUA: &str = include_str!("../../../../fleet/budget.lua");

/// How often an empty slot map is asked for again (cluster mode).
const SLOTS_RETRY: Duration = Duration::from_secs(1);

/// The Redis store. Share it between threads.
pub struct RedisStore {
    url: RedisUrl,
    timeout: Duration,
    skew_check: bool,
    /// Idle connections per node (`host:port`).
    pools: Mutex<HashMap<String, Vec<Connection>>>,
    /// Cluster mode: the slot map (`None`: one standalone Redis).
    cluster: Option<SlotMap>,
    /// When `CLUSTER SLOTS` was last asked while the map was empty: asked at
    /// most once per [`SLOTS_RETRY`], so a seed that cannot answer costs
    /// one extra command a second, not one per store call.
    slots_asked_at: Mutex<Option<Instant>>,
    sha: String,
    /// Whether Redis is believed to hold the script (after a first `EVAL`).
    loaded: AtomicBool,
    commands: AtomicU64,
}

impl RedisStore {
    /// Check the URL (a bad one is a configuration error; the message never
    /// echoes it, it may hold a password). Connections open lazily: an
    /// unreachable Redis makes retries `budget_unavailable`, it does not
    /// stop the dispatcher.
    pub fn new(url: &str, timeout: Duration, skew_check: bool) -> Result<RedisStore, String> {
        Ok(RedisStore {
            url: RedisUrl::parse(url)?,
            timeout: timeout.max(Duration::from_millis(1)),
            skew_check,
            pools: Mutex::new(HashMap::new()),
            cluster: None,
            slots_asked_at: Mutex::new(None),
            sha: sha1_smol::Sha1::from(BUDGET_LUA).digest().to_string(),
            loaded: AtomicBool::new(false),
            commands: AtomicU64::new(0),
        })
    }

    /// A Redis Cluster reached through the seed node `url` (the other
    /// masters are discovered with `CLUSTER SLOTS`).
    pub fn cluster(url: &str, timeout: Duration, skew_check: bool) -> Result<RedisStore, String> {
        Ok(RedisStore { cluster: Some(SlotMap::default()), ..RedisStore::new(url, timeout, skew_check)? })
    }

    /// Ask Redis for its `maxmemory-policy` (once, at start): why budget
    /// keys can be evicted, or `None` for `noeviction` — and also when Redis
    /// refuses `CONFIG` (managed services) or cannot be reached: then
    /// nothing is known and nothing is said.
    pub fn eviction_warning(&self) -> Option<String> {
        let deadline = Instant::now() + self.timeout;
        match self.command(&self.url.authority, &[b"CONFIG", b"GET", b"maxmemory-policy"], deadline) {
            Ok(Reply::Array(Some(items))) => match items.get(1) {
                Some(Reply::Bulk(Some(p))) => eviction_warning(&String::from_utf8_lossy(p)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Script commands sent so far (`NOSCRIPT` fallbacks included).
    pub fn commands(&self) -> u64 {
        self.commands.load(Ordering::Relaxed)
    }

    /// Answer `request` (filed under `key`, from the component's
    /// `store-key`) with one script command, within the store timeout.
    pub fn call(&self, key: &str, request: &StoreRequest, budget: &Budget, now_ms: u64) -> Result<Reservation, String> {
        let deadline = Instant::now() + self.timeout;
        let argv = argv(request, budget, now_ms, self.skew_check);
        let mut node = self.node_for(key, deadline);
        let mut result = self.script(&node, key, &argv, deadline);
        if let (Some(map), Err(RedisError::Server(e))) = (&self.cluster, &result) {
            if let Some(to) = moved_to(e).map(str::to_string) {
                // Nothing ran on the node that moved the slot: the same
                // command to the node that owns it now.
                map.learn(slot(key.as_bytes()), &to);
                node = to;
                result = self.script(&node, key, &argv, deadline);
            }
        }
        let reply = result.map_err(|e| e.to_string())?;
        self.loaded.store(true, Ordering::Relaxed);
        parse_reply(&reply)
    }

    /// The node to send `key`'s command to: the seed when standalone (or
    /// when the slot map cannot be loaded yet), else the slot's master.
    fn node_for(&self, key: &str, deadline: Instant) -> String {
        let Some(map) = &self.cluster else { return self.url.authority.clone() };
        if map.is_empty() && self.may_ask_slots() {
            if let Ok(reply) = self.command(&self.url.authority, &[b"CLUSTER", b"SLOTS"], deadline) {
                map.load(&reply);
            }
        }
        map.node_for(slot(key.as_bytes())).unwrap_or_else(|| self.url.authority.clone())
    }

    /// Whether to ask `CLUSTER SLOTS` now (the map is empty): the first time,
    /// then once per [`SLOTS_RETRY`]; records the asking.
    fn may_ask_slots(&self) -> bool {
        let mut at = self.slots_asked_at.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if at.is_some_and(|t| now.duration_since(t) < SLOTS_RETRY) {
            return false;
        }
        *at = Some(now);
        true
    }

    /// The script command (EVALSHA, or EVAL until the script is known to
    /// be loaded, and EVAL again after NOSCRIPT) on `node`.
    fn script(&self, node: &str, key: &str, argv: &[String; 8], deadline: Instant) -> Result<Reply, RedisError> {
        let eval = |verb: &[u8], body: &[u8]| {
            self.commands.fetch_add(1, Ordering::Relaxed);
            let mut args: Vec<&[u8]> = vec![verb, body, b"1", key.as_bytes()];
            args.extend(argv.iter().map(|a| a.as_bytes()));
            self.command(node, &args, deadline)
        };
        let first = if self.loaded.load(Ordering::Relaxed) {
            eval(b"EVALSHA", self.sha.as_bytes())
        } else {
            eval(b"EVAL", BUDGET_LUA.as_bytes())
        };
        match first {
            // Nothing ran: the same command again, carrying the script.
            Err(e) if e.is_noscript() => eval(b"EVAL", BUDGET_LUA.as_bytes()),
            other => other,
        }
    }

    /// One command on a pooled connection to `node`.
    fn command(&self, node: &str, args: &[&[u8]], deadline: Instant) -> Result<Reply, RedisError> {
        let pooled = self.pools.lock().unwrap_or_else(|p| p.into_inner()).get_mut(node).and_then(Vec::pop);
        let mut conn = match pooled {
            Some(c) => c,
            None => Connection::open(&RedisUrl { authority: node.to_string(), ..self.url.clone() }, deadline)?,
        };
        let result = conn.command(args, deadline);
        // An error reply leaves the connection in step; I/O and protocol errors may not.
        if matches!(&result, Ok(_) | Err(RedisError::Server(_))) {
            let mut pools = self.pools.lock().unwrap_or_else(|p| p.into_inner());
            if pools.len() < 64 || pools.contains_key(node) {
                pools.entry(node.to_string()).or_default().push(conn);
            }
        }
        result
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

/// `ARGV` of the script: op, bucket, window_ms, now_ms, ratio (shortest
/// round-trip text: Rust's `{}` of an f64), min_sample, sliding, skew check.
pub fn argv(request: &StoreRequest, budget: &Budget, now_ms: u64, skew_check: bool) -> [String; 8] {
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    [
        request.op.as_str().to_string(),
        request.bucket.to_string(),
        request.window_ms.to_string(),
        now_ms.to_string(),
        format!("{}", budget.ratio),
        budget.min_sample.to_string(),
        flag(budget.sliding),
        flag(skew_check),
    ]
}

/// `[reserved, cur_total, cur_retries, prev_total, prev_retries]`; any
/// other shape is a failed call.
pub fn parse_reply(v: &Reply) -> Result<Reservation, String> {
    let items = match v {
        Reply::Array(Some(items)) if items.len() == 5 => items,
        _ => return Err("budget.lua answered something other than 5 integers".into()),
    };
    let mut n = [0u64; 5];
    for (slot, item) in n.iter_mut().zip(items) {
        *slot = match item {
            Reply::Int(x) if *x >= 0 => *x as u64,
            _ => return Err("budget.lua answered a count that is not a non-negative integer".into()),
        };
    }
    if n[0] > 1 {
        return Err("budget.lua answered `reserved` other than 0 or 1".into());
    }
    Ok(Reservation {
        reserved: n[0] == 1,
        counts: BudgetCounts {
            current: BucketCounts { total: n[1], retries: n[2] },
            previous: BucketCounts { total: n[3], retries: n[4] },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retry_policy_core::StoreOp;

    fn request(op: StoreOp) -> StoreRequest {
        StoreRequest { op, endpoint_id: "ep_42".into(), window_ms: 60_000, bucket: 28_333_333 }
    }

    #[test]
    fn the_script_gets_the_ratio_as_its_shortest_exact_text_and_the_skew_flag_last() {
        let b = Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true };
        let a = argv(&request(StoreOp::RecordReserve), &b, 1_700_000_000_123, true);
        assert_eq!(
            a,
            ["record_reserve", "28333333", "60000", "1700000000123", "0.1", "50", "1", "1"].map(String::from)
        );
        assert_eq!(a[4].parse::<f64>().unwrap(), 0.1);
    }

    #[test]
    fn only_noeviction_keeps_budget_keys_safe() {
        assert_eq!(eviction_warning("noeviction"), None);
        for p in ["allkeys-lru", "volatile-lru", "volatile-ttl"] {
            let w = eviction_warning(p).unwrap();
            assert!(w.contains(p) && w.contains("noeviction"), "{w}");
        }
        let unreachable = RedisStore::new("redis://127.0.0.1:1/0", Duration::from_millis(100), true).unwrap();
        assert_eq!(unreachable.eviction_warning(), None, "an unreachable Redis says nothing, quickly");
    }

    #[test]
    fn replies_of_any_other_shape_are_failed_calls_not_panics() {
        let ok = Reply::Array(Some([1, 10, 2, 7, 0].map(Reply::Int).to_vec()));
        let r = parse_reply(&ok).unwrap();
        assert!(r.reserved);
        assert_eq!((r.counts.current.total, r.counts.current.retries, r.counts.previous.total), (10, 2, 7));
        for bad in [
            Reply::Bulk(None),
            Reply::Int(1),
            Reply::Array(None),
            Reply::Array(Some([1, 2, 3].map(Reply::Int).to_vec())),
            Reply::Array(Some([2, 0, 0, 0, 0].map(Reply::Int).to_vec())),
            Reply::Array(Some([0, -1, 0, 0, 0].map(Reply::Int).to_vec())),
            Reply::Array(Some(vec![Reply::Bulk(Some(b"1".to_vec())); 5])),
        ] {
            assert!(parse_reply(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn an_unreachable_redis_is_a_failed_call_within_the_timeout() {
        let store = RedisStore::new("redis://127.0.0.1:1/0", Duration::from_millis(200), true).unwrap();
        let b = Budget { ratio: 0.1, window_ms: 1000, min_sample: 5, sliding: true };
        let t = Instant::now();
        assert!(store.call("rb:{e6570}:1000", &request(StoreOp::Reserve), &b, 5000).is_err());
        assert!(t.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn a_seed_that_cannot_give_its_slot_map_is_asked_once_a_second_not_once_a_call() {
        use std::io::{BufReader, Write};
        use std::sync::atomic::{AtomicU64, Ordering};
        use std::sync::Arc;
        // A loopback "node" answering every command with an error and
        // counting `CLUSTER SLOTS` (what a standalone Redis does).
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let asked = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&asked);
        std::thread::spawn(move || {
            for conn in listener.incoming().take(4).flatten() {
                let counted = Arc::clone(&counted);
                std::thread::spawn(move || {
                    let mut w = conn.try_clone().unwrap();
                    let mut r = BufReader::new(conn);
                    let far = Instant::now() + Duration::from_secs(5);
                    while let Ok(Reply::Array(Some(args))) = crate::resp::read_reply(&mut r, far, 0) {
                        if args.first() == Some(&Reply::Bulk(Some(b"CLUSTER".to_vec()))) {
                            counted.fetch_add(1, Ordering::Relaxed);
                        }
                        if w.write_all(b"-ERR not a cluster\r\n").is_err() {
                            break;
                        }
                    }
                });
            }
        });
        let store =
            RedisStore::cluster(&format!("redis://127.0.0.1:{port}/0"), Duration::from_millis(500), true).unwrap();
        let b = Budget { ratio: 0.1, window_ms: 1000, min_sample: 5, sliding: true };
        for _ in 0..20 {
            assert!(store.call("rb:{e6570}:1000", &request(StoreOp::Reserve), &b, 5000).is_err());
        }
        assert_eq!(asked.load(Ordering::Relaxed), 1, "20 calls within a second ask for the slot map once");
    }

    #[test]
    fn a_url_that_is_not_redis_is_refused_without_echoing_it() {
        let e = RedisStore::new("http://user:secret@host/", Duration::from_millis(1), true).err().unwrap_or_default();
        assert!(e.contains("redis://") && !e.contains("secret"), "{e}");
    }
}
