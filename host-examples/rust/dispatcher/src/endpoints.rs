//! Local webhook endpoints for demos, tests and benchmarks: each answers
//! every POST with a fixed status (200 healthy, 503 broken, 410 gone, ...)
//! and counts what it received — first attempts and retries apart (by the
//! `X-Attempt` header the Rust dispatcher sends; requests without it count
//! as `unlabelled`) — and can keep a log of `(Unix ms, attempt,
//! event id)` per request for time-sliced analysis.
//!
//! `GET /__stats` answers the counts as JSON; `GET /__log` the log as JSON
//! lines (`{"t_ms":..,"attempt":..,"event_id":..}`).
//!
//! **Down, then healthy** (`Spec::parse`, the `endpoints` command's
//! `NAME=DOWN[+RA<S>]~UP@DOWN_MS`, e.g. `503~200@5000`, `429+RA3~200@4000`):
//! the endpoint answers DOWN (with `Retry-After: S` when `+RA<S>` is given)
//! until DOWN_MS after its **first POST** (the outage's clock starts with
//! the first request, not with the server, so slow-starting senders still
//! meet the whole outage), then UP forever. `/__stats` adds `down_status`,
//! `down_ms` and `up_at_ms` (Unix ms it turns UP; null before the first
//! POST). `tests/fleet/endpoints.py` implements the same contract.

use std::fmt::Write as _;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::http_server::{Response, Server};

/// What an endpoint answers: `status`, or `down` first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub status: u16,
    pub down: Option<Down>,
}

/// An outage at the start: `status` (with `Retry-After: retry_after_s` when
/// set) until `down_ms` after the first POST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Down {
    pub status: u16,
    pub retry_after_s: Option<u32>,
    pub down_ms: u64,
}

fn parse_status(s: &str, whole: &str) -> Result<u16, String> {
    s.parse()
        .ok()
        .filter(|s| (100..=599).contains(s))
        .ok_or_else(|| format!("`{whole}`: status must be 100..=599, not `{s}`"))
}

impl Spec {
    /// A fixed status.
    pub fn fixed(status: u16) -> Spec {
        Spec { status, down: None }
    }

    /// `STATUS` (e.g. `503`) or `DOWN[+RA<S>]~UP@DOWN_MS` (e.g. `503~200@5000`,
    /// `429+RA3~200@4000`); the error names the spec and what is wrong.
    pub fn parse(s: &str) -> Result<Spec, String> {
        let Some((down, rest)) = s.split_once('~') else {
            return Ok(Spec::fixed(parse_status(s, s)?));
        };
        let (up, down_ms) =
            rest.split_once('@').ok_or_else(|| format!("`{s}`: the down form is DOWN[+RA<S>]~UP@DOWN_MS"))?;
        let down_ms: u64 = down_ms
            .parse()
            .ok()
            .filter(|ms| *ms <= 86_400_000)
            .ok_or_else(|| format!("`{s}`: DOWN_MS must be 0..=86400000, not `{down_ms}`"))?;
        let (down_status, retry_after_s) = match down.split_once('+') {
            None => (down, None),
            Some((st, ra)) => {
                let secs = ra
                    .strip_prefix("RA")
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|n| *n <= 86_400)
                    .ok_or_else(|| format!("`{s}`: `+{ra}` is not +RA<seconds 0..=86400>"))?;
                (st, Some(secs))
            }
        };
        Ok(Spec {
            status: parse_status(up, s)?,
            down: Some(Down { status: parse_status(down_status, s)?, retry_after_s, down_ms }),
        })
    }
}

/// Requests received by one endpoint.
#[derive(Debug)]
pub struct EndpointStats {
    /// The status once healthy (every answer, without `down`).
    pub status: u16,
    pub down: Option<Down>,
    /// Unix ms of the first POST (0: none yet).
    first_post_ms: AtomicU64,
    requests: AtomicU64,
    first_attempts: AtomicU64,
    retries: AtomicU64,
    log: Option<Mutex<Vec<(u64, u32, String)>>>,
}

/// Largest request log kept (older requests are still counted).
const LOG_CAP: usize = 2_000_000;

