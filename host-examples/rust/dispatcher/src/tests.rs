//! End-to-end tests of the dispatcher (the driver and the engine in the
//! real artifact: `$RETRY_POLICY_ARTIFACT`, else the copy built into the
//! host library) against real local endpoints. Kept in the library's test
//! binary so the crate links wasmtime into one test executable only.

use std::sync::Arc;

use retry_policy_host::{ArtifactRef, PolicyEngine};

use crate::artifact_reload::live;
use crate::drain::Signals;
use crate::driver::{self, DriverConfig, NewEvent, Run, Stop, Tally};
use crate::endpoints::Endpoint;
use crate::http_client::ClientConfig;
use crate::redis_store::RedisStore;
use crate::Metrics;
use retry_policy_host::tls::TrustRoots;

pub(crate) fn engine() -> PolicyEngine {
    PolicyEngine::load(ArtifactRef::Default, None)
        .expect("the policy artifact ($RETRY_POLICY_ARTIFACT or the embedded copy)")
}

pub(crate) fn doc(min_sample: u64) -> String {
    format!(
        r#"{{"version":"t1","classes":{{"storm":{{"window_ms":2000,"hard_cap":8,
        "backoff":{{"base_ms":2,"factor":2.0,"cap_ms":20,"jitter":"full"}},
        "budget":{{"ratio":0.1,"window_ms":10000,"min_sample":{min_sample},"sliding":true}}}}}}}}"#
    )
}

pub(crate) fn events(n: u64, endpoint: &str, url: &str) -> Box<dyn Iterator<Item = NewEvent>> {
    let (e, u) = (endpoint.to_string(), url.to_string());
    Box::new((0..n).map(move |i| NewEvent {
        event_id: format!("{e}-{i}"),
        endpoint_id: e.clone(),
        target: u.clone(),
        class: "storm".into(),
        at_ms: None,
    }))
}

pub(crate) fn local_config() -> DriverConfig {
    let client = ClientConfig { allow_private_targets: true, ..ClientConfig::default() };
    DriverConfig { concurrency: 4, client, record_stops: true, ..DriverConfig::default() }
}

/// A run as the REPLICA runs it, minus the command line.
pub(crate) fn run_with(
    config: DriverConfig,
    redis: Option<Arc<RedisStore>>,
    document: &str,
    src: Box<dyn Iterator<Item = NewEvent>>,
) -> Result<(Tally, Arc<Metrics>), String> {
    let metrics = Arc::new(Metrics::default());
    let t = driver::run(Run {
        artifact: Arc::new(live(engine(), false, Vec::new())),
        document: document.to_string(),
        redis,
        journal: None,
        store_bytes: Vec::new(),
        resume_bytes: None,
        metrics: metrics.clone(),
        config,
        source: src,
        signals: Signals::none(),
        watch: None,
        watch_policy: None,
        follow: None,
        needed: Vec::new(),
        progress: None,
    })?;
    Ok((t, metrics))
}

/// Every event's stop, from a run that ends by itself.
pub(crate) fn dispatch_with(
    config: DriverConfig,
    document: &str,
    src: Box<dyn Iterator<Item = NewEvent>>,
) -> (Vec<Stop>, Arc<Metrics>) {
    let (t, m) = run_with(config, None, document, src).expect("the run ends");
    assert_eq!(t.pending(), 0, "every event stopped");
    (t.stop_log, m)
}

fn counter(m: &Metrics, name: &str, label: Option<(&str, &str)>) -> u64 {
    m.counter(name, label)
}

#[test]
fn a_healthy_endpoint_gets_every_event_once_and_each_is_delivered_on_its_first_attempt() {
    let ok = Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let (stops, m) = dispatch_with(local_config(), &doc(50), events(30, "ok", &ok.url()));
    assert_eq!(stops.len(), 30);
    assert_eq!(ok.stats.requests(), 30);
    assert!(stops.iter().all(|s| (s.reason.as_str(), s.attempts) == ("delivered", 1)), "{stops:?}");
    assert_eq!(counter(&m, "webhook_delivered_total", None), 30);
    assert_eq!(counter(&m, "webhook_attempts_total", Some(("kind", "first"))), 30);
}

