//! End-to-end tests of the dispatcher against real local endpoints and the
//! real artifact (`$RETRY_POLICY_ARTIFACT`, else the copy built into the
//! host library). Kept in the library's test binary so the
//! crate links wasmtime into one test executable only.

use std::sync::Arc;

use retry_policy_core::StopReason;
use retry_policy_host::PolicyEngine;

use crate::endpoints::Endpoint;
use crate::http_client::ClientConfig;
use crate::report::stop_reason_counts;
use crate::store::{EventStore, Status};
use crate::{BudgetStore, Dispatcher, DispatcherConfig, EventRecord, Metrics, NewEvent};

pub(crate) fn engine() -> PolicyEngine {
    PolicyEngine::load_default().expect("the policy artifact ($RETRY_POLICY_ARTIFACT or the embedded copy)")
}

pub(crate) fn doc(min_sample: u64) -> String {
    format!(
        r#"{{"version":"t1","classes":{{"storm":{{"window_ms":2000,"hard_cap":8,
        "backoff":{{"base_ms":2,"factor":2.0,"cap_ms":20,"jitter":"full"}},
        "budget":{{"ratio":0.1,"window_ms":10000,"min_sample":{min_sample},"sliding":true}}}}}}}}"#
    )
}

pub(crate) fn events(n: u64, endpoint: &str, url: &str) -> Box<dyn Iterator<Item = NewEvent> + Send> {
    let (e, u) = (endpoint.to_string(), url.to_string());
    Box::new((0..n).map(move |i| NewEvent {
        event_id: format!("{e}-{i}"),
        endpoint_id: e.clone(),
        target: u.clone(),
        class: "storm".into(),
        at_ms: None,
    }))
}

pub(crate) fn local_config() -> DispatcherConfig {
    let client = ClientConfig { allow_private_targets: true, ..ClientConfig::default() };
    DispatcherConfig { concurrency: 4, client, ..DispatcherConfig::default() }
}

pub(crate) fn dispatch_with(
    config: DispatcherConfig,
    budget: BudgetStore,
    document: &str,
    resumed: Vec<EventRecord>,
    src: Box<dyn Iterator<Item = NewEvent> + Send>,
) -> (Vec<EventRecord>, Arc<Metrics>) {
    let metrics = Arc::new(Metrics::default());
    let d = Dispatcher::start(
        engine(),
        document,
        &["storm"],
        budget,
        EventStore::in_memory(),
        metrics.clone(),
        config,
        resumed,
        src,
    )
    .expect("dispatcher starts")
    .wait();
    (d.store().all(), metrics)
}

pub(crate) fn dispatch(
    budget: BudgetStore,
    document: &str,
    src: Box<dyn Iterator<Item = NewEvent> + Send>,
) -> (Vec<EventRecord>, Arc<Metrics>) {
    let metrics = Arc::new(Metrics::default());
    let config = local_config();
    let d = Dispatcher::start(
        engine(),
        document,
        &["storm"],
        budget,
        EventStore::in_memory(),
        metrics.clone(),
        config,
        Vec::new(),
        src,
    )
    .expect("dispatcher starts")
    .wait();
    (d.store().all(), metrics)
}

#[test]
fn a_healthy_endpoint_gets_every_event_once_and_each_keeps_its_admitted_schedule() {
    let ok = Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let before = crate::dispatcher::now_ms();
    let (recs, m) = dispatch(BudgetStore::local(), &doc(50), events(30, "ok", &ok.url()));
    let after = crate::dispatcher::now_ms();
    assert_eq!(recs.len(), 30);
    assert_eq!(ok.stats.requests(), 30);
    assert_eq!(m.stops(StopReason::Delivered), 30);
    let mut policy =
        engine().instantiate(retry_policy_core::SystemClock, retry_policy_core::InMemoryStore::new()).unwrap();
    let d = policy.load_document(&doc(50)).unwrap();
    let expected = policy.admit(&d, "storm", before).unwrap();
    for r in &recs {
        assert_eq!((r.status, r.stop_reason, r.attempts), (Status::Delivered, Some(StopReason::Delivered), 1));
        assert!(before <= r.first_attempted_at_ms && r.first_attempted_at_ms <= after);
        assert_eq!(r.deadline_ms, r.first_attempted_at_ms + 2000);
        assert_eq!((r.max_attempts, &r.offsets_ms), (expected.schedule.max_attempts, &expected.schedule.offsets_ms));
        assert_eq!(r.policy_hash, expected.policy_hash);
        assert!(r.dead_letter.is_none());
    }
}

