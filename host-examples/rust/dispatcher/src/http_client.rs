//! Delivery over HTTP/1.1 with `ureq` (no TLS, no decompression, no proxy):
//! POST a body, get the status and the raw `Retry-After` value, or the
//! transport error kind the policy classifies. Hostile endpoints cannot
//! hold a worker or its memory:
//!
//! * every attempt has a total deadline (`attempt_deadline_ms`, default
//!   30 s), so a one-byte-per-second drip ends as `read_timeout`;
//! * response headers are capped at 16 KiB (an endless header line is a
//!   `remote_protocol_error`), at most a 64 KiB body prefix is read and
//!   discarded;
//! * no redirect is followed: a 3xx is a status like any other (terminal);
//! * destinations are checked by [`crate::destination`].
//!
//! Outcomes (one table for all hosts, issue 11):
//!
//! | what happened | outcome |
//! |---|---|
//! | status 100..=599 | that status (and `Retry-After`, parsed by the policy) |
//! | status outside 100..=599 (`999`, `099`) | transport kind `unexpected_status` (terminal) |
//! | garbage status line, bytes that are not HTTP, oversized headers, a reset or EOF before the response | `remote_protocol_error` |
//! | connection refused, unreachable, host not found | `connect_error` |
//! | connect took longer than `connect_ms` | `connect_timeout` |
//! | sending stalled | `write_timeout` |
//! | waiting for or reading the response stalled, or the attempt deadline passed | `read_timeout` |
//! | a loopback/private/... destination (unless allowed) | `destination_refused` (terminal) |
//! | `https://` and other schemes | `unsupported_protocol`; a malformed URL `invalid_url` |

use std::io::{self, Read};
use std::time::Duration;

use ureq::unversioned::transport::DefaultConnector;
use ureq::{Agent, Timeout};

use crate::destination::{is_refused, GuardedResolver};

/// Largest response head accepted.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Largest body prefix read (then discarded).
pub const MAX_BODY_BYTES: u64 = 64 * 1024;

/// How the client behaves.
#[derive(Clone, Copy, Debug)]
pub struct ClientConfig {
    pub connect_ms: u64,
    /// The total time one attempt may take, body included.
    pub attempt_deadline_ms: u64,
    /// Deliver to loopback/private/link-local targets too (local development, tests).
    pub allow_private_targets: bool,
    /// Idle connections kept per host (keep-alive).
    pub idle_per_host: usize,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig { connect_ms: 2_000, attempt_deadline_ms: 30_000, allow_private_targets: false, idle_per_host: 8 }
    }
}

/// What one POST came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// A response with a status in 100..=599 and its raw `Retry-After`.
    Response { status: u16, retry_after: Option<String> },
    /// A transport error kind of the contract (or `unexpected_status`,
    /// `destination_refused`).
    Failed(&'static str),
}

/// One client, shared by every worker (it is `Send + Sync`).
#[derive(Clone, Debug)]
pub struct HttpClient {
    agent: Agent,
}

impl HttpClient {
    pub fn new(c: ClientConfig) -> Self {
        let config = Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .timeout_global(Some(Duration::from_millis(c.attempt_deadline_ms.max(1))))
            .timeout_connect(Some(Duration::from_millis(c.connect_ms.max(1))))
            .max_response_header_size(MAX_HEADER_BYTES)
            .max_idle_connections(c.idle_per_host.max(1) * 4)
            .max_idle_connections_per_host(c.idle_per_host.max(1))
            .user_agent("retry-policy-dispatcher")
            .build();
        let agent =
            Agent::with_parts(config, DefaultConnector::default(), GuardedResolver::new(c.allow_private_targets));
        HttpClient { agent }
    }

    /// POST `body` (JSON) to `url` with extra headers. A header whose name
    /// or value is not valid HTTP (CR/LF in an event id) is left out.
    pub fn post(&self, url: &str, headers: &[(&str, &str)], body: &[u8]) -> Delivery {
        if let Err(kind) = check_url(url) {
            return Delivery::Failed(kind);
        }
        let mut req = self.agent.post(url).header("content-type", "application/json");
        for (k, v) in headers {
            if is_header_value(v) {
                req = req.header(*k, *v);
            }
        }
        match req.send(body) {
            Ok(resp) => {
                let status = resp.status().as_u16();
                let retry_after =
                    resp.headers().get("retry-after").map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
                // A bounded prefix of the body, discarded: lets a short body's
                // connection be reused, and a huge one costs 64 KiB at most.
                let mut reader = resp.into_body().into_reader();
                let _ = io::copy(&mut (&mut reader).take(MAX_BODY_BYTES), &mut io::sink());
                if (100..=599).contains(&status) {
                    Delivery::Response { status, retry_after }
                } else {
                    Delivery::Failed("unexpected_status")
                }
            }
            Err(e) => Delivery::Failed(error_kind(&e)),
        }
    }
}