#[test]
fn a_gone_endpoint_dead_letters_at_once_as_terminal_and_asks_to_disable_the_endpoint() {
    let gone = Endpoint::start("127.0.0.1:0", 410, false).unwrap();
    let (stops, m) = dispatch_with(local_config(), &doc(50), events(5, "gone", &gone.url()));
    assert!(stops.iter().all(|s| (s.reason.as_str(), s.attempts) == ("terminal_response", 1)), "{stops:?}");
    assert_eq!(counter(&m, "webhook_endpoint_disable_signals_total", None), 5);
    assert!(m.render().contains("webhook_deadletter_total{stop_reason=\"terminal_response\"} 5\n"));
}

#[test]
fn a_broken_endpoint_flips_from_max_attempts_to_a_flood_of_budget_refusals() {
    let broken = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    // Quiet at first: one event alone for 400 ms (its 8 attempts, 90 ms of
    // backoff at most, all under the sample floor of 20: it runs out of
    // attempts however slow the machine), then one every 25 ms, then a burst
    // of 290. (With the first ten 25 ms apart, a loaded machine let the
    // sample fill before any event ran out: no M before the flip.)
    let url = broken.url();
    let src = Box::new((0..300u64).map(move |i| NewEvent {
        event_id: format!("broken-{i}"),
        endpoint_id: "broken".into(),
        target: url.clone(),
        class: "storm".into(),
        at_ms: Some(match i {
            0 => 0,
            1..10 => 400 + i * 25,
            _ => 650,
        }),
    }));
    let config = DriverConfig { cap_in_progress: false, ..local_config() };
    let (t, m) = run_with(config, None, &doc(20), src).unwrap();
    assert_eq!(t.pending(), 0);
    assert_eq!(t.stops.values().sum::<u64>(), 300, "every event stopped with a reason");
    assert!(t.stops["max_attempts_exhausted"] >= 1, "{:?}", t.stops);
    assert!(t.stops["retry_budget_exhausted"] > 200, "{:?}", t.stops);
    let first_b = t.stop_log.iter().position(|s| s.reason == "retry_budget_exhausted").unwrap();
    assert!(t.stop_log[..first_b].iter().any(|s| s.reason == "max_attempts_exhausted"), "M before the flip");
    let share = t.retries as f64 / (t.retries + t.first_attempts) as f64;
    assert!(share < 0.2, "retry share {share}");
    assert!(m.render().contains(&format!(
        "webhook_deadletter_total{{stop_reason=\"retry_budget_exhausted\"}} {}\n",
        t.stops["retry_budget_exhausted"]
    )));
}

#[test]
fn an_unreachable_redis_makes_every_wanted_retry_budget_unavailable_and_loses_nothing() {
    let broken = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let redis = RedisStore::new("redis://127.0.0.1:1/0", std::time::Duration::from_millis(250), &TrustRoots::default())
        .unwrap();
    let (t, m) = run_with(local_config(), Some(Arc::new(redis)), &doc(20), events(20, "down", &broken.url())).unwrap();
    assert_eq!(t.stop_log.len(), 20);
    assert!(t.stop_log.iter().all(|s| (s.reason.as_str(), s.attempts) == ("budget_unavailable", 1)), "{t:?}");
    assert_eq!(broken.stats.requests(), 20, "no retry without the budget: it fails closed");
    assert!(m.render().contains("webhook_budget_store_errors_total 20\n"));
    assert_eq!(t.summary(&m)["store_errors"], 20);
}

#[test]
fn a_refused_connection_is_a_retryable_connect_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let (stops, m) = dispatch_with(local_config(), &doc(1000), events(2, "nobody", &url));
    assert!(stops.iter().all(|s| (s.reason.as_str(), s.attempts) == ("max_attempts_exhausted", 8)), "{stops:?}");
    assert_eq!(counter(&m, "webhook_transport_errors_total", Some(("kind", "connect_error"))), 16);
}

