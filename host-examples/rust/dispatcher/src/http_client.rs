//! A small HTTP/1.1 client on `std::net`: POST a body, get the status and
//! `Retry-After`, or the transport error kind the policy classifies
//! (`connect_error`, `read_timeout`, ...). Keeps one idle connection per
//! target (keep-alive), so a storm does not burn through ephemeral ports.
//!
//! Only `http://host:port/path` targets: `https://` is reported as the
//! transport error `unsupported_protocol` (terminal), a malformed URL as
//! `invalid_url` (terminal). Responses are read up to their headers; a body
//! is skipped by `Content-Length`; anything else closes the connection.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use retry_policy_core::AttemptOutcome;

/// A parsed `http://` target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// `host:port`, as connected to and sent in `Host`.
    pub authority: String,
    /// Path and query, starting with `/`.
    pub path: String,
}

impl Target {
    /// Parse `http://host[:port][/path]`; the error is the transport error
    /// kind the policy should classify.
    pub fn parse(url: &str) -> Result<Target, &'static str> {
        let rest = match url.split_once("://") {
            Some(("http", rest)) => rest,
            Some((scheme, _)) if !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphanumeric()) => {
                return Err("unsupported_protocol")
            }
            _ => return Err("invalid_url"),
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.is_empty() || authority.contains(['@', ' ']) {
            return Err("invalid_url");
        }
        let authority = if authority.rsplit_once(':').is_some_and(|(_, p)| !p.contains(']')) {
            let (_, port) = authority.rsplit_once(':').unwrap_or_default();
            if port.parse::<u16>().is_err() {
                return Err("invalid_url");
            }
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        Ok(Target { authority, path: path.to_string() })
    }
}

/// Timeouts of one request.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    pub connect_ms: u64,
    pub io_ms: u64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts { connect_ms: 2_000, io_ms: 5_000 }
    }
}

/// One client per worker thread: its idle connections are its own.
#[derive(Debug, Default)]
pub struct HttpClient {
    idle: HashMap<String, BufReader<TcpStream>>,
    pub timeouts: Timeouts,
}

enum Failure {
    /// Nothing was received on a reused connection: the peer had closed it.
    Stale,
    Kind(&'static str),
}

impl HttpClient {
    pub fn new(timeouts: Timeouts) -> Self {
        HttpClient { idle: HashMap::new(), timeouts }
    }

    /// POST `body` to `url` with extra headers; the outcome as the policy
    /// takes it.
    pub fn post(&mut self, url: &str, headers: &[(&str, &str)], body: &[u8]) -> AttemptOutcome {
        let target = match Target::parse(url) {
            Ok(t) => t,
            Err(kind) => return AttemptOutcome::TransportError { kind: kind.to_string() },
        };
        let request = encode_request(&target, headers, body);
        if let Some(conn) = self.idle.remove(&target.authority) {
            match self.exchange(conn, &target, &request, true) {
                Ok(outcome) => return outcome,
                Err(Failure::Kind(kind)) => return AttemptOutcome::TransportError { kind: kind.to_string() },
                Err(Failure::Stale) => {} // open a fresh connection below
            }
        }
        let conn = match self.connect(&target.authority) {
            Ok(c) => c,
            Err(kind) => return AttemptOutcome::TransportError { kind: kind.to_string() },
        };
        match self.exchange(conn, &target, &request, false) {
            Ok(outcome) => outcome,
            Err(Failure::Kind(kind)) => AttemptOutcome::TransportError { kind: kind.to_string() },
            Err(Failure::Stale) => AttemptOutcome::TransportError { kind: "remote_protocol_error".to_string() },
        }
    }

