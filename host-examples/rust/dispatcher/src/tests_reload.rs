//! Policy reload without a restart: an explicit call and a file watch,
//! validated before the swap, events keeping what they were admitted under.

use std::sync::Arc;
use std::time::{Duration, Instant};

use retry_policy_core::StopReason;

use crate::endpoints::Endpoint;
use crate::tests::{engine, local_config};
use crate::{BudgetStore, Dispatcher, EventStore, Metrics, NewEvent};

/// A slow schedule with a long window (`a`) and a fast one whose window
/// ends after the second attempt (`b`); the budget never engages.
fn policy(version: &str, window_ms: u64, base_ms: u64, cap_ms: u64) -> String {
    format!(
        r#"{{"version":"{version}","classes":{{"storm":{{"window_ms":{window_ms},"hard_cap":6,
        "backoff":{{"base_ms":{base_ms},"factor":2.0,"cap_ms":{cap_ms},"jitter":"none"}},
        "budget":{{"ratio":1.0,"window_ms":10000,"min_sample":1000000,"sliding":true}}}}}}}}"#
    )
}

fn timed(prefix: &str, n: u64, at_ms: u64, url: &str) -> Vec<NewEvent> {
    (0..n)
        .map(|i| NewEvent {
            event_id: format!("{prefix}-{i}"),
            endpoint_id: "reload".into(),
            target: url.to_string(),
            class: "storm".into(),
            at_ms: Some(at_ms),
        })
        .collect()
}

fn start(doc: &str, src: Vec<NewEvent>) -> (Dispatcher, Arc<Metrics>) {
    let m = Arc::new(Metrics::default());
    let d = Dispatcher::start(
        engine(),
        doc,
        &["storm"],
        BudgetStore::local(),
        EventStore::in_memory(),
        m.clone(),
        local_config(),
        Vec::new(),
        Box::new(src.into_iter()),
    )
    .unwrap();
    (d, m)
}

fn until(what: &str, f: impl Fn() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < Duration::from_secs(10), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn events_in_flight_keep_the_policy_they_were_admitted_under_and_new_ones_get_the_reloaded_one() {
    let broken = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let mut src = timed("old", 4, 0, &broken.url());
    src.extend(timed("new", 4, 1000, &broken.url()));
    let (d, m) = start(&policy("a", 5000, 40, 80), src);
    until("the old events' first attempts", || broken.stats.requests() >= 4);
    assert_eq!(d.reload_policy(&policy("b", 60, 50, 50)), Ok("b".into()));
    assert_eq!(d.policy_version(), "b");
    let recs = d.wait().store().all();
    for r in &recs {
        let expected = if r.event_id.starts_with("old") {
            // 6 attempts 40..80 ms apart: under `b` (60 ms window) they would
            // have stopped at the window after 2.
            ("a", 6, 6)
        } else {
            // `b` admits 2 attempts (0, 50 ms) within its window.
            ("b", 2, 2)
        };
        let got = (r.policy_version.as_str(), r.max_attempts, r.attempts);
        assert_eq!((got, r.stop_reason), (expected, Some(StopReason::MaxAttemptsExhausted)), "{r:?}");
    }
    assert_eq!(m.policy_reloads(), (1, 0));
}

#[test]
fn a_bad_document_or_one_without_a_needed_class_is_refused_and_the_old_one_kept() {
    let (d, m) = start(&policy("a", 5000, 40, 80), Vec::new());
    let e = d.reload_policy("{not json").unwrap_err();
    assert!(e.starts_with("policy document refused, the current one is kept: "), "{e}");
    let e = d.reload_policy(&policy("c", 5000, 0, 80)).unwrap_err();
    assert!(e.contains("base_ms"), "{e}");
    let e = d.reload_policy(&policy("d", 5000, 40, 80).replace("\"storm\"", "\"other\"")).unwrap_err();
    assert!(e.contains("no event class `storm` (it has: other)"), "{e}");
    assert_eq!(d.policy_version(), "a");
    assert_eq!(m.policy_reloads(), (0, 3));
    assert!(m.render().contains("webhook_policy_reloads_total{result=\"refused\"} 3\n"));
    d.wait();
}

#[test]
fn a_watched_policy_file_is_reloaded_when_it_changes_and_a_broken_edit_keeps_the_last_good_one() {
    let dir = std::env::temp_dir().join(format!("rpd-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("policy.json");
    std::fs::write(&path, policy("a", 5000, 40, 80)).unwrap();
    let ok = Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    // One late event keeps the dispatcher running while the file changes.
    let (d, m) = start(&policy("a", 5000, 40, 80), timed("late", 1, 1500, &ok.url()));
    d.watch_policy(&path, Duration::from_millis(20));
    std::fs::write(&path, policy("b2", 60, 50, 50)).unwrap();
    until("the reload", || d.policy_version() == "b2");
    std::fs::write(&path, "{\"version\": \"half-writ").unwrap();
    until("the refusal", || m.policy_reloads().1 == 1);
    assert_eq!(d.policy_version(), "b2");
    let recs = d.wait().store().all();
    assert_eq!(recs[0].policy_version, "b2", "the late event was admitted under the reloaded document");
    let _ = std::fs::remove_dir_all(dir);
}