#[test]
fn bad_configuration_is_refused_with_a_clear_message() {
    let none = || -> Box<dyn Iterator<Item = NewEvent>> { Box::new(std::iter::empty()) };
    let err = |config: DriverConfig, doc: &str| run_with(config, None, doc, none()).err().unwrap_or_default();
    let zero = DriverConfig { concurrency: 0, ..local_config() };
    assert!(err(zero, &doc(1)).contains("concurrency must be between 1 and 1024"));
    let bad = err(
        local_config(),
        r#"{"version":"x","classes":{"a":{"window_ms":1000,"backoff":{"base_ms":0,"factor":2.0,"cap_ms":5}}}}"#,
    );
    assert!(bad.starts_with("policy document: ") && bad.contains("base_ms"), "{bad}");
    let url = RedisStore::new("localhost:6379", std::time::Duration::from_millis(10), &TrustRoots::default());
    assert!(url.err().map(|e| e.to_string()).unwrap_or_default().contains("redis://"));
}

#[test]
fn a_loopback_target_is_refused_by_default_as_a_terminal_stop_without_a_request() {
    let ok = Endpoint::start("127.0.0.1:0", 200, false).unwrap();
    let config = DriverConfig { concurrency: 2, record_stops: true, ..DriverConfig::default() };
    let (stops, m) = dispatch_with(config, &doc(50), events(3, "internal", &ok.url()));
    assert_eq!(ok.stats.requests(), 0, "nothing was sent");
    assert!(stops.iter().all(|s| (s.reason.as_str(), s.attempts) == ("terminal_response", 1)), "{stops:?}");
    assert!(m.render().contains("webhook_transport_errors_total{kind=\"destination_refused\"} 3\n"));
}

#[test]
fn a_watched_policy_file_becomes_current_for_new_events_and_a_broken_edit_keeps_the_last_good_one() {
    let broken = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    let dir = std::env::temp_dir().join(format!("rpd-watch-policy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("policy.json");
    let doc_with = |cap: u32| {
        format!(
            r#"{{"version":"cap{cap}","classes":{{"storm":{{"window_ms":5000,"hard_cap":{cap},
            "backoff":{{"base_ms":2,"factor":2.0,"cap_ms":5,"jitter":"none"}},
            "budget":{{"ratio":1.0,"window_ms":10000,"min_sample":1000000,"sliding":true}}}}}}}}"#
        )
    };
    std::fs::write(&path, doc_with(6)).unwrap();
    let writer = {
        let (path, late) = (path.clone(), doc_with(2));
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(400));
            std::fs::write(&path, &late).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(600));
            std::fs::write(&path, "{ not json").unwrap();
        })
    };
    // Two events at once, two after the good edit, two after the broken one.
    let url = broken.url();
    let src = Box::new((0..6u64).map(move |i| NewEvent {
        event_id: format!("w-{i}"),
        endpoint_id: "w".into(),
        target: url.clone(),
        class: "storm".into(),
        at_ms: Some([0, 0, 800, 800, 1600, 1600][i as usize]),
    }));
    let metrics = Arc::new(Metrics::default());
    let t = driver::run(Run {
        artifact: Arc::new(live(engine(), false, Vec::new())),
        document: doc_with(6),
        redis: None,
        journal: None,
        store_bytes: Vec::new(),
        resume_bytes: None,
        metrics: metrics.clone(),
        config: DriverConfig { cap_in_progress: false, ..local_config() },
        source: src,
        signals: Signals::none(),
        watch: None,
        watch_policy: Some((path.clone(), std::time::Duration::from_millis(50))),
        follow: None,
        needed: vec!["storm".into()],
        progress: None,
    })
    .unwrap();
    writer.join().unwrap();
    let attempts = |id: &str| t.stop_log.iter().find(|s| s.event_id == id).map(|s| s.attempts);
    assert_eq!((attempts("w-0"), attempts("w-1")), (Some(6), Some(6)), "admitted under the first document");
    assert_eq!((attempts("w-2"), attempts("w-3")), (Some(2), Some(2)), "admitted under the reloaded one");
    assert_eq!((attempts("w-4"), attempts("w-5")), (Some(2), Some(2)), "the broken edit kept the last good one");
    assert_eq!(metrics.policy_reloads(), (1, 1));
    let _ = std::fs::remove_dir_all(dir);
}