    fn connect(&self, authority: &str) -> Result<BufReader<TcpStream>, &'static str> {
        let addrs = authority.to_socket_addrs().map_err(|_| "connect_error")?;
        let timeout = Duration::from_millis(self.timeouts.connect_ms.max(1));
        let mut last = "connect_error";
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, timeout) {
                Ok(s) => {
                    let io = Some(Duration::from_millis(self.timeouts.io_ms.max(1)));
                    let _ = s.set_nodelay(true);
                    let _ = s.set_read_timeout(io);
                    let _ = s.set_write_timeout(io);
                    return Ok(BufReader::new(s));
                }
                Err(e) if is_timeout(&e) => last = "connect_timeout",
                Err(_) => {}
            }
        }
        Err(last)
    }

    fn exchange(
        &mut self,
        mut conn: BufReader<TcpStream>,
        target: &Target,
        request: &[u8],
        reused: bool,
    ) -> Result<AttemptOutcome, Failure> {
        if let Err(e) = conn.get_mut().write_all(request) {
            return Err(if reused { Failure::Stale } else { Failure::Kind(io_kind(&e, "write_timeout")) });
        }
        let head = match read_head(&mut conn) {
            Ok(Some(h)) => h,
            Ok(None) => return Err(if reused { Failure::Stale } else { Failure::Kind("remote_protocol_error") }),
            Err(e) if reused && e.kind() == io::ErrorKind::ConnectionReset => return Err(Failure::Stale),
            Err(e) => return Err(Failure::Kind(io_kind(&e, "read_timeout"))),
        };
        let parsed = parse_head(&head).ok_or(Failure::Kind("remote_protocol_error"))?;
        let reusable = match parsed.content_length {
            Some(n) if !parsed.close => skip_body(&mut conn, n).is_ok(),
            _ => false,
        };
        if reusable {
            self.idle.insert(target.authority.clone(), conn);
        }
        Ok(AttemptOutcome::Response { status: parsed.status, retry_after_ms: parsed.retry_after_ms })
    }
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock)
}

fn io_kind(e: &io::Error, timeout_kind: &'static str) -> &'static str {
    if is_timeout(e) {
        timeout_kind
    } else {
        "remote_protocol_error"
    }
}

fn encode_request(target: &Target, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(160 + body.len());
    let _ = write!(
        out,
        "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        target.path,
        target.authority,
        body.len()
    );
    for (k, v) in headers {
        let _ = write!(out, "{k}: {v}\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

/// The status line and headers, or `None` if the peer closed first.
fn read_head(conn: &mut BufReader<TcpStream>) -> io::Result<Option<Vec<String>>> {
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        let n = conn.read_line(&mut line)?;
        if n == 0 {
            return if lines.is_empty() { Ok(None) } else { Err(io::ErrorKind::UnexpectedEof.into()) };
        }
        let line = line.trim_end_matches(['\r', '\n']).to_string();
        if line.is_empty() {
            if lines.is_empty() {
                continue;
            }
            return Ok(Some(lines));
        }
        if lines.len() > 100 {
            return Err(io::ErrorKind::InvalidData.into());
        }
        lines.push(line);
    }
}

struct Head {
    status: u16,
    retry_after_ms: Option<u64>,
    content_length: Option<u64>,
    close: bool,
}

fn parse_head(lines: &[String]) -> Option<Head> {
    let mut parts = lines.first()?.splitn(3, ' ');
    let version = parts.next()?;
    if !version.starts_with("HTTP/1.") {
        return None;
    }
    let status: u16 = parts.next()?.parse().ok()?;
    let mut head = Head { status, retry_after_ms: None, content_length: None, close: version == "HTTP/1.0" };
    for line in &lines[1..] {
        let (name, value) = line.split_once(':')?;
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => head.content_length = Some(value.parse().ok()?),
            "connection" => head.close = value.eq_ignore_ascii_case("close"),
            // delta-seconds only; an HTTP-date is ignored (no Retry-After).
            "retry-after" => head.retry_after_ms = value.parse::<u64>().ok().map(|s| s.saturating_mul(1000)),
            "transfer-encoding" => head.close = true,
            _ => {}
        }
    }
    Some(head)
}

fn skip_body(conn: &mut BufReader<TcpStream>, n: u64) -> io::Result<()> {
    let copied = io::copy(&mut conn.take(n), &mut io::sink())?;
    if copied == n {
        Ok(())
    } else {
        Err(io::ErrorKind::UnexpectedEof.into())
    }
}
