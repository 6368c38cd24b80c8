//! The follower's driver (docs/rollout.md, "The follower in the component")
//! against a fake store that counts what it is asked: the component decides,
//! the driver makes its calls, so these follow a publish, the canary share by
//! bucket, every refusal keeping the running artifact and reported once with
//! its code, and a store that is down changing nothing, end to end.
#![cfg(feature = "rollout")]

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use base64::Engine as _;
use retry_policy_host::artifact::container::{self, sha256_hex};
use retry_policy_host::artifact::{EMBEDDED, MAX_ARTIFACT_BYTES};
use retry_policy_host::rollout::{
    bucket, Canary, Counts, Follower, Identity, PrivateKey, Record, RolloutStore, Tick, ARTIFACT_KEY_PREFIX,
};
use retry_policy_host::{ArtifactSource, LiveArtifact, PolicyEngine};
use serde_json::Value;

/// A PKCS#8 PEM Ed25519 key whose seed is 32 times `byte`.
fn key(byte: u8) -> PrivateKey {
    let mut der = vec![0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
    der.extend([byte; 32]);
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    PrivateKey::parse(&format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n")).unwrap()
}

/// The embedded artifact with a document of version `version` (another sha256).
fn artifact(version: &str) -> Vec<u8> {
    let doc = format!(
        r#"{{"version":"{version}","classes":{{"storm":{{"window_ms":3000,"hard_cap":16,"backoff":{{"base_ms":5,"factor":2.0,"cap_ms":50,"jitter":"full"}}}}}}}}"#
    );
    container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, &doc)
}

/// The fleet's Redis as the follower sees it, counting the commands.
#[derive(Default)]
struct Fake {
    state: RefCell<Option<String>>,
    /// sha256 -> (bytes, signature, key_id), any of them absent.
    artifacts: RefCell<HashMap<String, [Option<Vec<u8>>; 3]>>,
    /// HSTRLEN answers that lie (an oversized artifact without storing 4 MiB).
    lengths: RefCell<HashMap<String, u64>>,
    statuses: RefCell<HashMap<String, String>>,
    down: Cell<bool>,
    fetches: Cell<u32>,
}

/// The sha256 an artifact key names (the component names the key).
fn sha_of(key: &str) -> &str {
    key.strip_prefix(ARTIFACT_KEY_PREFIX).unwrap_or_else(|| panic!("not an artifact key: {key}"))
}

impl RolloutStore for Fake {
    fn tick(&self, replica_id: &str, status: &str) -> Result<Option<Vec<u8>>, String> {
        if self.down.get() {
            return Err("redis unreachable: Connection refused".into());
        }
        self.statuses.borrow_mut().insert(replica_id.into(), status.into());
        Ok(self.state.borrow().clone().map(String::into_bytes))
    }

    fn artifact_len(&self, key: &str) -> Result<u64, String> {
        let sha256 = sha_of(key);
        if let Some(n) = self.lengths.borrow().get(sha256) {
            return Ok(*n);
        }
        Ok(self.artifacts.borrow().get(sha256).and_then(|a| a[0].as_ref()).map_or(0, |b| b.len() as u64))
    }

    fn artifact(&self, key: &str) -> Result<[Option<Vec<u8>>; 3], String> {
        self.fetches.set(self.fetches.get() + 1);
        Ok(self.artifacts.borrow().get(sha_of(key)).cloned().unwrap_or_default())
    }
}

impl Fake {
    /// Store `bytes` signed by `by`, and return its sha256.
    fn put(&self, bytes: &[u8], by: &PrivateKey) -> String {
        let sha = sha256_hex(bytes);
        let entry = [Some(bytes.to_vec()), Some(by.sign(&sha).into_bytes()), Some(by.key_id().into_bytes())];
        self.artifacts.borrow_mut().insert(sha.clone(), entry);
        sha
    }

    fn record(&self, r: &Record) {
        *self.state.borrow_mut() = Some(r.canonical());
    }

    fn status(&self, id: &str) -> Value {
        serde_json::from_str(&self.statuses.borrow()[id]).unwrap()
    }
}

fn record(epoch: u64, stable: &str, canary: Option<(&str, u8)>) -> Record {
    let canary = canary.map(|(sha256, percent)| Canary { sha256: sha256.into(), percent });
    Record { epoch, stable: stable.into(), canary, previous: vec![] }
}

struct Replica {
    follower: Follower,
    live: LiveArtifact,
}

impl Replica {
    fn new(id: &str) -> Replica {
        let me = Identity { replica_id: id.into(), language: "rust".into(), host: "test".into(), pid: 1 };
        let live = LiveArtifact::new(PolicyEngine::from_bytes(EMBEDDED).unwrap());
        Replica { follower: Follower::open(&me, &key(1).public_key_pem(), 1_000, &live).unwrap(), live }
    }

    fn tick(&mut self, store: &Fake, now_ms: u64) -> Tick {
        self.follower.tick(store, &self.live, Counts { events: 10, dead_letters: 2 }, None, now_ms)
    }

    fn running(&self) -> String {
        self.live.info().sha256
    }
}

fn refused_code(t: &Tick) -> Option<&str> {
    t.refused.as_ref().map(|r| r.code.as_str())
}

/// Nothing to say, nothing done.
fn idle(t: &Tick) -> bool {
    t.log.is_empty() && t.refused.is_none() && t.swapped.is_none() && t.error.is_none()
}

#[test]
fn a_replica_follows_a_publish_and_reports_it_in_its_next_status() {
    let store = Fake::default();
    let mut r = Replica::new("rust-a");
    assert!(idle(&r.tick(&store, 2_000)), "nothing published: keep what runs");
    let v2 = store.put(&artifact("v2"), &key(1));
    store.record(&record(1, &v2, None));
    let t = r.tick(&store, 3_000);
    let Some(sw) = &t.swapped else { panic!("no swap: {t:?}") };
    assert_eq!((sw.new.sha256.as_str(), sw.new.source.to_string().as_str()), (v2.as_str(), "redis"));
    assert_eq!((t.log.len(), &t.refused), (0, &None), "the swap's line is the driver's to write");
    assert_eq!(r.running(), v2);
    assert!(idle(&r.tick(&store, 4_000)), "the epoch is settled, on the new artifact's instance");
    let s = store.status("rust-a");
    assert_eq!(
        (s["artifact_sha256"].as_str(), s["epoch"].as_u64(), s["since_ms"].as_u64()),
        (Some(v2.as_str()), Some(1), Some(3_000))
    );
    assert_eq!(
        (s["events"].as_u64(), s["dead_letters"].as_u64(), s["seen_ms"].as_u64()),
        (Some(0), Some(0), Some(4_000))
    );
    assert_eq!(
        (s["language"].as_str(), s["document_version"].as_str(), &s["refusal"]),
        (Some("rust"), Some("v2"), &Value::Null)
    );
}

#[test]
fn a_canary_reaches_exactly_the_replicas_whose_bucket_is_below_its_percent() {
    let store = Fake::default();
    let stable = sha256_hex(EMBEDDED);
    let canary = store.put(&artifact("canary"), &key(1));
    store.record(&record(2, &stable, Some((&canary, 40))));
    let ids: Vec<String> = (0..12).map(|i| format!("r{i}")).collect();
    for id in &ids {
        let mut r = Replica::new(id);
        r.tick(&store, 5_000);
        let want = if bucket(id) < 40 { &canary } else { &stable };
        assert_eq!(&r.running(), want, "{id} (bucket {})", bucket(id));
    }
    assert!(ids.iter().any(|id| bucket(id) < 40) && ids.iter().any(|id| bucket(id) >= 40), "both sides are tried");
}

/// Publish `bytes` as it is stored by `prepare`, tick twice: the first
/// refuses with `code` (logged once), the second says nothing, the artifact stays.
fn refused_once(code: &str, prepare: impl FnOnce(&Fake) -> String) -> Fake {
    let store = Fake::default();
    let sha = prepare(&store);
    store.record(&record(3, &sha, None));
    let mut r = Replica::new("rust-a");
    let before = r.running();
    let first = r.tick(&store, 6_000);
    assert_eq!(refused_code(&first), Some(code), "{first:?}");
    let refusal = first.refused.as_ref().unwrap();
    assert_eq!((refusal.sha256.as_deref(), refusal.at_ms), (Some(sha.as_str()), 6_000));
    assert_eq!(
        first.log,
        [format!(
            "policy artifact refused source=redis sha256={sha} code={code}: {}; keeping sha256={before}",
            refusal.message
        )]
    );
    assert!(idle(&r.tick(&store, 7_000)), "reported once, not at every tick");
    assert_eq!(r.running(), before, "the running artifact is kept");
    let s = store.status("rust-a");
    assert_eq!((s["refusal"]["code"].as_str(), s["refusal"]["sha256"].as_str()), (Some(code), Some(sha.as_str())));
    assert_eq!(s["epoch"].as_u64(), Some(3), "a refusal settles the epoch");
    store
}

#[test]
fn a_bad_signature_is_refused_once_and_the_artifact_is_kept() {
    refused_once("rollout_signature_invalid", |s| {
        let sha = s.put(&artifact("v2"), &key(1));
        s.artifacts.borrow_mut().get_mut(&sha).unwrap()[1] = Some(key(1).sign(&"0".repeat(64)).into_bytes());
        sha
    });
}

#[test]
fn an_artifact_signed_by_an_untrusted_key_is_refused_as_key_unknown() {
    refused_once("rollout_key_unknown", |s| s.put(&artifact("v2"), &key(2)));
}

#[test]
fn an_oversized_artifact_is_refused_from_hstrlen_without_fetching_it() {
    let store = refused_once("artifact_too_large", |s| {
        let sha = s.put(&artifact("v2"), &key(1));
        s.lengths.borrow_mut().insert(sha.clone(), MAX_ARTIFACT_BYTES as u64 + 1);
        sha
    });
    assert_eq!(store.fetches.get(), 0, "HMGET was never sent");
}

#[test]
fn a_missing_artifact_is_refused_without_fetching_and_a_partial_one_after() {
    let store = refused_once("rollout_artifact_missing", |_| "ab".repeat(32));
    assert_eq!(store.fetches.get(), 0);
    refused_once("rollout_artifact_missing", |s| {
        let sha = s.put(&artifact("v2"), &key(1));
        s.artifacts.borrow_mut().get_mut(&sha).unwrap()[2] = None;
        sha
    });
}

#[test]
fn bytes_that_are_not_the_desired_artifact_are_refused_as_a_sha256_mismatch() {
    refused_once("artifact_sha256_mismatch", |s| {
        let other = artifact("other");
        let sha = s.put(&artifact("v2"), &key(1));
        let entry = [
            Some(other.clone()),
            Some(key(1).sign(&sha256_hex(&other)).into_bytes()),
            Some(key(1).key_id().into_bytes()),
        ];
        s.artifacts.borrow_mut().insert(sha.clone(), entry);
        sha
    });
}

#[test]
fn an_invalid_record_is_refused_once_and_a_valid_one_after_it_is_followed() {
    let store = Fake::default();
    let mut r = Replica::new("rust-a");
    *store.state.borrow_mut() = Some(r#"{"v":2,"epoch":1}"#.into());
    let first = r.tick(&store, 1_500);
    assert_eq!(refused_code(&first), Some("rollout_record_invalid"));
    assert!(first.log[0].contains("sha256=none code=rollout_record_invalid"), "{:?}", first.log);
    assert_eq!(first.refused.as_ref().unwrap().sha256, None);
    assert!(idle(&r.tick(&store, 1_600)), "reported once");
    assert_eq!(store.status("rust-a")["epoch"].as_u64(), Some(0), "an invalid record settles nothing");
    let v2 = store.put(&artifact("v2"), &key(1));
    store.record(&record(1, &v2, None));
    assert!(r.tick(&store, 1_700).swapped.is_some());
}

#[test]
fn a_store_that_is_down_keeps_the_artifact_says_so_once_and_the_epoch_is_followed_when_it_is_back() {
    let store = Fake::default();
    let mut r = Replica::new("rust-a");
    let before = r.running();
    let v2 = store.put(&artifact("v2"), &key(1));
    store.record(&record(4, &v2, None));
    store.down.set(true);
    let logs: Vec<Vec<String>> = (0..3).map(|i| r.tick(&store, 2_000 + i).log).collect();
    assert_eq!(
        logs,
        [
            vec![format!(
                "rollout: store unreachable, keeping sha256={before}, retrying every tick: redis unreachable: Connection refused"
            )],
            vec![],
            vec![]
        ],
        "the first failure of a run is logged, once"
    );
    assert_eq!(r.running(), before);
    store.down.set(false);
    let back = r.tick(&store, 3_000);
    assert!(back.swapped.is_some(), "{back:?}");
    assert_eq!(back.log, ["rollout: store reachable again"], "the first success after failures is said");
    assert!(idle(&r.tick(&store, 3_100)), "once");
    assert_eq!(store.status("rust-a")["epoch"].as_u64(), Some(4));
}

#[test]
fn a_trust_text_without_an_ed25519_key_is_refused_when_the_follower_opens() {
    let me = Identity { replica_id: "rust-a".into(), language: "rust".into(), host: "test".into(), pid: 1 };
    let live = LiveArtifact::new(PolicyEngine::from_bytes(EMBEDDED).unwrap());
    let private = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB\n-----END PRIVATE KEY-----\n";
    for text in ["", "ed25519 34750f98bd59fcfc\n", private] {
        let e = Follower::open(&me, text, 1_000, &live).err().unwrap_or_else(|| panic!("{text:?} was taken"));
        assert_eq!(e.code(), "rollout_trust_invalid", "{text:?}: {e}");
    }
    let f =
        Follower::open(&me, &format!("{}# again\n{}", key(1).public_key_pem(), key(1).public_key_pem()), 1_000, &live);
    assert_eq!(f.unwrap().key_ids(), [key(1).key_id()], "the same key twice is one key");
}

#[test]
fn a_swap_made_another_way_restarts_the_status_since_and_counts_once_the_follower_is_told() {
    let store = Fake::default();
    let mut r = Replica::new("rust-a");
    r.tick(&store, 2_000);
    assert_eq!(store.status("rust-a")["since_ms"].as_u64(), Some(1_000));
    r.live.swap_bytes(&artifact("a file swap"), ArtifactSource::Bytes).unwrap();
    let counts = Counts { events: 10, dead_letters: 2 };
    r.follower.artifact_swapped(&r.live, counts, None, 2_500).unwrap();
    r.follower.tick(&store, &r.live, Counts { events: 13, dead_letters: 2 }, None, 3_000);
    let s = store.status("rust-a");
    assert_eq!(
        (s["since_ms"].as_u64(), s["events"].as_u64(), s["dead_letters"].as_u64()),
        (Some(2_500), Some(3), Some(0))
    );
}
