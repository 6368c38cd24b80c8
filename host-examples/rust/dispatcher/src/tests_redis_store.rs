use super::*;
use std::time::Instant;

/// A format-2 `reserve`'s eight arguments.
fn argv() -> Vec<String> {
    ["reserve", "5", "1000", "5000", "0.1", "5", "1", "1"].map(String::from).to_vec()
}

fn no_roots() -> TrustRoots {
    TrustRoots::only(vec![])
}

#[test]
fn the_sha_is_the_sha1_of_budget_lua() {
    let store = RedisStore::new("redis://127.0.0.1:1/0", Duration::from_millis(100), &no_roots()).unwrap();
    assert_eq!(store.sha.len(), 40);
    assert!(store.sha.chars().all(|c| c.is_ascii_hexdigit()));
}

#[test]
fn only_noeviction_keeps_budget_keys_safe() {
    assert_eq!(eviction_warning("noeviction"), None);
    for p in ["allkeys-lru", "volatile-lru", "volatile-ttl"] {
        let w = eviction_warning(p).unwrap();
        assert!(w.contains(p) && w.contains("noeviction"), "{w}");
    }
    let unreachable = RedisStore::new("redis://127.0.0.1:1/0", Duration::from_millis(100), &no_roots()).unwrap();
    assert_eq!(unreachable.eviction_warning(), None, "an unreachable Redis says nothing, quickly");
}

#[test]
fn an_unreachable_redis_is_a_failed_call_within_the_timeout() {
    let store = RedisStore::new("redis://127.0.0.1:1/0", Duration::from_millis(200), &no_roots()).unwrap();
    let t = Instant::now();
    let e = store.call_ints("rb:{e6570}:1000", &argv()).unwrap_err();
    assert!(matches!(e, RedisError::Io(_) | RedisError::Timeout), "{e:?}");
    assert!(t.elapsed() < Duration::from_secs(2));
}

#[test]
fn a_seed_that_cannot_give_its_slot_map_is_tried_once_a_second_not_once_a_call() {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::AtomicU64;
    use std::sync::Arc;
    // A loopback "node" answering every command line with an error and
    // counting the connections made to it (what a non-cluster does).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&connections);
    std::thread::spawn(move || {
        for conn in listener.incoming().take(8).flatten() {
            counted.fetch_add(1, Ordering::Relaxed);
            std::thread::spawn(move || {
                let mut w = conn.try_clone().unwrap();
                for line in BufReader::new(conn).lines() {
                    let Ok(line) = line else { break };
                    if line.starts_with('*') && w.write_all(b"-ERR not a cluster\r\n").is_err() {
                        break;
                    }
                }
            });
        }
    });
    let url = format!("redis://127.0.0.1:{port}/0");
    let store = RedisStore::cluster(&url, Duration::from_millis(500), &no_roots()).unwrap();
    let t = Instant::now();
    for _ in 0..20 {
        assert!(store.call_ints("rb:{e6570}:1000", &argv()).is_err());
    }
    assert!(t.elapsed() < Duration::from_secs(1), "the calls after the first failed at once");
    assert_eq!(connections.load(Ordering::Relaxed), 1, "20 calls within a second try the seed once");
}
