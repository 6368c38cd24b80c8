//! An artifact swapped under a running driver (`--watch-artifact-ms`,
//! docs/engine.md section 11): the old engine drains, its snapshot is
//! resumed by an engine on the new artifact; events admitted before keep
//! their policy (their retries go on under it), events admitted after get
//! the new artifact's embedded document, and `/metrics` shows the new
//! sha256. A torn file is refused and the running artifact kept.

use std::sync::Arc;
use std::time::{Duration, Instant};

use retry_policy_host::artifact::container::{self, sha256_hex};
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::{ArtifactRef, LiveArtifact, PolicyEngine};

use crate::artifact_reload::live;
use crate::drain::Signals;
use crate::driver::{self, DriverConfig, NewEvent, Run};
use crate::endpoints::Endpoint;
use crate::tests::local_config;
use crate::Metrics;

fn doc(cap: u32) -> String {
    format!(
        r#"{{"version":"cap{cap}","classes":{{"storm":{{"window_ms":8000,"hard_cap":{cap},
        "backoff":{{"base_ms":100,"factor":2.0,"cap_ms":400,"jitter":"none"}},
        "budget":{{"ratio":1.0,"window_ms":10000,"min_sample":1000000,"sliding":true}}}}}}}}"#
    )
}

fn bundle(document: &str) -> Vec<u8> {
    container::parse(EMBEDDED).unwrap().with_document(EMBEDDED, document)
}

/// Three events now, then three more once `live` has swapped (the source
/// waits, up to 60 s, whatever the machine's load).
fn events(url: &str, live: Arc<LiveArtifact>) -> Box<dyn Iterator<Item = NewEvent>> {
    let url = url.to_string();
    Box::new((0..6u64).map(move |i| {
        if i == 3 {
            let t = Instant::now();
            while live.generation() == 0 && t.elapsed() < Duration::from_secs(60) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let group = if i < 3 { "before" } else { "after" };
        NewEvent {
            event_id: format!("{group}-{i}"),
            endpoint_id: "swap".into(),
            target: url.clone(),
            class: "storm".into(),
            at_ms: None,
        }
    }))
}

#[test]
fn a_swapped_artifact_takes_over_mid_run_and_events_keep_the_policy_they_were_admitted_under() {
    let broken = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let dir = std::env::temp_dir().join(format!("rpd-swap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("artifact.wasm");
    std::fs::write(&path, bundle(&doc(6))).unwrap();
    let next = bundle(&doc(2));
    let engine = PolicyEngine::load(ArtifactRef::Path(&path), None).unwrap();
    let live = Arc::new(live(engine, true, vec!["storm".into()]));
    let swapper = {
        let (path, next, tmp) = (path.clone(), next.clone(), dir.join("next.wasm"));
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            std::fs::write(&tmp, &next).unwrap();
            std::fs::rename(&tmp, &path).unwrap();
        })
    };
    let metrics = Arc::new(Metrics::default());
    let t = driver::run(Run {
        artifact: live.clone(),
        document: doc(6),
        redis: None,
        journal: None,
        store_bytes: Vec::new(),
        resume_bytes: None,
        metrics: metrics.clone(),
        config: DriverConfig { document_from_artifact: true, cap_in_progress: false, ..local_config() },
        source: events(&broken.url(), live.clone()),
        signals: Signals::none(),
        watch: Some((path.clone(), Duration::from_millis(20))),
        watch_policy: None,
        follow: None,
        needed: vec!["storm".into()],
        progress: None,
    })
    .unwrap();
    swapper.join().unwrap();
    assert_eq!(t.pending(), 0, "every event accounted: {:?}", t.stop_log);
    for s in &t.stop_log {
        let want = if s.event_id.starts_with("before") { 6 } else { 2 };
        assert_eq!((s.reason.as_str(), s.attempts), ("max_attempts_exhausted", want), "{s:?}");
    }
    assert_eq!(t.stop_log.len(), 6);
    let info = metrics.policy_info().unwrap();
    assert_eq!((info[0].as_str(), info[2].as_str()), (sha256_hex(&next).as_str(), "cap2"));
    assert!(metrics.render().contains("webhook_policy_reloads_total{result=\"applied\"} 1"));
    let _ = std::fs::remove_dir_all(dir);
}
