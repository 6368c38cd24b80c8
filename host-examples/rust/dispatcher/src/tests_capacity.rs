//! The replica's bound on open events (docs/replica.md: `--concurrency C`
//! events in progress, waits for a retry included) is the engine's
//! `max_open`: the driver offers, after a batch's results, the admissions
//! they may free in the same feed, and takes again those the engine refuses
//! `at_capacity`. Held here: never more than C open, no refused admission
//! lost, every event delivered exactly once.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use crate::driver::{DriverConfig, NewEvent};
use crate::http_server::{Request, Response, Server};
use crate::tests::{events, local_config, run_with};

/// Every first attempt is answered 503 (the event then waits for its retry,
/// open and not busy: the place a driver that over-admits fills), every
/// later one 200. The endpoint's open set (a first attempt seen, no 200
/// answered yet) is a subset of the engine's open events at every instant.
#[derive(Default)]
struct Seen {
    open: BTreeSet<String>,
    most_open: usize,
    delivered: BTreeMap<String, u32>,
}

fn endpoint() -> (Server, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s = seen.clone();
    let server = Server::start("127.0.0.1:0", move |req: &Request| {
        let (id, attempt) = (req.header("x-event-id").unwrap_or("?").to_string(), req.header("x-attempt"));
        let mut s = s.lock().unwrap();
        if attempt == Some("1") {
            s.open.insert(id);
            s.most_open = s.most_open.max(s.open.len());
            Response::text(503, "not yet")
        } else {
            s.open.remove(&id);
            *s.delivered.entry(id).or_default() += 1;
            Response::text(200, "ok")
        }
    })
    .unwrap();
    (server, seen)
}

/// No budget in the way (ratio 1.0): every event's one retry is allowed.
const DOCUMENT: &str = r#"{"version":"cap","classes":{"storm":{"window_ms":10000,"hard_cap":8,
    "backoff":{"base_ms":10,"factor":2.0,"cap_ms":40,"jitter":"full"},
    "budget":{"ratio":1.0,"window_ms":10000,"min_sample":10,"sliding":true}}}}"#;

#[test]
fn the_replica_never_has_more_than_concurrency_open_events_and_loses_no_refused_admission() {
    let (server, seen) = endpoint();
    let config = DriverConfig { concurrency: 2, ..local_config() };
    let (t, _) = run_with(config, None, DOCUMENT, events(120, "cap", &server.url("/hook"))).unwrap();
    assert_eq!((t.events(), t.stops["delivered"], t.pending()), (120, 120, 0), "{:?}", t.stops);
    assert_eq!((t.first_attempts, t.retries), (120, 120));
    let s = seen.lock().unwrap();
    assert!(s.most_open <= 2, "{} events open at once at the endpoint, with --concurrency 2", s.most_open);
    let expected: BTreeMap<String, u32> = (0..120).map(|i| (format!("cap-{i}"), 1)).collect();
    assert_eq!(s.delivered, expected, "every event delivered exactly once");
}

#[test]
fn an_admission_the_engine_refuses_for_another_reason_ends_the_run_with_its_code() {
    let (server, _) = endpoint();
    let url = server.url("/hook");
    // On its own thread: a driver that ignored the refusal would wait for
    // the event forever (120 s is a hang, not a speed).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let src = Box::new((0..3u64).map(move |i| NewEvent {
            event_id: format!("nope-{i}"),
            endpoint_id: "nope".into(),
            target: url.clone(),
            class: "no_such_class".into(),
            at_ms: None,
        }));
        let _ = tx.send(run_with(local_config(), None, DOCUMENT, src).map(|_| ()));
    });
    let ended = rx.recv_timeout(std::time::Duration::from_secs(120)).expect("the run ends");
    let err = ended.expect_err("the run cannot go on");
    assert!(err.contains("nope-0") && err.contains("unknown_event_class"), "{err}");
}