#[test]
fn a_gone_endpoint_dead_letters_at_once_as_terminal_and_asks_to_disable_the_endpoint() {
    let gone = Endpoint::start("127.0.0.1:0", 410, false).unwrap();
    let (recs, m) = dispatch(BudgetStore::local(), &doc(50), events(5, "gone", &gone.url()));
    for r in &recs {
        assert_eq!(r.stop_reason, Some(StopReason::TerminalResponse));
        assert!(r.disable_endpoint);
        let dl = r.dead_letter.as_ref().expect("a dead letter with the reason");
        assert_eq!(
            (dl.attempts, dl.stop_reason, dl.event_id.as_str()),
            (1, StopReason::TerminalResponse, r.event_id.as_str())
        );
    }
    assert!(m.render().contains("webhook_deadletter_total{stop_reason=\"terminal_response\"} 5\n"));
}

#[test]
fn a_broken_endpoint_flips_from_max_attempts_to_a_flood_of_budget_refusals() {
    let broken = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    // Quiet at first (one event every 25 ms: retries run free under the
    // sample floor of 20 attempts), then a burst of 290.
    let url = broken.url();
    let src = Box::new((0..300u64).map(move |i| NewEvent {
        event_id: format!("broken-{i}"),
        endpoint_id: "broken".into(),
        target: url.clone(),
        class: "storm".into(),
        at_ms: Some(if i < 10 { i * 25 } else { 250 }),
    }));
    let (recs, m) = dispatch(BudgetStore::local(), &doc(20), src);
    let (c, pending) = stop_reason_counts(&recs);
    assert_eq!(pending, 0);
    assert_eq!(c.values().sum::<u64>(), 300, "every event stopped with a reason");
    assert!(c["max_attempts_exhausted"] >= 1, "{c:?}");
    assert!(c["retry_budget_exhausted"] > 200, "{c:?}");
    let share = m.retries() as f64 / (m.retries() + m.first_attempts()) as f64;
    assert!(share < 0.2, "retry share {share}");
    let text = m.render();
    assert!(text.contains(&format!(
        "webhook_deadletter_total{{stop_reason=\"retry_budget_exhausted\"}} {}\n",
        c["retry_budget_exhausted"]
    )));
}

#[test]
fn an_unreachable_redis_makes_every_wanted_retry_budget_unavailable_and_loses_nothing() {
    let broken = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let budget = BudgetStore::redis("redis://127.0.0.1:1/0").unwrap();
    let (recs, m) = dispatch(budget, &doc(20), events(20, "down", &broken.url()));
    assert_eq!(recs.len(), 20);
    for r in &recs {
        assert_eq!((r.stop_reason, r.attempts), (Some(StopReason::BudgetUnavailable), 1), "{r:?}");
    }
    assert_eq!(broken.stats.requests(), 20, "no retry without the budget: it fails closed");
    assert!(m.render().contains("webhook_budget_store_errors_total 20\n"));
}

#[test]
fn a_refused_connection_is_a_retryable_connect_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let (recs, _) = dispatch(BudgetStore::local(), &doc(1000), events(2, "nobody", &url));
    for r in &recs {
        assert_eq!(r.last_outcome, "connect_error");
        assert_eq!(r.stop_reason, Some(StopReason::MaxAttemptsExhausted), "{r:?}");
        assert_eq!(r.attempts, r.max_attempts);
    }
}

