//! The fleet rollout against a real `redis-server` on loopback: the
//! publisher's commands (`publish`, `rollout promote|rollback|status`) and
//! the replica's follower on the budget store's own connections.

use std::path::{Path, PathBuf};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use retry_policy_host::artifact::container;
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::cli::exit::Failure;
use retry_policy_host::cli::rollout::{publish, status};
use retry_policy_host::rollout::{admin, bucket, rust_identity, PrivateKey};
use retry_policy_host::{LiveArtifact, PolicyEngine};

use crate::metrics::Metrics;
use crate::redis_store::RedisStore;
use crate::rollout_follow::{Following, Options};
use crate::tests_redis_server::{temp_dir, RedisServer};
use retry_policy_host::tls::TrustRoots;

/// A PKCS#8 PEM Ed25519 private key (seed: 32 times `byte`) written to `dir`.
fn key_file(dir: &Path, byte: u8) -> (PathBuf, PrivateKey) {
    let mut der = vec![0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
    der.extend([byte; 32]);
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        base64::engine::general_purpose::STANDARD.encode(der)
    );
    let path = dir.join(format!("key-{byte}.pem"));
    std::fs::write(&path, &pem).unwrap();
    (path, PrivateKey::parse(&pem).unwrap())
}

/// The embedded artifact with a document of `version` (its class `storm`), written to `dir`.
fn artifact_file(dir: &Path, version: &str) -> (PathBuf, String) {
    let doc = format!(
        r#"{{"version":"{version}","classes":{{"storm":{{"window_ms":3000,"hard_cap":16,"backoff":{{"base_ms":5,"factor":2.0,"cap_ms":50,"jitter":"full"}}}}}}}}"#
    );
    let bytes = container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, &doc);
    let path = dir.join(format!("{version}.wasm"));
    std::fs::write(&path, &bytes).unwrap();
    (path, container::sha256_hex(&bytes))
}

fn url(server: &RedisServer) -> String {
    format!("redis://127.0.0.1:{}/0", server.port)
}