impl EndpointStats {
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }
    pub fn first_attempts(&self) -> u64 {
        self.first_attempts.load(Ordering::Relaxed)
    }
    pub fn retries(&self) -> u64 {
        self.retries.load(Ordering::Relaxed)
    }

    /// Unix ms the endpoint turns healthy (`None` before its first POST, or without `down`).
    pub fn up_at_ms(&self) -> Option<u64> {
        let first = self.first_post_ms.load(Ordering::Relaxed);
        self.down.filter(|_| first != 0).map(|d| first.saturating_add(d.down_ms))
    }

    pub fn to_json(&self) -> serde_json::Value {
        let mut v = json!({"status": self.status, "requests": self.requests(), "first_attempts": self.first_attempts(),
               "retries": self.retries(), "unlabelled": self.requests() - self.first_attempts() - self.retries()});
        if let Some(d) = self.down {
            v["down_status"] = json!(d.status);
            v["down_ms"] = json!(d.down_ms);
            v["up_at_ms"] = json!(self.up_at_ms());
        }
        v
    }

    /// The answer to a POST at `now_ms` (the first POST starts the outage's clock).
    fn answer(&self, now_ms: u64) -> (u16, Option<u32>) {
        let Some(d) = self.down else { return (self.status, None) };
        let _ = self.first_post_ms.compare_exchange(0, now_ms.max(1), Ordering::Relaxed, Ordering::Relaxed);
        let first = self.first_post_ms.load(Ordering::Relaxed);
        if now_ms < first.saturating_add(d.down_ms) {
            (d.status, d.retry_after_s)
        } else {
            (self.status, None)
        }
    }

    fn log_lines(&self) -> String {
        let mut out = String::new();
        if let Some(log) = &self.log {
            for (t, a, id) in log.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                let _ = writeln!(out, "{}", json!({"t_ms": t, "attempt": a, "event_id": id}));
            }
        }
        out
    }
}

/// A running endpoint.
pub struct Endpoint {
    pub server: Server,
    pub stats: Arc<EndpointStats>,
}

impl Endpoint {
    /// Answer `status` to every POST, on `bind` (`127.0.0.1:0` = a free port).
    pub fn start(bind: &str, status: u16, keep_log: bool) -> io::Result<Endpoint> {
        Self::start_spec(bind, Spec::fixed(status), keep_log)
    }

    /// Answer as `spec` says (down first, then healthy) on `bind`.
    pub fn start_spec(bind: &str, spec: Spec, keep_log: bool) -> io::Result<Endpoint> {
        let stats = Arc::new(EndpointStats {
            status: spec.status,
            down: spec.down,
            first_post_ms: AtomicU64::new(0),
            requests: AtomicU64::new(0),
            first_attempts: AtomicU64::new(0),
            retries: AtomicU64::new(0),
            log: keep_log.then(|| Mutex::new(Vec::new())),
        });
        let st = stats.clone();
        let server = Server::start(bind, move |req| match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/__stats") => Response::new(200, "application/json", st.to_json().to_string()),
            ("GET", "/__log") => Response::new(200, "application/x-ndjson", st.log_lines()),
            ("POST", _) => {
                let now = crate::clock::now_ms();
                let (status, retry_after_s) = st.answer(now);
                st.requests.fetch_add(1, Ordering::Relaxed);
                let attempt: Option<u32> = req.header("x-attempt").and_then(|a| a.parse().ok());
                match attempt {
                    Some(1) => st.first_attempts.fetch_add(1, Ordering::Relaxed),
                    Some(_) => st.retries.fetch_add(1, Ordering::Relaxed),
                    None => 0,
                };
                if let Some(log) = &st.log {
                    let mut l = log.lock().unwrap_or_else(|p| p.into_inner());
                    if l.len() < LOG_CAP {
                        let id = req.header("x-event-id").unwrap_or_default().to_string();
                        l.push((now, attempt.unwrap_or(0), id));
                    }
                }
                let mut resp = Response::new(status, "application/json", format!("{{\"status\":{status}}}"));
                if let Some(secs) = retry_after_s {
                    resp.headers.push(("Retry-After".into(), secs.to_string()));
                }
                resp
            }
            _ => Response::text(405, "POST a webhook, or GET /__stats or /__log\n"),
        })?;
        Ok(Endpoint { server, stats })
    }

    pub fn url(&self) -> String {
        self.server.url("/webhook")
    }
}

#[cfg(test)]
#[path = "tests_endpoints.rs"]
mod tests;
