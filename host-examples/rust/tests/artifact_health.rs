//! An artifact whose embedded document is format 3 (`docs/artifact.md`,
//! "Loading" step 6): it is read by the artifact's own
//! `load-health-document`, its `health` sections are exposed, a bad one is
//! `artifact_document_invalid` naming the field, and a format-2 document
//! reads exactly as before.

use retry_policy_host::artifact::container;
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::{FakeClock, InMemoryStore, LiveArtifact, Policies, PolicyEngine};

/// Two classes: `storm` with its own `health` section (`cache_ms` given),
/// `quiet` without one.
fn doc(version: &str, cache_ms: i64) -> String {
    format!(
        r#"{{"version":"{version}","classes":{{
  "storm":{{"window_ms":900000,"backoff":{{"base_ms":2000,"factor":2.0,"cap_ms":300000}},
            "health":{{"pause":{{"max_ms":600000}},"cache_ms":{cache_ms}}}}},
  "quiet":{{"window_ms":900000,"backoff":{{"base_ms":2000,"factor":2.0,"cap_ms":300000}}}}}}}}"#
    )
}

const FORMAT_2: &str = r#"{"version":"plain-1","classes":{"storm":{"window_ms":900000,
  "backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000}}}}"#;

fn bundled(doc: &str) -> Vec<u8> {
    container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, doc)
}

#[test]
fn an_embedded_format_3_document_loads_and_exposes_its_health_sections() {
    let engine = PolicyEngine::from_bytes(&bundled(&doc("h-1", 2500))).unwrap();
    assert_eq!(engine.info().document_version.as_deref(), Some("h-1"));
    assert_eq!(engine.info().health_classes, vec!["storm".to_string()]);
    let h = engine.health_document().expect("the health view of the embedded document");
    let storm = h.classes.iter().find(|c| c.name == "storm").unwrap();
    assert_eq!(storm.health.as_ref().map(|s| s.cache_ms), Some(2500));
    assert!(h.classes.iter().any(|c| c.name == "quiet" && c.health.is_none()));
    // The format-2 view keeps working for format-2 callers.
    let view = engine.document().unwrap();
    assert_eq!((view.version.as_str(), view.classes.len()), ("h-1", 2));
    // Its hash is the one `Policies` (the dispatcher's path) admits storm under.
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap();
    let policies = Policies::new(&mut inst, engine.info().document_json.as_deref().unwrap()).unwrap();
    assert!(policies.current().health_of("storm").is_some());
    assert_eq!(policies.admit(&mut inst, "storm", 0).unwrap().policy_hash, storm.policy_hash);
}

#[test]
fn an_invalid_embedded_health_section_is_artifact_document_invalid_naming_its_field() {
    let e = PolicyEngine::from_bytes(&bundled(&doc("h-bad", 0))).err().expect("refused");
    assert_eq!(e.code(), "artifact_document_invalid", "{e}");
    assert!(e.to_string().contains("classes.storm.health.cache_ms"), "{e}");
    let e = PolicyEngine::from_bytes(&bundled(&doc("h-bad", 60_001))).err().expect("refused");
    assert!(e.to_string().contains("classes.storm.health.cache_ms"), "{e}");
}

#[test]
fn an_embedded_format_2_document_reads_as_before_with_no_health_classes() {
    let engine = PolicyEngine::from_bytes(&bundled(FORMAT_2)).unwrap();
    assert!(engine.info().health_classes.is_empty());
    assert!(engine.health_document().unwrap().classes.iter().all(|c| c.health.is_none()));
    assert_eq!(engine.document().unwrap().version, "plain-1");
    let shipped = PolicyEngine::from_bytes(EMBEDDED).unwrap();
    assert!(shipped.health_document().is_none() && shipped.info().health_classes.is_empty());
}

#[test]
fn a_swap_to_an_artifact_with_a_format_3_document_exposes_the_new_health_sections() {
    let live = LiveArtifact::new(PolicyEngine::from_bytes(&bundled(FORMAT_2)).unwrap());
    let sw = live.swap_artifact(retry_policy_host::ArtifactRef::Bytes(&bundled(&doc("h-2", 1000))), None).unwrap();
    assert_eq!(sw.new.health_classes, vec!["storm".to_string()]);
    assert_eq!(live.info().health_classes, vec!["storm".to_string()]);
}
