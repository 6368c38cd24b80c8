//! Delivery over HTTP/1.1 with `ureq` (HTTPS with rustls, verified against
//! [`retry_policy_host::tls::TrustRoots`]; no decompression, no proxy):
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
//! Outcomes (one table for all hosts, issue 11): the dispatcher README's
//! "Outcomes and destinations"; [`error_kind`] and [`check_url`] are it
//! (the target read by docs/destinations.md's one reader: a scheme other
//! than `http`/`https` is `unsupported_protocol`, any other refusal
//! `invalid_url`).

use std::io::{self, Read};
use std::time::Duration;

use ureq::unversioned::transport::{ConnectionDetails, Connector, RustlsConnector, TcpConnector, Transport};
use ureq::{Agent, Timeout};

use crate::destination::{is_refused, GuardedResolver};
use crate::transport_kind as kind;
use retry_policy_host::tls::{is_certificate_error, TrustRoots};

/// Largest response head accepted.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Largest body prefix read (then discarded).
pub const MAX_BODY_BYTES: u64 = 64 * 1024;

/// How the client behaves.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub connect_ms: u64,
    /// The total time one attempt may take, body included.
    pub attempt_deadline_ms: u64,
    /// Deliver to loopback/private/link-local targets too (local development, tests).
    pub allow_private_targets: bool,
    /// Idle connections kept per host (keep-alive).
    pub idle_per_host: usize,
    /// Certificates `https://` targets are verified against (the platform's
    /// store by default; `--ca-file` adds to it).
    pub trust: TrustRoots,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            connect_ms: 2_000,
            attempt_deadline_ms: 30_000,
            allow_private_targets: false,
            idle_per_host: 8,
            trust: TrustRoots::default(),
        }
    }
}

/// What one POST came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// Not sent: the send edge (the event's window) passed before the
    /// request was written (after the DNS lookup and the connection).
    NotSent,
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
            .tls_config(tls_config(&c.trust))
            .build();
        // TCP to the addresses the guarded resolver checked, then TLS for
        // https:// (its failures sorted by `Handshake`).
        let connector = ().chain(TcpConnector::default()).chain(Handshake(RustlsConnector::default()));
        let agent = Agent::with_parts(config, connector, GuardedResolver::new(c.allow_private_targets));
        HttpClient { agent }
    }

    /// POST `body` (JSON) to `url` with extra headers. A header whose name
    /// or value is not valid HTTP (CR/LF in an event id) is left out. With
    /// an `edge`, written only before it: the edge is checked again after
    /// the DNS lookup and after the connection (TLS included) is made,
    /// immediately before the request is written; past it the request is
    /// not written ([`Delivery::NotSent`]).
    pub fn post_before(&self, url: &str, headers: &[(&str, &str)], body: &[u8], edge: Option<SendEdge>) -> Delivery {
        if let Err(kind) = check_url(url) {
            return Delivery::Failed(kind);
        }
        if edge.is_some_and(|e| e.passed()) {
            return Delivery::NotSent;
        }
        let _edge = EdgeGuard::set(edge);
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
                    Delivery::Failed(kind::UNEXPECTED_STATUS)
                }
            }
            Err(e) if is_edge_passed(&e) => Delivery::NotSent,
            Err(e) => Delivery::Failed(error_kind(&e)),
        }
    }
}

/// The client's TLS configuration: rustls with `ring`, `trust`'s roots only.
fn tls_config(trust: &TrustRoots) -> ureq::tls::TlsConfig {
    let certs: Vec<ureq::tls::Certificate<'static>> =
        trust.certificates().iter().map(|c| ureq::tls::Certificate::from_der(c.as_ref()).to_owned()).collect();
    ureq::tls::TlsConfig::builder()
        .provider(ureq::tls::TlsProvider::Rustls)
        .root_certs(ureq::tls::RootCerts::Specific(std::sync::Arc::new(certs)))
        .unversioned_rustls_crypto_provider(TrustRoots::provider())
        .build()
}

/// The instant after which an attempt may not be written: the event's
/// `first_attempt_ms + window_ms`, by the dispatcher's clock (the wall
/// clock plus `clock_offset_ms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendEdge {
    pub deadline_ms: u64,
    pub clock_offset_ms: i64,
}

impl SendEdge {
    pub fn passed(self) -> bool {
        crate::clock::skewed_now(self.clock_offset_ms) >= self.deadline_ms
    }
}

thread_local! {
    /// The edge of the request this thread is sending (the client resolves
    /// and connects on the calling thread).
    static EDGE: std::cell::Cell<Option<SendEdge>> = const { std::cell::Cell::new(None) };
}

struct EdgeGuard;

impl EdgeGuard {
    fn set(edge: Option<SendEdge>) -> EdgeGuard {
        EDGE.with(|e| e.set(edge));
        EdgeGuard
    }
}

impl Drop for EdgeGuard {
    fn drop(&mut self) {
        EDGE.with(|e| e.set(None));
    }
}

/// The error that stops a request whose edge passed before it was written.
#[derive(Debug)]
pub struct EdgePassed;

impl std::fmt::Display for EdgePassed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the event's window ended before the request was written")
    }
}

impl std::error::Error for EdgePassed {}

/// `Err` when the current request's edge has passed (called after the DNS
/// lookup and after the connection is made).
pub(crate) fn check_edge() -> Result<(), ureq::Error> {
    if EDGE.with(|e| e.get()).is_some_and(SendEdge::passed) {
        return Err(ureq::Error::Io(io::Error::other(EdgePassed)));
    }
    Ok(())
}

