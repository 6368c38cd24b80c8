//! A budget-held wake's `reserve` reply gates the send once more
//! (docs/health-dispatch.md step 3, draft 3 item 2): two dispatchers on one
//! real `redis-server`; B's receiver asks for a pause while A's event is
//! held by the budget, so A learns of the pause only from its wake's own
//! `reserve` reply, and must hold on it, keeping the reservation.

use std::sync::Arc;
use std::time::Duration;

use retry_policy_host::HoldReason;

use crate::store::{EventStore, Status};
use crate::tests_health::{events_at, run_with};
use crate::tests_health_util::{health_doc, Receiver};
use crate::tests_redis_server::RedisServer;
use crate::{BudgetStore, EventRecord, Metrics, NewEvent};

fn run_on(
    url: &str,
    document: &str,
    src: Box<dyn Iterator<Item = NewEvent> + Send>,
) -> (Vec<EventRecord>, Arc<Metrics>) {
    let budget = BudgetStore::redis(url).expect("a Redis store");
    run_with(budget, document, 20, EventStore::in_memory(), Vec::new(), src)
}

#[test]
fn a_woken_budget_held_retry_holds_on_the_pause_its_own_reserve_reply_shows_and_keeps_the_reservation() {
    let Some(server) = RedisServer::start("health-wake", &[], None) else { return };
    crate::tests_health::clear_of_bucket_edge();
    let url = format!("redis://127.0.0.1:{}/0", server.port);
    // ratio 0.1 over min_sample 1: A's first retry (1 of 1) is refused and held
    // 800 ms; B's 20 first attempts meanwhile make A's wake reserve (1 of 21) allowed.
    let doc = health_doc(20_000, 800, 0.1, 1, "null", r#"{"multiple":1.0,"floor_per_s":1000.0}"#);
    let rx_a = Receiver::start(Box::new(|i, _| if i == 0 { (503, None) } else { (200, None) }));
    let rx_b = Receiver::start(Box::new(|i, _| if i == 19 { (429, Some("3")) } else { (200, None) }));
    let (url_a, doc_a) = (url.clone(), doc.clone());
    let a = std::thread::spawn(move || {
        let r = run_on(&url_a, &doc_a, events_at(1, &rx_a.url(), 0));
        (r, rx_a)
    });
    // B starts once A's first reply (no pause in it) is in: A's view shows nothing ahead.
    std::thread::sleep(Duration::from_millis(200));
    let (recs_b, _) = run_on(&url, &doc, events_at(20, &rx_b.url(), 0));
    let ((recs_a, m_a), rx_a) = a.join().expect("A's thread");
    assert!(recs_b.iter().all(|r| r.status == Status::Delivered));
    let pause_at = rx_b.arrivals().iter().find(|x| x.status == 429).expect("B's 429").at_ms;
    let log_a = rx_a.arrivals();
    assert_eq!(recs_a[0].status, Status::Delivered, "{recs_a:#?}");
    assert_eq!(log_a.len(), 2, "A's event: its first attempt and one retry");
    assert!(
        log_a[1].at_ms + 100 >= pause_at + 3_000,
        "A's retry went {} ms after B's 429 asked for 3 s",
        log_a[1].at_ms - pause_at
    );
    assert_eq!(m_a.health.holds(HoldReason::BudgetRefused), 1);
    assert_eq!(m_a.health.holds(HoldReason::Paused), 1, "held on its reserve reply's pause");
    assert_eq!(m_a.health.wake_calls(), 1, "the reservation was kept: no second reserve");
}
