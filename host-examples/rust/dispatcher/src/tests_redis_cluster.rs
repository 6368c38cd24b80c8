//! The store on a real two-master Redis Cluster (throwaway redis-servers,
//! `--cluster-enabled yes`): a slot being migrated answers `ASK` and a
//! migrated one `MOVED`; the crate's cluster client follows both, the
//! script runs where the slot lives, and nothing is counted twice.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::redis_store::RedisStore;
use crate::tests_redis::script_commands;
use crate::tests_redis_server::RedisServer;
use retry_policy_host::tls::TrustRoots;

/// A free port below 30000 whose cluster bus port (+10000) is free too.
fn free_cluster_port() -> u16 {
    for i in 0..500u32 {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos());
        let p = 20_000 + ((nanos.unwrap_or(0) / 1000 + i * 7919) % 10_000) as u16;
        let free = |p: u16| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok();
        if free(p) && free(p + 10_000) {
            return p;
        }
    }
    panic!("no free cluster port pair");
}

pub(crate) fn node(name: &str) -> Option<RedisServer> {
    let port = free_cluster_port();
    let args: Vec<String> = ["--cluster-enabled", "yes", "--cluster-node-timeout", "2000", "--cluster-config-file"]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("nodes-{port}.conf")])
        .collect();
    RedisServer::start(name, &args, Some(port))
}

pub(crate) fn q<T: redis::FromRedisValue>(c: &mut redis::Connection, args: &[&str]) -> T {
    let mut cmd = redis::cmd(args[0]);
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(c).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

pub(crate) fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let t = Instant::now();
    while !cond() {
        assert!(t.elapsed() < Duration::from_secs(20), "{what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Attempts counted under `key` on one node: 0 when the node redirects
/// (`ASK`, `MOVED`: it does not hold the key). `ASKING` first, so an importing node
/// answers for its slot.
fn attempts(c: &mut redis::Connection, key: &str) -> u64 {
    let _: () = q(c, &["ASKING"]);
    let h: HashMap<String, u64> = match redis::cmd("HGETALL").arg(key).query(c) {
        Ok(h) => h,
        Err(e) if matches!(e.kind(), redis::ErrorKind::Ask | redis::ErrorKind::Moved) => return 0,
        Err(e) => panic!("HGETALL {key}: {e}"),
    };
    h.iter().filter(|(f, _)| f.starts_with("t:")).map(|(_, n)| n).sum()
}

#[test]
fn a_cluster_call_follows_ask_and_moved_and_runs_the_script_once_where_the_slot_lives() {
    let Some(a) = node("cluster-a") else { return };
    let Some(b) = node("cluster-b") else { return };
    let (mut ca, mut cb) = (a.admin(), b.admin());
    let _: () = q(&mut ca, &["CLUSTER", "ADDSLOTSRANGE", "0", "16383"]);
    let _: () = q(&mut ca, &["CLUSTER", "MEET", "127.0.0.1", &b.port.to_string()]);
    let state_ok = |c: &mut redis::Connection| {
        let info: String = q(c, &["CLUSTER", "INFO"]);
        info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:2")
    };
    wait_for("the two nodes never formed a cluster", || state_ok(&mut ca) && state_ok(&mut cb));
    let (id_a, id_b): (String, String) = (q(&mut ca, &["CLUSTER", "MYID"]), q(&mut cb, &["CLUSTER", "MYID"]));

    let key = "rb:{e6571}:10000";
    let slot: i64 = q(&mut ca, &["CLUSTER", "KEYSLOT", key]);
    let slot = slot.to_string();
    let store = RedisStore::cluster(
        &format!("redis://127.0.0.1:{}/0", a.port),
        Duration::from_secs(2),
        &TrustRoots::only(vec![]),
    )
    .unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    let request = crate::tests_redis::record(now);
    // Load the script and open the pooled cluster connection (map: all on A).
    store.call_ints("rb:{e6570}:10000", &request).expect("a healthy cluster answers");

    // Migrating: A has no such key, so it answers ASK; B imports the slot.
    let _: () = q(&mut cb, &["CLUSTER", "SETSLOT", &slot, "IMPORTING", &id_a]);
    let _: () = q(&mut ca, &["CLUSTER", "SETSLOT", &slot, "MIGRATING", &id_b]);
    store.call_ints(key, &request).expect("ASK followed");
    assert_eq!((attempts(&mut ca, key), attempts(&mut cb, key)), (0, 1), "the script ran on the importing node");

    // Migrated: A answers MOVED to the client's stale map.
    for c in [&mut ca, &mut cb] {
        let _: () = q(c, &["CLUSTER", "SETSLOT", &slot, "NODE", &id_b]);
    }
    store.call_ints(key, &request).expect("MOVED followed");
    assert_eq!((attempts(&mut ca, key), attempts(&mut cb, key)), (0, 2), "counted once more, on B");
    // Script commands B received: after ASK an EVALSHA (NOSCRIPT there),
    // the one EVAL that loaded it, and after MOVED one EVALSHA.
    assert_eq!(script_commands(&mut cb), (1, 2));
    assert_eq!(store.commands(), 4, "EVAL on A, EVALSHA + EVAL (NOSCRIPT on B), EVALSHA");
}
