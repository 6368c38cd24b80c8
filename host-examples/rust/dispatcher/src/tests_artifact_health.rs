//! A dispatcher that took its document from the artifact, swapped to an
//! artifact whose embedded document is format 3 (`docs/artifact.md`):
//! new events are admitted under the new document's `health` sections (a
//! `429 Retry-After` then pauses the endpoint and holds the later events),
//! exactly as after a reload of the same JSON with `--policy`.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use retry_policy_host::artifact::container;
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::{ArtifactRef, HoldReason, PolicyEngine};

use crate::store::Status;
use crate::tests::local_config;
use crate::tests_artifact::Gated;
use crate::tests_health::clear_of_bucket_edge;
use crate::tests_health_util::{health_doc, Receiver};
use crate::{BudgetStore, Dispatcher, DispatcherConfig, EventStore, Metrics, NewEvent};

fn bundle(document: &str) -> Vec<u8> {
    container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, document)
}

/// The format-3 document of the health tests, and the same policy as format 2.
fn documents() -> (String, String) {
    let f3 = health_doc(10_000, 50, 0.5, 50, "null", r#"{"multiple":1.0,"floor_per_s":1000.0}"#);
    let start = f3.find(",\n        \"health\"").expect("the health member");
    let f2 = format!("{}}}}}}}", &f3[..start]).replace("\"h1\"", "\"f2\"");
    (f2, f3)
}

#[test]
fn a_swap_to_an_artifact_with_a_format_3_document_admits_new_events_under_its_health() {
    let (f2, f3) = documents();
    clear_of_bucket_edge();
    let rx = Receiver::start(Box::new(|i, _| if i == 0 { (429, Some("1")) } else { (200, None) }));
    let engine = PolicyEngine::from_bytes(&bundle(&f2)).unwrap();
    assert!(engine.info().health_classes.is_empty());
    let text = engine.info().document_json.clone().unwrap();
    let url = rx.url();
    // Every event comes after the swap below: the source holds them until it
    // is done, then hands them out 300 ms (the 429) and 600 ms (the four
    // others) after that instant, measured from before the dispatcher's
    // start (so at least that far ahead on its clock), whatever the load.
    let t0 = std::time::Instant::now();
    let src = Gated::new(
        (0..5)
            .map(|i| NewEvent {
                event_id: format!("ep-{i}"),
                endpoint_id: "ep".into(),
                target: url.clone(),
                class: "storm".into(),
                at_ms: Some(if i == 0 { 300 } else { 600 }),
            })
            .collect(),
        0,
    );
    let (open, yielded) = (src.open.clone(), src.yielded.clone());
    let mut base_ms = None;
    let src = src.map(move |mut e| {
        let base = *base_ms.get_or_insert_with(|| t0.elapsed().as_millis() as u64);
        e.at_ms = e.at_ms.map(|a| a + base);
        e
    });
    let m = Arc::new(Metrics::default());
    let config = DispatcherConfig { concurrency: 2, document_from_artifact: true, ..local_config() };
    let d = Dispatcher::start(
        engine,
        &text,
        &["storm"],
        BudgetStore::local(),
        EventStore::in_memory(),
        m.clone(),
        config,
        Vec::new(),
        Box::new(src),
    )
    .unwrap();
    assert_eq!(d.policy_version(), "f2");
    let info = d.swap_artifact(ArtifactRef::Bytes(&bundle(&f3))).unwrap();
    assert_eq!(info.health_classes, vec!["storm".to_string()]);
    assert_eq!(d.policy_version(), "h1");
    assert_eq!(yielded.load(Ordering::SeqCst), 0, "the swap came before the first event");
    open.store(true, Ordering::SeqCst);
    let recs = d.wait().store().all();
    assert_eq!(recs.len(), 5);
    assert!(recs.iter().all(|r| r.status == Status::Delivered && r.health.is_some()), "{recs:#?}");
    assert_eq!(m.health.holds(HoldReason::Paused), 4, "the four later events were held by the 429's pause");
}

#[test]
fn the_format_2_half_of_the_swap_test_is_the_same_policy_without_health() {
    let (f2, f3) = documents();
    let e2 = PolicyEngine::from_bytes(&bundle(&f2)).unwrap();
    let e3 = PolicyEngine::from_bytes(&bundle(&f3)).unwrap();
    let policies = |e: &PolicyEngine| retry_policy_host::document_classes(e.document().unwrap());
    assert_eq!(policies(&e2), policies(&e3));
    assert!(e2.health_document().unwrap().classes[0].health.is_none());
    assert!(e3.health_document().unwrap().classes[0].health.is_some());
}
