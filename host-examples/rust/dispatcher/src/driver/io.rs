//! The driver's I/O threads: the engine's `send` actions become HTTP POSTs
//! (the host's client, destination checks, signing) and its `store_call`
//! actions become `EVALSHA`s of `fleet/budget.lua` (the host's Redis
//! client); each answer goes back to the driver's loop as a [`Done`], which
//! feeds it to the engine. Nothing here decides anything.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use base64::Engine as _;
use serde_json::json;

use crate::http_client::{Delivery, HttpClient, SendEdge};
use crate::metrics::Metrics;
use crate::redis_store::RedisStore;
use crate::signing::Signer;
use crate::transport_kind as kind;

/// A `send` action, as the engine wrote it (docs/engine.md section 4 step 6).
#[derive(Clone, Debug, serde::Deserialize)]
pub struct SendJob {
    pub event_id: String,
    pub attempt: u32,
    pub endpoint_id: String,
    pub target: String,
    pub body_b64: Option<String>,
    pub first_attempted_at_ms: u64,
    pub start_before_ms: u64,
    #[serde(default)]
    pub refresh_credentials: bool,
}

/// What came back from an I/O thread.
pub enum Done {
    /// A send ended (or was not started: its `start_before_ms` had passed).
    Sent { event_id: String, attempt: u32, delivery: Delivery },
    /// A store call's integers, or `None`: it failed (an error, its timeout).
    Stored { call_id: u64, reply: Option<Vec<i64>> },
}

/// Everything a send needs besides the job.
pub struct Sender_ {
    pub http: HttpClient,
    pub signer: Option<Arc<Signer>>,
    pub metrics: Arc<Metrics>,
    pub clock_offset_ms: i64,
}

impl Sender_ {
    /// One attempt: the POST of `{"event_id", "attempt"}` (or the event's
    /// own payload) with `X-Event-Id`, `X-Attempt`, `X-First-Attempted-At-Ms`
    /// and, with signing secrets, the Standard Webhooks headers; never
    /// written at or after `start_before_ms` (re-checked by the client after
    /// the DNS lookup and the connection).
    pub fn send(&self, job: &SendJob) -> Delivery {
        if let (true, Some(g)) = (job.refresh_credentials, &self.signer) {
            if let Err(e) = g.refresh(&job.endpoint_id) {
                log(&format!("endpoint {}: cannot reload its signing secrets: {e}", job.endpoint_id));
            }
        }
        let body = match job.body_b64.as_deref().and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        {
            Some(b) => b,
            None => json!({"event_id": job.event_id, "attempt": job.attempt}).to_string().into_bytes(),
        };
        let attempt = job.attempt.to_string();
        let first_at = job.first_attempted_at_ms.to_string();
        let mut headers = vec![
            ("X-Event-Id", job.event_id.as_str()),
            ("X-Attempt", attempt.as_str()),
            ("X-First-Attempted-At-Ms", first_at.as_str()),
        ];
        let edge = SendEdge { deadline_ms: job.start_before_ms, clock_offset_ms: self.clock_offset_ms };
        if edge.passed() {
            return Delivery::NotSent;
        }
        let post =
            |h: &[(&str, &str)]| self.metrics.delivery(|| self.http.post_before(&job.target, h, &body, Some(edge)));
        let now = crate::clock::skewed_now(self.clock_offset_ms);
        // Without a secret the attempt is not sent unsigned: the (terminal)
        // kind `credentials_unavailable`.
        match self.signer.as_ref().map(|g| g.headers(&job.endpoint_id, &job.event_id, now, &body)) {
            Some(Err(e)) => {
                log(&format!("event {}: not sent: {e}", job.event_id));
                Delivery::Failed(kind::CREDENTIALS_UNAVAILABLE)
            }
            Some(Ok([id, ts, sig])) => {
                headers.extend([("webhook-id", id.as_str()), ("webhook-timestamp", ts.as_str())]);
                headers.push(("webhook-signature", sig.as_str()));
                post(&headers)
            }
            None => post(&headers),
        }
    }
}

/// A store call: `EVALSHA` of the script with `key` and `argv`, timed in
/// `webhook_budget_store_duration_seconds`.
fn store_call(redis: &RedisStore, metrics: &Metrics, key: &str, argv: &[String]) -> Option<Vec<i64>> {
    let started = Instant::now();
    let reply = redis.call_ints(key, argv);
    metrics.store_duration(started.elapsed());
    match reply {
        Ok(ints) => Some(ints),
        Err(e) => {
            log(&format!("budget store call failed: {e}"));
            None
        }
    }
}

enum Job {
    Send(SendJob),
    Store { call_id: u64, key: String, argv: Vec<String> },
}

/// `threads` I/O threads taking jobs from one queue.
pub struct Pool {
    jobs: Option<Sender<Job>>,
}

impl Pool {
    /// Start the threads; every answer goes to `done` (as `wrap` makes it
    /// the receiver's message: one hop, no forwarding thread).
    pub fn start<M: Send + 'static>(
        threads: usize,
        sender: Arc<Sender_>,
        redis: Option<Arc<RedisStore>>,
        done: Sender<M>,
        wrap: fn(Done) -> M,
    ) -> Result<Pool, String> {
        let (tx, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..threads.max(1) {
            let (rx, done, sender, redis) = (rx.clone(), done.clone(), sender.clone(), redis.clone());
            thread::Builder::new()
                .name(format!("io-{i}"))
                .spawn(move || worker(&rx, &done, wrap, &sender, redis.as_deref()))
                .map_err(|e| format!("cannot start an I/O thread: {e}"))?;
        }
        Ok(Pool { jobs: Some(tx) })
    }

    pub fn send(&self, job: SendJob) {
        if let Some(tx) = &self.jobs {
            let _ = tx.send(Job::Send(job));
        }
    }

    pub fn store(&self, call_id: u64, key: String, argv: Vec<String>) {
        if let Some(tx) = &self.jobs {
            let _ = tx.send(Job::Store { call_id, key, argv });
        }
    }
}

fn worker<M>(
    rx: &Mutex<Receiver<Job>>,
    done: &Sender<M>,
    wrap: fn(Done) -> M,
    sender: &Sender_,
    redis: Option<&RedisStore>,
) {
    loop {
        let job = match rx.lock().unwrap_or_else(|p| p.into_inner()).recv() {
            Ok(job) => job,
            Err(_) => return, // the driver is gone
        };
        let answer = match job {
            Job::Send(j) => {
                let delivery = sender.send(&j);
                Done::Sent { event_id: j.event_id, attempt: j.attempt, delivery }
            }
            Job::Store { call_id, key, argv } => {
                let reply = redis.and_then(|r| store_call(r, &sender.metrics, &key, &argv));
                Done::Stored { call_id, reply }
            }
        };
        if done.send(wrap(answer)).is_err() {
            return;
        }
    }
}

/// One line on stderr.
pub fn log(msg: &str) {
    eprintln!("dispatcher: {}", crate::redact::log_line(msg));
}
