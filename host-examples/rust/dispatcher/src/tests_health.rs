//! Format 3 in the dispatcher (docs/health-dispatch.md), end to end against
//! scripted loopback receivers and the real artifact: a `Retry-After`
//! pause, the circuit and its probe, budget-held retries and their wake,
//! a hold past the window. The clock is the wall clock (as every
//! dispatcher test's): instants are compared with the receiver's stamps.

use std::sync::Arc;

use retry_policy_core::StopReason;
use retry_policy_host::HoldReason;

use crate::store::{EventStore, Status};
use crate::tests::{engine, local_config};
use crate::tests_health_util::{health_doc, Receiver};
use crate::{BudgetStore, Dispatcher, EventRecord, Metrics, NewEvent};

/// `n` events of endpoint `ep` to `url`, the first at 0 ms, the others at `later_ms`.
pub(crate) fn events_at(n: u64, url: &str, later_ms: u64) -> Box<dyn Iterator<Item = NewEvent> + Send> {
    let u = url.to_string();
    Box::new((0..n).map(move |i| NewEvent {
        event_id: format!("ep-{i}"),
        endpoint_id: "ep".into(),
        target: u.clone(),
        class: "storm".into(),
        at_ms: Some(if i == 0 { 0 } else { later_ms }),
    }))
}

/// The documents here count in 60-s budget buckets (not sliding): a run that
/// crossed a bucket's edge would meet an empty bucket whose first reserve the
/// budget does not judge (`est_total < min_sample`). Start clear of the edge.
pub(crate) fn clear_of_bucket_edge() {
    let into_ms = crate::dispatcher::now_ms() % 60_000;
    if into_ms > 50_000 {
        std::thread::sleep(std::time::Duration::from_millis(60_000 - into_ms + 50));
    }
}

pub(crate) fn run(
    document: &str,
    concurrency: usize,
    store: EventStore,
    resumed: Vec<EventRecord>,
    src: Box<dyn Iterator<Item = NewEvent> + Send>,
) -> (Vec<EventRecord>, Arc<Metrics>) {
    clear_of_bucket_edge();
    run_with(BudgetStore::local(), document, concurrency, store, resumed, src)
}

/// [`run`] on the budget store given (no wait for the bucket's edge).
pub(crate) fn run_with(
    budget: BudgetStore,
    document: &str,
    concurrency: usize,
    store: EventStore,
    resumed: Vec<EventRecord>,
    src: Box<dyn Iterator<Item = NewEvent> + Send>,
) -> (Vec<EventRecord>, Arc<Metrics>) {
    let metrics = Arc::new(Metrics::default());
    let config = crate::DispatcherConfig { concurrency, ..local_config() };
    let d = Dispatcher::start(engine(), document, &["storm"], budget, store, metrics.clone(), config, resumed, src)
        .expect("dispatcher starts")
        .wait();
    (d.store().all(), metrics)
}

const NO_CIRCUIT: &str = "null";
const FAST_RELEASE: &str = r#"{"multiple":1.0,"floor_per_s":1000.0}"#;

#[test]
fn a_429_with_retry_after_pauses_the_endpoint_no_request_before_the_instant_and_the_held_events_go_after_it() {
    let rx = Receiver::start(Box::new(|i, _| if i == 0 { (429, Some("1")) } else { (200, None) }));
    let doc = health_doc(10_000, 50, 0.5, 50, NO_CIRCUIT, FAST_RELEASE);
    let (recs, m) = run(&doc, 2, EventStore::in_memory(), Vec::new(), events_at(6, &rx.url(), 300));
    let log = rx.arrivals();
    let paused_at = log[0].at_ms;
    assert_eq!(log[0].status, 429);
    for a in &log[1..] {
        assert!(
            a.at_ms >= paused_at + 1000,
            "{} attempt {} came {} ms after the 429",
            a.event_id,
            a.attempt,
            a.at_ms - paused_at
        );
    }
    assert_eq!(recs.len(), 6);
    assert!(recs.iter().all(|r| r.status == Status::Delivered), "{recs:#?}");
    assert_eq!(log.len(), 7, "each event once, the paused one twice");
    assert_eq!(m.health.holds(HoldReason::Paused), 5, "the five later events were held, not sent");
    let held: Vec<_> = recs.iter().filter(|r| r.event_id != "ep-0").collect();
    assert!(held.iter().all(|r| r.attempts == 1 && r.hold.held_ms >= 500), "a hold spends no attempt: {held:#?}");
    assert_eq!(m.health.held(), 0);
}