/// Only `http://` with a host; the error is the kind the policy classifies.
pub fn check_url(url: &str) -> Result<(), &'static str> {
    match url.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
            if authority.is_empty() || authority.contains(['@', ' ']) || url.chars().any(char::is_control) {
                Err("invalid_url")
            } else {
                Ok(())
            }
        }
        Some((scheme, _))
            if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)) =>
        {
            Err("unsupported_protocol")
        }
        _ => Err("invalid_url"),
    }
}

fn is_header_value(v: &str) -> bool {
    v.bytes().all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
}

/// A client error as the contract's transport error kind.
pub fn error_kind(e: &ureq::Error) -> &'static str {
    match e {
        ureq::Error::Timeout(t) => match t {
            Timeout::Connect => "connect_timeout",
            Timeout::Resolve => "connect_error",
            Timeout::SendRequest | Timeout::SendBody | Timeout::PerWrite => "write_timeout",
            _ => "read_timeout",
        },
        ureq::Error::BodyStalled => "read_timeout",
        ureq::Error::Io(io) if is_refused(io) => "destination_refused",
        ureq::Error::Io(io) => io_kind(io),
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => "connect_error",
        ureq::Error::Protocol(p) if p.to_string().contains("invalid status code") => "unexpected_status",
        ureq::Error::Protocol(_) | ureq::Error::LargeResponseHeader(..) => "remote_protocol_error",
        ureq::Error::BadUri(_) | ureq::Error::Http(_) => "invalid_url",
        ureq::Error::TooManyRedirects | ureq::Error::RedirectFailed => "too_many_redirects",
        ureq::Error::RequireHttpsOnly(_) | ureq::Error::TlsRequired | ureq::Error::Tls(_) => "unsupported_protocol",
        _ => "remote_protocol_error",
    }
}

fn io_kind(e: &io::Error) -> &'static str {
    use io::ErrorKind as K;
    match e.kind() {
        K::TimedOut | K::WouldBlock => "read_timeout",
        K::ConnectionRefused | K::AddrNotAvailable | K::NetworkUnreachable | K::HostUnreachable | K::NetworkDown => {
            "connect_error"
        }
        // A reset, an abort or an EOF mid-response: the peer broke the exchange.
        _ => "remote_protocol_error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_urls_with_a_host_are_sent() {
        assert_eq!(check_url("http://127.0.0.1:8080/a?b=1"), Ok(()));
        assert_eq!(check_url("HTTP://example.test"), Ok(()));
        assert_eq!(check_url("https://example.test/"), Err("unsupported_protocol"));
        assert_eq!(check_url("ftp://example.test/"), Err("unsupported_protocol"));
        assert_eq!(check_url("not a url"), Err("invalid_url"));
        assert_eq!(check_url("http:///path"), Err("invalid_url"));
        assert_eq!(check_url("http://user@host/"), Err("invalid_url"));
        assert_eq!(check_url("http://host/\r\nX: y"), Err("invalid_url"));
    }

    #[test]
    fn header_values_with_line_breaks_are_not_valid() {
        assert!(is_header_value("evt-1 \t ok"));
        assert!(!is_header_value("evt\r\nX-Injected: 1"));
        assert!(!is_header_value("é"));
    }

    #[test]
    fn io_errors_map_to_retryable_contract_kinds() {
        assert_eq!(io_kind(&io::ErrorKind::ConnectionReset.into()), "remote_protocol_error");
        assert_eq!(io_kind(&io::ErrorKind::ConnectionRefused.into()), "connect_error");
        assert_eq!(io_kind(&io::ErrorKind::TimedOut.into()), "read_timeout");
        assert_eq!(error_kind(&ureq::Error::Timeout(Timeout::Global)), "read_timeout");
        assert_eq!(error_kind(&ureq::Error::Timeout(Timeout::Connect)), "connect_timeout");
        assert_eq!(error_kind(&ureq::Error::LargeResponseHeader(70_000, 16_384)), "remote_protocol_error");
    }
}