#[test]
fn publish_canary_promote_rollback_and_status_change_the_record_as_docs_rollout_md_says() {
    let Some(server) = RedisServer::start("rollout-cli", &[], None) else { return };
    let dir = temp_dir("rollout-cli");
    let (key, _) = key_file(&dir, 1);
    let key = key.to_str().unwrap();
    let (a, sha_a) = artifact_file(&dir, "a");
    let (b, sha_b) = artifact_file(&dir, "b");
    let (c, sha_c) = artifact_file(&dir, "c");
    let mut conn =
        admin::connect(&url(&server), false, Duration::from_secs(5), &retry_policy_host::tls::TrustRoots::default())
            .unwrap();
    let conn = conn.as_mut();
    let refused = |r: Result<_, Failure>| matches!(r, Err(Failure::Refused(_)));
    assert!(refused(publish(conn, b.to_str().unwrap(), key, Some(25))), "a canary needs a stable artifact");
    let r = publish(conn, a.to_str().unwrap(), key, None).unwrap();
    assert_eq!((r.epoch, r.stable.as_str(), r.canary.is_none()), (1, sha_a.as_str(), true));
    let r = publish(conn, b.to_str().unwrap(), key, Some(25)).unwrap();
    assert_eq!((r.epoch, r.canary.as_ref().map(|c| (c.sha256.as_str(), c.percent))), (2, Some((sha_b.as_str(), 25))));
    assert!(refused(publish(conn, c.to_str().unwrap(), key, Some(10))), "one canary at a time");
    let r = admin::promote(conn).unwrap();
    assert_eq!((r.epoch, r.stable.as_str(), r.previous.clone()), (3, sha_b.as_str(), vec![sha_a.clone()]));
    assert!(matches!(admin::promote(conn), Err(admin::AdminError::Refused(_))), "no canary to promote");
    let r = admin::rollback(conn).unwrap();
    assert_eq!((r.epoch, r.stable.as_str(), r.previous.len()), (4, sha_a.as_str(), 0));
    assert!(matches!(admin::rollback(conn), Err(admin::AdminError::Refused(_))), "previous is empty");
    let stored = |conn: &mut dyn redis::ConnectionLike| {
        let mut keys: Vec<String> = redis::cmd("KEYS").arg("retry-policy:{rollout}:artifact:*").query(conn).unwrap();
        keys.sort();
        keys.iter().map(|k| k.rsplit(':').next().unwrap().to_string()).collect::<Vec<_>>()
    };
    let mut both = vec![sha_a.clone(), sha_b.clone()];
    both.sort();
    assert_eq!(stored(conn), both, "the artifact rolled back from stays until a later publish");
    let r = publish(conn, c.to_str().unwrap(), key, None).unwrap();
    assert_eq!((r.epoch, r.stable.as_str(), r.previous.clone()), (5, sha_c.as_str(), vec![sha_a.clone()]));
    let mut named = vec![sha_a.clone(), sha_c.clone()];
    named.sort();
    assert_eq!(stored(conn), named, "publish deletes the hashes the record no longer names");
    let fields: Vec<String> =
        redis::cmd("HKEYS").arg(format!("retry-policy:{{rollout}}:artifact:{sha_c}")).query(conn).unwrap();
    assert_eq!(fields.len(), 7, "{fields:?}");
    let s = status(conn, 1_000).unwrap();
    assert_eq!((s.record.as_ref().map(|r| r.epoch), s.replicas.len()), (Some(5), 0));
    let line: serde_json::Value = serde_json::from_str(&s.json()).unwrap();
    assert_eq!(line["record"]["stable"].as_str(), Some(sha_c.as_str()));
    assert!(s.json().starts_with(&format!(r#"{{"record":{}"#, s.record.as_ref().unwrap().canonical())));
}

#[test]
fn a_replica_follows_a_publish_through_its_budget_store_connection_and_reports_its_status() {
    let Some(server) = RedisServer::start("rollout-follow", &[], None) else { return };
    let dir = temp_dir("rollout-follow");
    let (key, private) = key_file(&dir, 1);
    let (a, sha_a) = artifact_file(&dir, "a");
    let (b, sha_b) = artifact_file(&dir, "b");
    let mut admin_conn =
        admin::connect(&url(&server), false, Duration::from_secs(5), &retry_policy_host::tls::TrustRoots::default())
            .unwrap();
    publish(admin_conn.as_mut(), a.to_str().unwrap(), key.to_str().unwrap(), None).unwrap();
    let store =
        Arc::new(RedisStore::new(&url(&server), Duration::from_millis(500), &TrustRoots::only(vec![])).unwrap());
    let live = Arc::new(LiveArtifact::new(PolicyEngine::from_bytes(EMBEDDED).unwrap()));
    let options = Options {
        trust_pem: private.public_key_pem(),
        trust_path: "policy-team.pub".into(),
        me: rust_identity(Some("rust-a")),
        every: Duration::from_millis(50),
    };
    let metrics = Arc::new(Metrics::default());
    let mut following = Following::new(options, store, live.clone(), metrics.clone(), false).unwrap();
    following.first_tick();
    assert_eq!(live.info().sha256, sha_a, "the first tick, before any admission, swaps in the stable artifact");
    assert_eq!(metrics.policy_reloads(), (0, 0), "the first tick's swap is told by the load line alone");
    let (tx, rx) = channel();
    following.spawn(Box::new(move |sw| tx.send(sw.new.sha256).unwrap())).unwrap();
    publish(admin_conn.as_mut(), b.to_str().unwrap(), key.to_str().unwrap(), Some(100)).unwrap();
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), sha_b, "a 100% canary reaches every replica");
    assert_eq!(live.info().sha256, sha_b);
    assert_eq!(metrics.policy_reloads(), (1, 0), "a later swap counts as applied");
    let (untrusted, _) = key_file(&dir, 2);
    let (c, _) = artifact_file(&dir, "c");
    admin::promote(admin_conn.as_mut()).unwrap();
    publish(admin_conn.as_mut(), c.to_str().unwrap(), untrusted.to_str().unwrap(), None).unwrap();
    let t = std::time::Instant::now();
    while metrics.policy_reloads().1 == 0 {
        assert!(t.elapsed() < Duration::from_secs(10), "the refusal was never counted");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(metrics.policy_reloads(), (1, 1), "an untrusted artifact is refused once, the running one kept");
    assert_eq!(live.info().sha256, sha_b);
    let s = status(admin_conn.as_mut(), retry_policy_host::cli::rollout::now_ms()).unwrap();
    assert_eq!(s.replicas.len(), 1);
    let me = &s.replicas[0];
    assert!(s.text().contains("rust-a"), "{}", s.text());
    assert_eq!((me["replica_id"].as_str(), me["artifact_sha256"].as_str()), (Some("rust-a"), Some(sha_b.as_str())));
    assert_eq!(
        (me["epoch"].as_u64(), me["bucket"].as_u64(), me["desired"].as_bool()),
        (Some(4), Some(u64::from(bucket("rust-a"))), Some(false)),
        "the refused epoch is settled; the replica does not run its desired artifact"
    );
    assert_eq!(me["refusal"]["code"].as_str(), Some("rollout_key_unknown"));
}

#[test]
fn a_redis_that_is_down_leaves_the_replica_on_its_local_artifact() {
    let dir = temp_dir("rollout-down");
    let (_, private) = key_file(&dir, 1);
    let store = Arc::new(
        RedisStore::new("redis://127.0.0.1:1/0", Duration::from_millis(200), &TrustRoots::only(vec![])).unwrap(),
    );
    let live = Arc::new(LiveArtifact::new(PolicyEngine::from_bytes(EMBEDDED).unwrap()));
    let before = live.info().sha256;
    let options = Options {
        trust_pem: private.public_key_pem(),
        trust_path: "policy-team.pub".into(),
        me: rust_identity(None),
        every: Duration::from_millis(50),
    };
    assert!(
        options.me.replica_id.starts_with("rust-") && options.me.replica_id.ends_with(&std::process::id().to_string())
    );
    let t = std::time::Instant::now();
    let mut following = Following::new(options, store, live.clone(), Arc::new(Metrics::default()), true).unwrap();
    following.first_tick();
    assert!(t.elapsed() < Duration::from_secs(2), "the first tick is bounded by the store timeout");
    assert_eq!(live.info().sha256, before);
}

#[test]
fn on_a_cluster_publish_and_follow_reach_the_node_holding_the_rollout_slot_through_another_seed() {
    use crate::tests_redis_cluster::{node, q, wait_for};
    let Some(a) = node("rollout-cluster-a") else { return };
    let Some(b) = node("rollout-cluster-b") else { return };
    let (mut ca, mut cb) = (a.admin(), b.admin());
    // Every slot on A but the `{rollout}` one, which B holds: the seed A must redirect.
    let slot: u16 = q(&mut ca, &["CLUSTER", "KEYSLOT", "retry-policy:{rollout}:state"]);
    let mut ranges = vec![];
    if slot > 0 {
        ranges.extend(["0".to_string(), (slot - 1).to_string()]);
    }
    if slot < 16383 {
        ranges.extend([(slot + 1).to_string(), "16383".to_string()]);
    }
    let mut add = vec!["CLUSTER", "ADDSLOTSRANGE"];
    add.extend(ranges.iter().map(String::as_str));
    let _: () = q(&mut ca, &add);
    let _: () = q(&mut cb, &["CLUSTER", "ADDSLOTS", &slot.to_string()]);
    let _: () = q(&mut ca, &["CLUSTER", "MEET", "127.0.0.1", &b.port.to_string()]);
    let ok = |c: &mut redis::Connection| q::<String>(c, &["CLUSTER", "INFO"]).contains("cluster_state:ok");
    wait_for("the two nodes never formed a cluster", || ok(&mut ca) && ok(&mut cb));
    let dir = temp_dir("rollout-cluster");
    let (key, private) = key_file(&dir, 1);
    let (art, sha) = artifact_file(&dir, "on-b");
    let seed = url(&a);
    let mut conn =
        admin::connect(&seed, true, Duration::from_secs(5), &retry_policy_host::tls::TrustRoots::default()).unwrap();
    publish(conn.as_mut(), art.to_str().unwrap(), key.to_str().unwrap(), None).unwrap();
    let on_b: Option<String> = redis::cmd("GET").arg("retry-policy:{rollout}:state").query(&mut cb).unwrap();
    assert!(on_b.is_some_and(|r| r.contains(&sha)), "the record lives on B");
    let store = Arc::new(RedisStore::cluster(&seed, Duration::from_secs(2), &TrustRoots::only(vec![])).unwrap());
    let live = Arc::new(LiveArtifact::new(PolicyEngine::from_bytes(EMBEDDED).unwrap()));
    let options = Options {
        trust_pem: private.public_key_pem(),
        trust_path: "policy-team.pub".into(),
        me: rust_identity(Some("rust-cluster")),
        every: Duration::from_millis(50),
    };
    let mut following = Following::new(options, store, live.clone(), Arc::new(Metrics::default()), true).unwrap();
    following.first_tick();
    assert_eq!(live.info().sha256, sha, "HSET+GET, HSTRLEN and HMGET were routed to B");
    let seen: bool =
        redis::cmd("HEXISTS").arg("retry-policy:{rollout}:replicas").arg("rust-cluster").query(&mut cb).unwrap();
    assert!(seen, "the status record is on B");
}

#[test]
fn publish_over_rediss_trusts_the_ca_file_besides_the_platform_store_and_fails_without_it() {
    let Some((server, ca)) = crate::tests_redis::tls_server() else { return };
    let dir = temp_dir("rollout-tls");
    let (key, _) = key_file(&dir, 1);
    let (art, sha) = artifact_file(&dir, "tls");
    let url = format!("rediss://127.0.0.1:{}/0", server.port);
    let connect = retry_policy_host::cli::rollout::connect;
    let mut conn = connect(Some(&url), None, Some(ca.to_str().unwrap())).unwrap();
    let r = publish(conn.as_mut(), art.to_str().unwrap(), key.to_str().unwrap(), None).unwrap();
    assert_eq!(r.stable, sha);
    let untrusted = connect(Some(&url), None, None).err();
    assert!(matches!(untrusted, Some(Failure::Refused(ref m)) if m.contains("store failed")), "{untrusted:?}");
    let empty = dir.join("empty.pem");
    std::fs::write(&empty, "no certificate here\n").unwrap();
    let bad = connect(Some(&url), None, Some(empty.to_str().unwrap())).err();
    assert!(matches!(bad, Some(Failure::Usage(ref m)) if m.contains("empty.pem")), "{bad:?}");
}
