//! Policy documents reloaded without a restart (`retry_policy_host::reload`).

use std::sync::{mpsc, Arc};
use std::time::Duration;

use retry_policy_core::{FakeClock, InMemoryStore};
use retry_policy_host::{watch, HostError, Policies, PolicyEngine, PolicyInstance};

fn doc(version: &str, window_ms: u64) -> String {
    format!(
        r#"{{"version":"{version}","classes":{{"notification":{{"window_ms":{window_ms},"backoff":{{"base_ms":2000,"factor":2.0,"cap_ms":300000}}}}}}}}"#
    )
}

fn instance() -> PolicyInstance {
    PolicyEngine::load_default().unwrap().instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap()
}

#[test]
fn a_reload_swaps_the_document_for_new_events_and_keeps_the_admitted_policy_for_old_ones() {
    let mut inst = instance();
    let policies = Policies::new(&mut inst, &doc("v1", 900_000)).unwrap();
    let old = policies.admit(&mut inst, "notification", 1_000).unwrap();
    assert_eq!(old.schedule.max_attempts, 13);

    let loaded = policies.reload(&mut inst, &doc("v2", 3_600_000)).unwrap();
    assert_eq!((loaded.version.as_str(), loaded.generation), ("v2", 1));
    let new = policies.admit(&mut inst, "notification", 2_000).unwrap();
    assert_eq!(new.policy_version, "v2");
    assert_ne!(new.policy_hash, old.policy_hash);
    assert!(new.schedule.max_attempts > old.schedule.max_attempts);

    // The event admitted under v1 is still decided under v1's policy.
    assert_eq!(policies.by_hash(&old.policy_hash).unwrap().window_ms, 900_000);
    assert_eq!(policies.by_hash(&new.policy_hash).unwrap().window_ms, 3_600_000);
}

#[test]
fn a_bad_document_keeps_the_old_one_and_says_why() {
    let mut inst = instance();
    let policies = Policies::new(&mut inst, &doc("v1", 900_000)).unwrap();
    match policies.reload(&mut inst, &doc("v2", 9_999_999_999)) {
        Err(HostError::Policy(e)) => assert_eq!(e.code.as_str(), "invalid_window", "{e}"),
        other => panic!("expected a refusal, got {:?}", other.map(|l| l.version.clone())),
    }
    assert!(policies.reload(&mut inst, "{not json").is_err());
    assert_eq!(policies.current().version, "v1");
    assert_eq!(policies.current().generation, 0);
}

#[test]
fn the_watch_helper_reloads_a_changed_file_and_reports_a_refused_one() {
    let dir = std::env::temp_dir().join(format!("retry-policy-reload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("policy.json");
    std::fs::write(&path, doc("v1", 900_000)).unwrap();
    let mut inst = instance();
    let policies = Arc::new(Policies::new(&mut inst, &std::fs::read_to_string(&path).unwrap()).unwrap());
    let (tx, rx) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let handle = watch(
        policies.clone(),
        instance(),
        &path,
        Duration::from_millis(20),
        Box::new(move |r| {
            let _ = tx.lock().unwrap().send(r.map(|l| l.version.clone()).map_err(|e| e.to_string()));
        }),
    )
    .unwrap();
    // Each edit lands whole (written beside, renamed over): `fs::write`
    // truncates first, and a poll in between would report an empty file.
    let replace = |text: &str| {
        let tmp = dir.join("policy.json.tmp");
        std::fs::write(&tmp, text).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
    };
    replace(&doc("v2-longer", 1_800_000));
    assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), Ok("v2-longer".to_string()));
    assert_eq!(policies.current().version, "v2-longer");
    replace("{\"classes\": {}} ");
    assert!(rx.recv_timeout(Duration::from_secs(10)).unwrap().is_err(), "a refused document is reported");
    assert_eq!(policies.current().version, "v2-longer", "and the old one kept");
    drop(policies);
    handle.join().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_format_3_document_is_admitted_with_its_sections_hash_and_a_bad_section_is_refused_naming_it() {
    let mut inst = instance();
    let text = r#"{"version":"h1","classes":{
        "ledger":{"window_ms":900000,"backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000},"health":{"cache_ms":500}},
        "plain":{"window_ms":900000,"backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000},"health":null}}}"#;
    let policies = Policies::new(&mut inst, text).unwrap();
    let doc = inst.load_health_document(text).unwrap();
    let a = policies.admit(&mut inst, "ledger", 1_000).unwrap();
    assert_eq!(a.policy_hash, doc.classes[0].policy_hash, "the hash covers the section");
    let (policy, health) = policies.by_hash_health(&a.policy_hash).unwrap();
    assert_eq!((policy.window_ms, health.map(|h| h.cache_ms)), (900_000, Some(500)));
    let plain = policies.admit(&mut inst, "plain", 1_000).unwrap();
    assert_eq!(policies.by_hash_health(&plain.policy_hash).unwrap().1, None, "health null: format 2");
    assert_eq!(plain.policy_hash, doc.classes[1].policy_hash);
    let bad = text.replace(r#""cache_ms":500"#, r#""cache_ms":0"#);
    match policies.reload(&mut inst, &bad) {
        Err(HostError::Policy(e)) => assert_eq!(e.field, "classes.ledger.health.cache_ms"),
        other => panic!("expected the section's error, got {:?}", other.map(|l| l.version.clone())),
    }
    assert_eq!(policies.current().version, "h1");
}
