use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::*;

/// One request on a fresh connection: (status, Retry-After header, body).
fn request(ep: &Endpoint, method: &str, path: &str) -> (u16, Option<String>, String) {
    let mut s = TcpStream::connect(ep.server.addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "{method} {path} HTTP/1.1\r\nHost: x\r\nX-Attempt: 1\r\nX-Event-Id: e\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let (head, body) = out.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let ra =
        head.lines().find_map(|l| l.to_ascii_lowercase().strip_prefix("retry-after:").map(|v| v.trim().to_string()));
    (status, ra, body.to_string())
}

#[test]
fn a_plain_status_parses_as_a_fixed_endpoint() {
    assert_eq!(Spec::parse("503"), Ok(Spec::fixed(503)));
    assert!(Spec::parse("600").is_err());
    assert!(Spec::parse("ok").is_err());
}

#[test]
fn the_down_form_parses_its_statuses_retry_after_and_duration() {
    let d = Spec::parse("503~200@5000").unwrap();
    assert_eq!(d, Spec { status: 200, down: Some(Down { status: 503, retry_after_s: None, down_ms: 5000 }) });
    let ra = Spec::parse("429+RA3~200@4000").unwrap();
    assert_eq!(ra.down, Some(Down { status: 429, retry_after_s: Some(3), down_ms: 4000 }));
}

#[test]
fn a_malformed_down_form_is_an_error_naming_the_spec() {
    for bad in ["503~200", "503~200@x", "503~200@-1", "503+3~200@10", "503+RA~200@10", "5x~200@10", "503~700@10"] {
        let e = Spec::parse(bad).unwrap_err();
        assert!(e.contains(bad), "{bad}: {e}");
    }
}

#[test]
fn a_down_endpoint_answers_down_from_its_first_post_then_healthy_forever() {
    let spec = Spec::parse("429+RA2~200@400").unwrap();
    let ep = Endpoint::start_spec("127.0.0.1:0", spec, true).unwrap();
    // A stats read does not start the outage's clock.
    std::thread::sleep(Duration::from_millis(500));
    let (_, _, stats) = request(&ep, "GET", "/__stats");
    assert!(stats.contains("\"up_at_ms\":null"), "{stats}");
    let t0 = crate::clock::now_ms();
    assert_eq!(request(&ep, "POST", "/webhook").0, 429);
    let (status, ra, _) = request(&ep, "POST", "/webhook");
    assert_eq!((status, ra.as_deref()), (429, Some("2")));
    let up_at = ep.stats.up_at_ms().unwrap();
    assert!(up_at >= t0 + 400 && up_at <= t0 + 600, "up_at_ms {up_at}, first POST at ~{t0}");
    std::thread::sleep(Duration::from_millis(up_at.saturating_sub(crate::clock::now_ms()) + 20));
    for _ in 0..3 {
        assert_eq!(request(&ep, "POST", "/webhook"), (200, None, "{\"status\":200}".to_string()));
    }
    assert_eq!(ep.stats.requests(), 5);
    assert_eq!(ep.stats.log_lines().lines().count(), 5);
}

#[test]
fn a_fixed_endpoint_never_changes_its_answer_and_reports_no_outage() {
    let ep = Endpoint::start("127.0.0.1:0", 503, false).unwrap();
    assert_eq!(request(&ep, "POST", "/webhook").0, 503);
    assert_eq!(ep.stats.up_at_ms(), None);
    assert!(!ep.stats.to_json().to_string().contains("up_at_ms"));
}
