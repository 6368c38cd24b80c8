//! Local webhook endpoints for demos, tests and benchmarks: each answers
//! every POST with a fixed status (200 healthy, 503 broken, 410 gone, ...)
//! and counts what it received — first attempts and retries apart (by the
//! `X-Attempt` header the Rust dispatcher sends; requests without it count
//! as `unlabelled`) — and can keep a log of `(Unix ms, attempt,
//! event id)` per request for time-sliced analysis.
//!
//! `GET /__stats` answers the counts as JSON; `GET /__log` the log as JSON
//! lines (`{"t_ms":..,"attempt":..,"event_id":..}`).

use std::fmt::Write as _;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::http_server::{Response, Server};

/// Requests received by one endpoint.
#[derive(Debug)]
pub struct EndpointStats {
    pub status: u16,
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

    pub fn to_json(&self) -> serde_json::Value {
        json!({"status": self.status, "requests": self.requests(), "first_attempts": self.first_attempts(),
               "retries": self.retries(), "unlabelled": self.requests() - self.first_attempts() - self.retries()})
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
        let stats = Arc::new(EndpointStats {
            status,
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
                        l.push((crate::dispatcher::now_ms(), attempt.unwrap_or(0), id));
                    }
                }
                Response::new(status, "application/json", format!("{{\"status\":{status}}}"))
            }
            _ => Response::text(405, "POST a webhook, or GET /__stats or /__log\n"),
        })?;
        Ok(Endpoint { server, stats })
    }

    pub fn url(&self) -> String {
        self.server.url("/webhook")
    }
}