fn is_edge_passed(e: &ureq::Error) -> bool {
    matches!(e, ureq::Error::Io(io) if io.get_ref().is_some_and(|i| i.is::<EdgePassed>()))
}

/// The TLS step of the connector chain: a handshake that fails is reported
/// as a [`HandshakeFailed`] carrying its transport kind, so a reset or a
/// stall during the handshake is not mistaken for a broken response.
#[derive(Debug)]
struct Handshake(RustlsConnector);

impl<In: Transport> Connector<In> for Handshake {
    type Out = <RustlsConnector as Connector<In>>::Out;

    fn connect(&self, details: &ConnectionDetails, chained: Option<In>) -> Result<Option<Self::Out>, ureq::Error> {
        let out = self.0.connect(details, chained).map_err(|e| {
            let kind = handshake_kind(&e);
            ureq::Error::Io(io::Error::other(HandshakeFailed { kind, detail: e.to_string() }))
        })?;
        // Connected (and TLS done): the last check before the request is written.
        check_edge()?;
        Ok(out)
    }
}

/// A failed TLS handshake, as it travels through the client.
#[derive(Debug)]
pub struct HandshakeFailed {
    pub kind: &'static str,
    pub detail: String,
}

impl std::fmt::Display for HandshakeFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TLS handshake failed ({}): {}", self.kind, self.detail)
    }
}

impl std::error::Error for HandshakeFailed {}

/// The kind of a TLS handshake failure: the certificate failing
/// verification is `tls_certificate`; a stall `connect_timeout`; anything
/// else `connect_error`.
fn handshake_kind(e: &ureq::Error) -> &'static str {
    if rustls_error(e).is_some_and(is_certificate_error) {
        return kind::TLS_CERTIFICATE;
    }
    match e {
        ureq::Error::Timeout(_) => kind::CONNECT_TIMEOUT,
        ureq::Error::Io(io) if matches!(io.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock) => {
            kind::CONNECT_TIMEOUT
        }
        _ => kind::CONNECT_ERROR,
    }
}

/// The rustls error inside a client error, if any (directly, or wrapped in
/// an `io::Error` by the TLS stream; `ureq::Error` has no `source()`).
fn rustls_error(e: &ureq::Error) -> Option<&rustls::Error> {
    match e {
        ureq::Error::Rustls(r) => Some(r),
        ureq::Error::Io(io) => io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()),
        _ => None,
    }
}

/// The target as docs/destinations.md reads it (policy-core's reader, the
/// one the engine admits targets with; a record resumed from an older
/// journal keeps its own text); the error is the kind the policy classifies.
pub fn check_url(url: &str) -> Result<(), &'static str> {
    match retry_policy_core::destination::read_target(url) {
        Ok(_) => Ok(()),
        Err(e) if e.code == "unsupported_scheme" => Err(kind::UNSUPPORTED_PROTOCOL),
        Err(_) => Err(kind::INVALID_URL),
    }
}

fn is_header_value(v: &str) -> bool {
    v.bytes().all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
}

/// A client error as the contract's transport error kind.
pub fn error_kind(e: &ureq::Error) -> &'static str {
    match e {
        ureq::Error::Timeout(t) => match t {
            Timeout::Connect => kind::CONNECT_TIMEOUT,
            Timeout::Resolve => kind::CONNECT_ERROR,
            Timeout::SendRequest | Timeout::SendBody | Timeout::PerWrite => kind::WRITE_TIMEOUT,
            _ => kind::READ_TIMEOUT,
        },
        ureq::Error::BodyStalled => kind::READ_TIMEOUT,
        ureq::Error::Io(io) if is_refused(io) => kind::DESTINATION_REFUSED,
        ureq::Error::Io(io) if io.get_ref().is_some_and(|i| i.is::<HandshakeFailed>()) => {
            io.get_ref().and_then(|i| i.downcast_ref::<HandshakeFailed>()).map_or(kind::CONNECT_ERROR, |h| h.kind)
        }
        _ if rustls_error(e).is_some_and(is_certificate_error) => kind::TLS_CERTIFICATE,
        ureq::Error::Io(io) => io_kind(io),
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => kind::CONNECT_ERROR,
        ureq::Error::Protocol(p) if p.to_string().contains("invalid status code") => kind::UNEXPECTED_STATUS,
        ureq::Error::Protocol(_) | ureq::Error::LargeResponseHeader(..) => kind::REMOTE_PROTOCOL_ERROR,
        ureq::Error::BadUri(_) | ureq::Error::Http(_) => kind::INVALID_URL,
        ureq::Error::TooManyRedirects | ureq::Error::RedirectFailed => kind::TOO_MANY_REDIRECTS,
        ureq::Error::Tls(_) | ureq::Error::Rustls(_) => kind::CONNECT_ERROR,
        ureq::Error::RequireHttpsOnly(_) | ureq::Error::TlsRequired => kind::UNSUPPORTED_PROTOCOL,
        _ => kind::REMOTE_PROTOCOL_ERROR,
    }
}

fn io_kind(e: &io::Error) -> &'static str {
    use io::ErrorKind as K;
    match e.kind() {
        K::TimedOut | K::WouldBlock => kind::READ_TIMEOUT,
        K::ConnectionRefused | K::AddrNotAvailable | K::NetworkUnreachable | K::HostUnreachable | K::NetworkDown => {
            kind::CONNECT_ERROR
        }
        // A reset, an abort or an EOF mid-response: the peer broke the exchange.
        _ => kind::REMOTE_PROTOCOL_ERROR,
    }
}

#[cfg(test)]
#[path = "tests_http_client.rs"]
mod tests;
