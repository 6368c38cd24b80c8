//! The window's edge (docs/replica.md): the deadline `first_attempt_ms +
//! window_ms` is re-checked immediately before the request is written,
//! after the wait, the store call, the DNS lookup and the connection; an
//! attempt past it is not sent and the event stops `retry_window_elapsed`.
//! A TLS handshake the server holds longer than the window puts the edge
//! between "connected" and "written".

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::http_client::{ClientConfig, Delivery, HttpClient, SendEdge};
use crate::tests::{dispatch_with, events, local_config};
use crate::tests_tls::{pki, slow_https_server};
use retry_policy_host::tls::TrustRoots;

fn client(ca: &crate::tests_tls::Pki) -> HttpClient {
    let trust = TrustRoots::only(vec![ca.ca_der.clone()]);
    HttpClient::new(ClientConfig { allow_private_targets: true, trust, ..ClientConfig::default() })
}

fn edge_in(ms: u64) -> SendEdge {
    SendEdge { deadline_ms: crate::clock::now_ms() + ms, clock_offset_ms: 0 }
}

#[test]
fn an_edge_already_passed_sends_nothing() {
    let p = pki();
    let (url, received) = slow_https_server(p.loopback.clone(), Duration::ZERO);
    let past = SendEdge { deadline_ms: crate::clock::now_ms().saturating_sub(1), clock_offset_ms: 0 };
    assert_eq!(client(&p).post_before(&url, &[], b"{}", Some(past)), Delivery::NotSent);
    assert_eq!(received.load(Ordering::SeqCst), 0);
}

#[test]
fn an_edge_passing_during_the_connection_sends_nothing_and_one_after_it_is_sent() {
    let p = pki();
    let (url, received) = slow_https_server(p.loopback.clone(), Duration::from_millis(400));
    assert_eq!(client(&p).post_before(&url, &[], b"{}", Some(edge_in(150))), Delivery::NotSent);
    assert_eq!(received.load(Ordering::SeqCst), 0, "nothing written past the edge");
    let got = client(&p).post_before(&url, &[], b"{}", Some(edge_in(5_000)));
    assert_eq!(got, Delivery::Response { status: 200, retry_after: None });
    assert_eq!(received.load(Ordering::SeqCst), 1);
}

#[test]
fn an_event_whose_window_ends_before_its_request_is_written_stops_retry_window_elapsed_unsent() {
    let p = pki();
    let (url, received) = slow_https_server(p.loopback.clone(), Duration::from_millis(500));
    let doc = r#"{"version":"w1","classes":{"storm":{"window_ms":150,"hard_cap":3,
        "backoff":{"base_ms":2,"factor":2.0,"cap_ms":20,"jitter":"full"},
        "budget":{"ratio":0.1,"window_ms":10000,"min_sample":1000,"sliding":true}}}}"#;
    let mut config = local_config();
    config.client.trust = TrustRoots::only(vec![p.ca_der.clone()]);
    let (records, metrics) = dispatch_with(config, doc, events(2, "edge", &url));
    assert_eq!(records.len(), 2);
    for r in &records {
        assert_eq!(
            (r.reason.as_str(), r.attempts),
            ("retry_window_elapsed", 0),
            "the unsent attempt is not counted: {r:?}"
        );
    }
    assert_eq!(metrics.counter("webhook_attempts_total", Some(("kind", "first"))), 0);
    assert_eq!(received.load(Ordering::SeqCst), 0);
}
