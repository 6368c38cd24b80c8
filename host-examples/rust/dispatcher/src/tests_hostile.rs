//! Hostile endpoints against the real HTTP client: each raw TCP server
//! below misbehaves in one way; every attempt must end with the contract's
//! kind, within the attempt deadline, without a panic or unbounded memory.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use crate::http_client::{ClientConfig, Delivery, HttpClient};
use crate::tests::{dispatch_with, doc, events, local_config};

/// Serve `answer` to every connection (after reading the request head).
/// Reads one request whole (headers, then `Content-Length` bytes of body),
/// so an answer written next never meets request bytes still arriving: a
/// socket closed with unread bytes resets, and under load the client then
/// saw a transport error instead of the answer (a flaky retry).
fn read_request(c: &mut TcpStream) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while got.len() < 1 << 20 {
        if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
            let body = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:").and_then(|v| v.trim().parse::<usize>().ok()))
                .unwrap_or(0);
            if got.len() >= end + 4 + body {
                return;
            }
        }
        match c.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

fn hostile(answer: fn(&mut TcpStream)) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hook", l.local_addr().unwrap());
    thread::spawn(move || {
        for c in l.incoming().flatten() {
            thread::spawn(move || {
                let mut c = c;
                let _ = c.set_read_timeout(Some(Duration::from_millis(500)));
                read_request(&mut c);
                answer(&mut c);
            });
        }
    });
    url
}

fn client(deadline_ms: u64) -> HttpClient {
    HttpClient::new(ClientConfig {
        allow_private_targets: true,
        attempt_deadline_ms: deadline_ms,
        ..ClientConfig::default()
    })
}

fn post(url: &str, deadline_ms: u64) -> (Delivery, Duration) {
    let t = Instant::now();
    let d = client(deadline_ms).post_before(url, &[("X-Attempt", "1")], b"{}", None);
    (d, t.elapsed())
}

#[test]
fn a_status_outside_100_to_599_is_the_terminal_kind_unexpected_status() {
    let url = hostile(|c| {
        let _ = c.write_all(b"HTTP/1.1 999 Weird\r\nContent-Length: 0\r\n\r\n");
    });
    assert_eq!(post(&url, 5_000).0, Delivery::Failed("unexpected_status"));
    let url = hostile(|c| {
        let _ = c.write_all(b"HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n");
    });
    assert_eq!(post(&url, 5_000).0, Delivery::Failed("unexpected_status"));
}

#[test]
fn bytes_that_are_not_http_and_a_garbage_status_line_are_remote_protocol_errors() {
    let url = hostile(|c| {
        let _ = c.write_all(b"SSH-2.0-OpenSSH_9.6\r\n\r\n");
    });
    assert_eq!(post(&url, 5_000).0, Delivery::Failed("remote_protocol_error"));
    let url = hostile(|c| {
        let _ = c.write_all(b"HTTP/1.1 2x0 OK\r\n\r\n");
    });
    assert_eq!(post(&url, 5_000).0, Delivery::Failed("remote_protocol_error"));
}

#[test]
fn an_endless_header_line_is_cut_at_the_cap_as_a_protocol_error() {
    let url = hostile(|c| {
        let _ = c.write_all(b"HTTP/1.1 200 OK\r\nX-Endless: ");
        let chunk = vec![b'a'; 64 * 1024];
        for _ in 0..1024 {
            if c.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let (d, t) = post(&url, 10_000);
    assert_eq!(d, Delivery::Failed("remote_protocol_error"));
    assert!(t < Duration::from_secs(5), "{t:?}");
}

#[test]
fn a_huge_body_is_read_only_up_to_its_prefix_and_the_status_stands() {
    let url = hostile(|c| {
        let _ = c.write_all(
            b"HTTP/1.1 503 Busy\r\nRetry-After: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 2147483648\r\n\r\n",
        );
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..16_384 {
            if c.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let (d, t) = post(&url, 10_000);
    assert_eq!(d, Delivery::Response { status: 503, retry_after: Some("Sun, 06 Nov 1994 08:49:37 GMT".into()) });
    assert!(t < Duration::from_secs(5), "{t:?}");
}

#[test]
fn a_one_byte_per_second_drip_ends_at_the_attempt_deadline_as_a_read_timeout() {
    let url = hostile(|c| {
        for b in b"HTTP/1.1 200 OK\r\n\r\n" {
            if c.write_all(&[*b]).is_err() {
                return;
            }
            thread::sleep(Duration::from_millis(300));
        }
    });
    let (d, t) = post(&url, 1_000);
    assert_eq!(d, Delivery::Failed("read_timeout"));
    assert!(t < Duration::from_millis(2_500), "{t:?}");
}

#[test]
fn a_connection_closed_before_the_response_is_a_retryable_protocol_error() {
    let url = hostile(|c| {
        let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-");
        let _ = c.shutdown(std::net::Shutdown::Both);
    });
    assert_eq!(post(&url, 5_000).0, Delivery::Failed("remote_protocol_error"));
}

#[test]
fn a_redirect_is_not_followed_and_is_a_terminal_status() {
    let url = hostile(|c| {
        let _ = c.write_all(
            b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://169.254.169.254/\r\nContent-Length: 0\r\n\r\n",
        );
    });
    assert_eq!(post(&url, 5_000).0, Delivery::Response { status: 307, retry_after: None });
    let (recs, _) = dispatch_with(local_config(), &doc(50), events(2, "redir", &url));
    for r in &recs {
        assert_eq!((r.reason.as_str(), r.attempts), ("terminal_response", 1), "{r:?}");
    }
}

#[test]
fn retry_after_garbage_and_huge_values_never_break_an_event() {
    let url = hostile(|c| {
        let _ = c.write_all("HTTP/1.1 503 Busy\r\nRetry-After: ²\r\nContent-Length: 0\r\n\r\n".as_bytes());
    });
    let url2 = hostile(|c| {
        let _ = c.write_all(b"HTTP/1.1 503 Busy\r\nRetry-After: 99999999999999999999\r\nContent-Length: 0\r\n\r\n");
    });
    let (a, _) = dispatch_with(local_config(), &doc(1000), events(2, "ra1", &url));
    let (b, _) = dispatch_with(local_config(), &doc(1000), events(2, "ra2", &url2));
    for r in &a {
        assert_eq!(r.reason, "max_attempts_exhausted", "unusable header ignored: {r:?}");
    }
    for r in &b {
        assert_eq!((r.reason.as_str(), r.attempts), ("retry_window_elapsed", 1), "a far-future retry stops: {r:?}");
    }
}