#[test]
fn failures_open_the_circuit_first_attempts_are_held_and_a_granted_probe_that_succeeds_closes_it() {
    let start = crate::dispatcher::now_ms();
    let rx = Receiver::start(Box::new(move |_, at| if at < start + 700 { (503, None) } else { (200, None) }));
    let circuit = r#"{"failure_ratio":0.5,"min_sample":3,"cooldown_ms":400,"cooldown_max_ms":2000,"probes":1,"probe_interval_ms":200}"#;
    let release = r#"{"multiple":1.0,"floor_per_s":5.0}"#;
    let doc = health_doc(20_000, 60, 0.5, 1_000, circuit, release);
    let (recs, m) = run(&doc, 3, EventStore::in_memory(), Vec::new(), events_at(12, &rx.url(), 200));
    assert!(recs.iter().all(|r| r.status == Status::Delivered), "{recs:#?}");
    let log = rx.arrivals();
    let failed = log.iter().filter(|a| a.status == 503).count() as u64;
    let (granted, calls) = (m.health.probes_granted(), m.health.probe_calls());
    assert!(granted >= 1, "a probe was granted ({calls} probe calls)");
    assert!(m.health.holds(HoldReason::CircuitOpen) >= 9, "the later events' first attempts were held");
    // Only the three opening failures, the events already retrying and the probes met the sick endpoint.
    assert!(failed <= 3 + 3 + granted, "{failed} requests failed; {granted} probes granted");
    let first_ok = log.iter().find(|a| a.status == 200).expect("a success").at_ms;
    let late_firsts = log.iter().filter(|a| a.attempt == 1 && a.at_ms >= first_ok).count();
    assert!(late_firsts >= 8, "held first attempts went after the circuit closed ({late_firsts})");
    assert!(m.health.holds(HoldReason::ReleasePacing) >= 1, "the held events left paced (5 per second)");
}

#[test]
fn a_budget_refusal_holds_instead_of_dead_lettering_and_the_wake_makes_one_reserve_then_sends() {
    let rx = Receiver::start(Box::new(|i, _| if i == 0 { (503, None) } else { (200, None) }));
    // ratio 0.1 over min_sample 1: the first retry (1 of 1) is refused; after
    // 19 more first attempts, 1 of 20 is allowed.
    let doc = health_doc(10_000, 400, 0.1, 1, NO_CIRCUIT, FAST_RELEASE);
    let (recs, m) = run(&doc, 4, EventStore::in_memory(), Vec::new(), events_at(20, &rx.url(), 100));
    assert!(recs.iter().all(|r| r.status == Status::Delivered), "{recs:#?}");
    let first = recs.iter().find(|r| r.event_id == "ep-0").unwrap();
    assert_eq!(first.attempts, 2);
    assert!(first.hold.held_ms >= 300 && !first.hold.needs_reserve);
    assert_eq!(m.health.holds(HoldReason::BudgetRefused), 1);
    assert_eq!(m.health.wake_calls(), 1, "one reserve at the wake");
    assert_eq!(m.stops(StopReason::RetryBudgetExhausted), 0, "held, not dead-lettered");
    assert_eq!(rx.arrivals().len(), 21);
}

#[test]
fn an_event_held_past_its_window_is_dead_lettered_retry_window_elapsed_with_its_held_ms() {
    let rx = Receiver::start(Box::new(|_, _| (503, None)));
    let doc = health_doc(1_500, 200, 0.1, 1, NO_CIRCUIT, FAST_RELEASE);
    let (recs, m) = run(&doc, 1, EventStore::in_memory(), Vec::new(), events_at(1, &rx.url(), 0));
    let r = &recs[0];
    assert_eq!((r.status, r.stop_reason, r.attempts), (Status::DeadLettered, Some(StopReason::RetryWindowElapsed), 1));
    // Held from the first attempt's failure until the wake that found the
    // window elapsed: at least most of the 1.5 s window, and never more than
    // the event's whole life (a late wake on a loaded machine adds to both).
    let lived_ms = r.finished_at_ms - r.first_attempted_at_ms;
    assert!(r.hold.held_ms >= 1_000 && r.hold.held_ms <= lived_ms, "held_ms {} of {lived_ms}", r.hold.held_ms);
    assert_eq!(r.dead_letter.as_ref().unwrap().stop_reason, StopReason::RetryWindowElapsed);
    assert_eq!(rx.arrivals().len(), 1, "a hold spends no attempt");
    let holds = m.health.holds(HoldReason::BudgetRefused);
    assert!(holds >= 2);
    assert_eq!(m.health.wake_calls(), holds - 1, "every hold but the last ended in one reserve");
    assert_eq!(m.health.held(), 0);
}

#[test]
fn a_format_2_document_makes_no_hold_no_probe_and_no_wake() {
    let rx = Receiver::start(Box::new(|i, _| if i < 3 { (503, None) } else { (200, None) }));
    let (recs, m) = run(&crate::tests::doc(50), 2, EventStore::in_memory(), Vec::new(), events_at(4, &rx.url(), 0));
    assert!(recs.iter().all(|r| r.status == Status::Delivered && r.health.is_none() && r.hold == Default::default()));
    let holds: u64 = crate::metrics_health::HOLD_REASONS.iter().map(|r| m.health.holds(*r)).sum();
    assert_eq!((holds, m.health.probe_calls(), m.health.wake_calls()), (0, 0, 0));
}
