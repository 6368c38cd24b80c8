//! The Redis budget store against real redis-servers on loopback
//! ([`crate::tests_redis_server`]): one script command per call, the
//! NOSCRIPT fallback as one EVAL, an ACL user, rediss:// with a private CA,
//! and a hung Redis failing the call within its timeout without the command
//! ever being sent twice. Redis's own `INFO commandstats` and the budget
//! hash are the witnesses, not the store's counter.

use std::time::{Duration, Instant};

use crate::redis_error::RedisError;
use crate::redis_store::RedisStore;
use crate::tests_redis_server::{free_port, make_certs, temp_dir, RedisServer};
use retry_policy_host::tls::{TrustConfig, TrustRoots};

const KEY: &str = "rb:{e6570}:10000";

/// A format-2 `record`'s eight arguments (docs/contract.md, the engine's encoding).
pub(crate) fn record(now_ms: u64) -> Vec<String> {
    let bucket = (now_ms / 10_000).to_string();
    ["record", &bucket, "10000", &now_ms.to_string(), "0.5", "5", "1", "1"].map(String::from).to_vec()
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

fn store(url: &str, trust: &TrustRoots) -> RedisStore {
    RedisStore::new(url, Duration::from_millis(1000), trust).expect("a valid URL")
}

/// Attempts Redis counted in the key's hash (all buckets).
fn counted(admin: &mut redis::Connection) -> u64 {
    let h: std::collections::HashMap<String, u64> = redis::cmd("HGETALL").arg(KEY).query(admin).expect("HGETALL");
    h.iter().filter(|(f, _)| f.starts_with("t:")).map(|(_, n)| n).sum()
}

/// EVAL and EVALSHA commands Redis received (`INFO commandstats`: calls
/// plus rejected calls).
pub(crate) fn script_commands(admin: &mut redis::Connection) -> (u64, u64) {
    let info: String = redis::cmd("INFO").arg("commandstats").query(admin).expect("INFO");
    let stat = |name: &str| -> u64 {
        let prefix = format!("cmdstat_{name}:");
        let Some(body) = info.lines().find_map(|l| l.strip_prefix(prefix.as_str())) else { return 0 };
        body.split(',')
            .filter_map(|kv| kv.split_once('='))
            .filter(|(k, _)| matches!(*k, "calls" | "rejected_calls"))
            .map(|(_, v)| v.trim().parse::<u64>().unwrap_or(0))
            .sum()
    };
    (stat("eval"), stat("evalsha"))
}

#[test]
fn each_call_is_one_script_command_and_after_script_flush_one_eval_reloads_it() {
    let Some(server) = RedisServer::start("one-command", &[], None) else { return };
    let mut admin = server.admin();
    let s = store(&format!("redis://127.0.0.1:{}/0", server.port), &TrustRoots::only(vec![]));
    let now = now_ms();
    for i in 0..3 {
        s.call_ints(KEY, &record(now + i)).expect("a healthy Redis answers");
    }
    assert_eq!(script_commands(&mut admin), (1, 2), "EVAL once, then EVALSHA");
    let _: () = redis::cmd("SCRIPT").arg("FLUSH").query(&mut admin).expect("SCRIPT FLUSH");
    s.call_ints(KEY, &record(now + 3)).expect("NOSCRIPT is answered by one EVAL");
    assert_eq!(script_commands(&mut admin), (2, 3), "the NOSCRIPT retry is one EVAL");
    assert_eq!(counted(&mut admin), 4, "four calls, four attempts counted, none twice");
    assert_eq!(s.commands(), 5);
}

#[test]
fn an_acl_user_is_used_and_a_wrong_password_fails_closed() {
    let Some(server) = RedisServer::start("acl", &[], None) else { return };
    let mut admin = server.admin();
    let _: () = redis::cmd("ACL").arg(&["SETUSER", "fleet", "on", ">secret", "~*", "+@all"]).query(&mut admin).unwrap();
    // The default user gets another password: only the ACL user's AUTH works.
    let _: () = redis::cmd("ACL").arg(&["SETUSER", "default", "resetpass", ">adminpw"]).query(&mut admin).unwrap();
    let now = now_ms();
    let port = server.port;
    let ok = store(&format!("redis://fleet:secret@127.0.0.1:{port}/0"), &TrustRoots::only(vec![]));
    ok.call_ints(KEY, &record(now)).expect("the ACL user is authenticated");
    for bad in [format!("redis://fleet:wrong@127.0.0.1:{port}/0"), format!("redis://:secret@127.0.0.1:{port}/0")] {
        let e = store(&bad, &TrustRoots::only(vec![])).call_ints(KEY, &record(now)).unwrap_err();
        assert!(matches!(e, RedisError::Server(_)), "{e:?}");
        assert!(!e.to_string().contains("secret") && !e.to_string().contains("wrong"), "{e}");
    }
}

pub(crate) fn tls_server() -> Option<(RedisServer, std::path::PathBuf)> {
    let dir = temp_dir("certs");
    let (ca, cert, key) = make_certs(&dir)?;
    let port = free_port();
    let arg = |p: &std::path::Path| p.display().to_string();
    let args: Vec<String> = vec![
        "--tls-port".into(),
        port.to_string(),
        "--tls-cert-file".into(),
        arg(&cert),
        "--tls-key-file".into(),
        arg(&key),
        "--tls-ca-cert-file".into(),
        arg(&ca),
        "--tls-auth-clients".into(),
        "no".into(),
        "--port".into(),
        "0".into(),
    ];
    // `--port 0` comes last: it overrides the plain port the harness set.
    Some((RedisServer::start("tls", &args, Some(port))?, ca))
}

#[test]
fn rediss_works_with_the_ca_file_and_fails_closed_without_it() {
    let Some((server, ca)) = tls_server() else { return };
    let url = format!("rediss://127.0.0.1:{}/0", server.port);
    let now = now_ms();
    let trusted = TrustRoots::load(&TrustConfig { ca_file: Some(ca) }).expect("the CA file loads");
    assert!(trusted.extra() > 0);
    store(&url, &trusted).call_ints(KEY, &record(now)).expect("verified against the CA file");
    let e = store(&url, &TrustRoots::default()).call_ints(KEY, &record(now)).unwrap_err();
    assert!(matches!(e, RedisError::Io(_)), "the platform's roots alone do not trust it: {e:?}");
    let e = store(&format!("redis://127.0.0.1:{}/0", server.port), &trusted).call_ints(KEY, &record(now));
    assert!(e.is_err(), "plain TCP to a TLS port fails closed");
}

#[test]
fn a_hung_redis_fails_the_call_within_the_timeout_and_the_command_is_never_sent_twice() {
    let Some(server) = RedisServer::start("hung", &[], None) else { return };
    let mut admin = server.admin();
    let timeout = Duration::from_millis(200);
    let s =
        RedisStore::new(&format!("redis://127.0.0.1:{}/0", server.port), timeout, &TrustRoots::only(vec![])).unwrap();
    let now = now_ms();
    s.call_ints(KEY, &record(now)).expect("healthy first");
    server.pause(true);
    let t = Instant::now();
    let e = s.call_ints(KEY, &record(now)).unwrap_err();
    let hung_ms = t.elapsed().as_millis();
    let t = Instant::now();
    assert!(s.call_ints(KEY, &record(now)).is_err(), "a new connection to a hung Redis fails too");
    let second_ms = t.elapsed().as_millis();
    server.pause(false);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(e, RedisError::Timeout);
    assert!(hung_ms < 600 && second_ms < 600, "calls took {hung_ms} ms and {second_ms} ms (timeout 200 ms)");
    let later = now_ms();
    s.call_ints(KEY, &record(later)).expect("recovers when Redis wakes");
    // The timed-out EVALSHA ran when Redis woke (it was sent once); the
    // second call never got a connection, so it sent nothing.
    assert_eq!(counted(&mut admin), 3, "first + the one sent while hung + after");
}

#[test]
fn the_eviction_policy_is_read_from_redis_and_only_noeviction_is_quiet() {
    let Some(server) = RedisServer::start("eviction", &[], None) else { return };
    let mut admin = server.admin();
    let url = format!("redis://127.0.0.1:{}/0", server.port);
    let _: () = redis::cmd("CONFIG").arg(&["SET", "maxmemory-policy", "noeviction"]).query(&mut admin).unwrap();
    assert_eq!(store(&url, &TrustRoots::only(vec![])).eviction_warning(), None);
    let _: () = redis::cmd("CONFIG").arg(&["SET", "maxmemory-policy", "allkeys-lru"]).query(&mut admin).unwrap();
    let w = store(&url, &TrustRoots::only(vec![])).eviction_warning().expect("allkeys-lru is warned about");
    assert!(w.contains("allkeys-lru"), "{w}");
}