#[test]
fn bad_configuration_is_refused_with_a_clear_message() {
    let start = |doc: &str, classes: &[&str], concurrency: usize| {
        let config = DispatcherConfig { concurrency, ..DispatcherConfig::default() };
        let src: Box<dyn Iterator<Item = NewEvent> + Send> = Box::new(std::iter::empty());
        Dispatcher::start(
            engine(),
            doc,
            classes,
            BudgetStore::local(),
            EventStore::in_memory(),
            Arc::default(),
            config,
            Vec::new(),
            src,
        )
        .err()
        .unwrap_or_default()
    };
    assert!(start(&doc(1), &["nope"], 4).contains("no event class `nope` (it has: storm)"));
    assert!(start(&doc(1), &["storm"], 0).contains("concurrency must be between 1 and 1024"));
    let bad = start(
        r#"{"version":"x","classes":{"a":{"window_ms":1000,"backoff":{"base_ms":0,"factor":2.0,"cap_ms":5}}}}"#,
        &[],
        1,
    );
    assert!(bad.starts_with("policy document: ") && bad.contains("base_ms"), "{bad}");
    assert!(BudgetStore::redis("localhost:6379").err().unwrap_or_default().contains("redis://"));
}

#[test]
fn the_journal_gives_back_the_newest_record_of_each_event_and_skips_a_torn_last_line() {
    let ok = Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let (recs, _) = dispatch(BudgetStore::local(), &doc(50), events(3, "j", &ok.url()));
    let dir = std::env::temp_dir().join(format!("dispatcher-journal-{}", std::process::id()));
    let _ = std::fs::remove_file(&dir);
    let store = EventStore::with_journal(&dir, &mut crate::tests_journal::hasher()).unwrap();
    let mut pending = recs[0].clone();
    pending.status = Status::Pending;
    pending.stop_reason = None;
    store.put(&pending).unwrap();
    for r in &recs {
        store.put(r).unwrap();
    }
    std::fs::write(&dir, std::fs::read_to_string(&dir).unwrap() + "0badc0de {\"event_id\": \"torn").unwrap();
    drop(store);
    let back = EventStore::read_journal(&dir, &mut crate::tests_journal::hasher()).unwrap();
    let _ = std::fs::remove_file(&dir);
    assert_eq!(back.len(), 3);
    for r in &recs {
        assert_eq!(back.iter().find(|b| b.event_id == r.event_id), Some(r));
    }
}

#[test]
fn a_loopback_target_is_refused_by_default_as_a_terminal_stop_without_a_request() {
    let ok = Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let config = DispatcherConfig { concurrency: 2, ..DispatcherConfig::default() };
    let (recs, m) = dispatch_with(config, BudgetStore::local(), &doc(50), Vec::new(), events(3, "internal", &ok.url()));
    assert_eq!(ok.stats.requests(), 0, "nothing was sent");
    for r in &recs {
        assert_eq!(
            (r.last_outcome.as_str(), r.stop_reason, r.attempts),
            ("destination_refused", Some(StopReason::TerminalResponse), 1)
        );
    }
    assert!(m.render().contains("webhook_transport_errors_total{kind=\"destination_refused\"} 3\n"));
}

#[test]
fn a_reloaded_event_past_its_window_is_dead_lettered_by_resume_without_a_request() {
    let ok = Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let (recs, _) = dispatch(BudgetStore::local(), &doc(50), events(2, "r", &ok.url()));
    let mut old = recs[0].clone();
    old.status = Status::Pending;
    old.stop_reason = None;
    old.first_attempted_at_ms -= 2_000; // exactly the 2 s window ago: elapsed >= window
    old.attempts = 1;
    let mut spent = recs[1].clone();
    spent.status = Status::Pending;
    spent.stop_reason = None;
    spent.attempts = spent.max_attempts;
    let before = ok.stats.requests();
    let none: Box<dyn Iterator<Item = NewEvent> + Send> = Box::new(std::iter::empty());
    let (back, _) = dispatch_with(local_config(), BudgetStore::local(), &doc(50), vec![old, spent], none);
    assert_eq!(ok.stats.requests(), before, "no request for a dead event");
    let reason = |id: &str| back.iter().find(|r| r.event_id == id).and_then(|r| r.stop_reason);
    assert_eq!(reason(&recs[0].event_id), Some(StopReason::RetryWindowElapsed));
    assert_eq!(reason(&recs[1].event_id), Some(StopReason::MaxAttemptsExhausted));
}
