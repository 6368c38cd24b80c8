//! The dispatcher: a thin driver of the delivery engine (docs/engine.md)
//! running in the policy artifact (`PolicyInstance::engine_*`, one
//! crossing per batch). The engine decides everything — which event is
//! due, each attempt, retries, holds, probes, store calls, dead letters,
//! drain, the journal's lines; this loop only moves bytes and time:
//!
//! * inputs that arrive together (results, store replies, admissions, a
//!   tick, `drain`) go in ONE `engine-feed`;
//! * the batch's `journal` lines are appended and synced (group commit)
//!   before any of its `send`s starts; `send` and `store_call` go to the
//!   I/O threads ([`io`]); the rest are tallies ([`tally`]), metrics and logs;
//! * `now_ms` is the wall clock plus `--clock-offset-ms`, never fed smaller
//!   than before; `timeout_ms` is when the next `tick` is due.

pub mod io;
mod resumed;
pub mod tally;

use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use retry_policy_core::{InMemoryStore, SystemClock};
use retry_policy_host::{LiveArtifact, PolicyInstance, Swapped, WatchEvent};
use serde_json::{json, Value};

use crate::clock::skewed_now;
use crate::drain::Signals;
use crate::http_client::{ClientConfig, Delivery, HttpClient};
use crate::journal_file::JournalFile;
use crate::metrics::Metrics;
use crate::redis_store::RedisStore;
use crate::signing::Signer;
use io::{log, Done, Pool, SendJob};
pub use tally::{Stop, Tally};

/// An event to admit.
#[derive(Clone, Debug)]
pub struct NewEvent {
    pub event_id: String,
    pub endpoint_id: String,
    pub target: String,
    pub class: String,
    /// When to admit it, in ms after the run's start (`None`: as soon as allowed).
    pub at_ms: Option<u64>,
}

/// How a run admits and sends.
#[derive(Clone, Debug)]
pub struct DriverConfig {
    /// Events busy at once (the engine's `max_in_flight`), and with
    /// `cap_in_progress` events in progress at once (docs/replica.md).
    pub concurrency: usize,
    /// Admit only while fewer than `concurrency` events are open (the
    /// REPLICA contract); off: events waiting for a retry hold nothing (the demo).
    pub cap_in_progress: bool,
    /// Stop admitting this many ms after the start.
    pub deadline_ms: Option<u64>,
    /// Admissions per second.
    pub rate_per_s: Option<f64>,
    pub clock_offset_ms: i64,
    pub skew_check: bool,
    pub client: ClientConfig,
    pub signer: Option<Arc<Signer>>,
    /// How long a drain may take (`--drain-ms`).
    pub drain: Duration,
    /// The document follows the artifact: a swapped-in artifact's embedded
    /// document becomes current for new events.
    pub document_from_artifact: bool,
    /// Keep every stop in order (the demo's flip).
    pub record_stops: bool,
}

impl Default for DriverConfig {
    fn default() -> Self {
        DriverConfig {
            concurrency: 8,
            cap_in_progress: true,
            deadline_ms: None,
            rate_per_s: None,
            clock_offset_ms: 0,
            skew_check: true,
            client: ClientConfig::default(),
            signer: None,
            drain: Duration::from_millis(5000),
            document_from_artifact: false,
            record_stops: false,
        }
    }
}

/// Everything one run needs.
pub struct Run {
    pub artifact: Arc<LiveArtifact>,
    /// The policy document (JSON).
    pub document: String,
    /// `None`: the engine keeps the budget in memory (`memory_store`).
    pub redis: Option<Arc<RedisStore>>,
    pub journal: Option<JournalFile>,
    /// Journals to resume, in order: `--store`'s own bytes, then `--resume`'s.
    pub resume: Vec<Vec<u8>>,
    pub metrics: Arc<Metrics>,
    pub config: DriverConfig,
    pub source: Box<dyn Iterator<Item = NewEvent>>,
    pub signals: Signals,
    /// `--watch-artifact-ms`: the file and how often.
    pub watch: Option<(PathBuf, Duration)>,
    /// Called about once a second while the run lasts (the demo's progress).
    pub progress: Option<Box<dyn FnMut(u64, &Tally)>>,
    /// A `replay` input fed after the resume (the `replay` command).
    pub replay: Option<Value>,
}

/// Messages to the loop from the other threads.
enum Msg {
    Io(Done),
    Swapped(Box<Swapped>),
}

struct Driver {
    inst: PolicyInstance,
    handle: u32,
    last_now: u64,
    start_ms: u64,
    pool: Pool,
    journal: Option<JournalFile>,
    metrics: Arc<Metrics>,
    redis: Option<Arc<RedisStore>>,
    tally: Tally,
    config: DriverConfig,
    /// Open events (admitted or resumed, not yet delivered or dead-lettered).
    open: u64,
    /// Sends out: (event, attempt).
    sends: std::collections::HashSet<(String, u32)>,
    calls: u64,
    /// Events' endpoints while they are open (a `delivered` action names none).
    endpoint_of: std::collections::HashMap<String, String>,
    timeout_at: Option<u64>,
    drained: bool,
}

/// Run until every event stops (or a signal's drain ends); the figures.
pub fn run(mut r: Run) -> Result<Tally, String> {
    let engine = r.artifact.current();
    let mut inst =
        engine.instantiate(SystemClock, InMemoryStore::new()).map_err(|e| format!("policy artifact: {e}"))?;
    let c = &r.config;
    if c.concurrency == 0 || c.concurrency > 1024 {
        return Err(format!("concurrency must be between 1 and 1024, not {}", c.concurrency));
    }
    if c.rate_per_s.is_some_and(|x| !(x.is_finite() && x > 0.0)) {
        return Err("rate must be a positive number of events per second".into());
    }
    let config = json!({"document": r.document, "max_in_flight": c.concurrency, "memory_store": r.redis.is_none(),
        "skew_check": c.skew_check});
    let handle = inst
        .engine_open(&config.to_string())
        .map_err(|e| format!("policy artifact: {e}"))?
        .map_err(|e| format!("policy document: {}", refusal_text(&e)))?;
    let (tx, rx) = channel::<Msg>();
    let (done_tx, done_rx) = channel::<Done>();
    forward(done_rx, tx.clone());
    let http = HttpClient::new(ClientConfig { idle_per_host: c.concurrency, ..c.client.clone() });
    let sender = Arc::new(io::Sender_ {
        http,
        signer: c.signer.clone(),
        metrics: r.metrics.clone(),
        clock_offset_ms: c.clock_offset_ms,
    });
    let pool = Pool::start(c.concurrency * 2, sender, r.redis.clone(), done_tx)?;
    if let Some((path, every)) = r.watch.take() {
        watch(&r.artifact, path, every, tx.clone())?;
    }
    let start_ms = skewed_now(c.clock_offset_ms);
    let mut d = Driver {
        inst,
        handle,
        last_now: 0,
        start_ms,
        pool,
        journal: r.journal.take(),
        metrics: r.metrics.clone(),
        redis: r.redis.clone(),
        tally: Tally::new(),
        config: r.config.clone(),
        open: 0,
        sends: Default::default(),
        calls: 0,
        endpoint_of: Default::default(),
        timeout_at: None,
        drained: false,
    };
    for bytes in std::mem::take(&mut r.resume).iter().filter(|b| !b.is_empty()) {
        let open = resumed::open_events(bytes);
        d.tally.resumed += open;
        d.open += open;
        let now = d.now();
        d.tally.crossings += 1;
        let out = d.inst.engine_resume(d.handle, now, bytes).map_err(|e| format!("policy artifact: {e}"))?;
        d.act(&out.map_err(|e| format!("resume: {}", refusal_text(&e)))?)?;
    }
    if let Some(filter) = r.replay.take() {
        d.feed(vec![filter])?;
    }
    let result = d.run_loop(&mut r, &rx);
    let _ = d.inst.engine_close(d.handle);
    result?;
    d.tally.round_trips = d.redis.as_ref().map_or(0, |s| s.commands());
    d.tally.elapsed_ms = skewed_now(d.config.clock_offset_ms).saturating_sub(d.start_ms);
    Ok(d.tally)
}

/// The I/O threads' answers into the loop's one channel.
fn forward(done: Receiver<Done>, to: Sender<Msg>) {
    std::thread::spawn(move || {
        while let Ok(d) = done.recv() {
            if to.send(Msg::Io(d)).is_err() {
                return;
            }
        }
    });
}

/// `--watch-artifact-ms`: a swap goes to the loop (the engine takes the new
/// embedded document); a refusal is logged here (the old artifact stays).
fn watch(live: &Arc<LiveArtifact>, path: PathBuf, every: Duration, to: Sender<Msg>) -> Result<(), String> {
    let to = std::sync::Mutex::new(to);
    live.watch_artifact(path, every, move |event| match event {
        WatchEvent::Swapped(sw) => {
            let _ = to.lock().unwrap_or_else(|p| p.into_inner()).send(Msg::Swapped(Box::new(sw.clone())));
        }
        refused => log(&refused.line()),
    })
    .map(|_| ())
    .map_err(|e| format!("--watch-artifact-ms: {e}"))
}

/// An engine refusal's `{"error", "message"}` as one line.
fn refusal_text(e: &str) -> String {
    match serde_json::from_str::<Value>(e) {
        Ok(v) => format!("{}: {}", v["error"].as_str().unwrap_or("error"), v["message"].as_str().unwrap_or(e)),
        Err(_) => e.to_string(),
    }
}

impl Driver {
    /// The clock as fed: never smaller than the last value fed.
    fn now(&mut self) -> u64 {
        self.last_now = self.last_now.max(skewed_now(self.config.clock_offset_ms));
        self.last_now
    }

    fn run_loop(&mut self, r: &mut Run, rx: &Receiver<Msg>) -> Result<(), String> {
        let mut source = r.source.by_ref().peekable();
        let mut source_open = true;
        let mut admitted: u64 = 0;
        let mut draining: Option<Instant> = None;
        let mut carry: Vec<Msg> = Vec::new();
        let mut next_progress = Instant::now() + Duration::from_secs(1);
        let mut second = 1;
        loop {
            let now = self.now();
            let mut batch = Vec::new();
            while let Ok(m) = rx.try_recv() {
                carry.push(m);
            }
            for m in carry.drain(..) {
                if let Some(input) = self.input_of(m, now) {
                    batch.push(input);
                }
            }
            if draining.is_none() && r.signals.received() {
                batch.push(json!({"op": "drain", "now_ms": now}));
                draining = Some(Instant::now() + self.config.drain);
                log("draining: no new attempts; in-progress attempts may finish");
            }
            let mut next_admission: Option<u64> = None;
            if draining.is_none() && source_open {
                let elapsed = now.saturating_sub(self.start_ms);
                loop {
                    if self.config.deadline_ms.is_some_and(|d| elapsed >= d) {
                        source_open = false;
                        break;
                    }
                    if self.config.cap_in_progress && self.open >= self.config.concurrency as u64 {
                        break;
                    }
                    let Some(ev) = source.peek() else {
                        source_open = false;
                        break;
                    };
                    let paced = self.config.rate_per_s.map(|rate| (admitted as f64 * 1000.0 / rate) as u64);
                    let due = paced.max(ev.at_ms).unwrap_or(0);
                    if elapsed < due {
                        next_admission = Some(self.start_ms + due);
                        break;
                    }
                    let ev = source.next().expect("peeked");
                    batch.push(json!({"op": "admit", "now_ms": now, "event_id": ev.event_id,
                        "endpoint_id": ev.endpoint_id, "target": ev.target, "class": ev.class}));
                    if self.config.record_stops {
                        *self.tally.admitted_by_endpoint.entry(ev.endpoint_id.clone()).or_default() += 1;
                    }
                    self.endpoint_of.insert(ev.event_id, ev.endpoint_id);
                    admitted += 1;
                    self.open += 1;
                    self.tally.admitted += 1;
                }
            }
            if batch.is_empty() && self.timeout_at.is_some_and(|t| t <= now) {
                batch.push(json!({"op": "tick", "now_ms": now}));
            }
            if !batch.is_empty() {
                self.feed(batch)?;
            }
            if let Some(deadline) = draining {
                if self.drained || Instant::now() >= deadline {
                    // Attempts still out are abandoned: counted as made
                    // (their number is journaled), their events pending.
                    for (_, attempt) in std::mem::take(&mut self.sends) {
                        self.tally.attempted(attempt);
                    }
                    self.tally.drained = true;
                    return self.sync();
                }
            } else if !source_open && self.open == 0 && self.sends.is_empty() && self.calls == 0 {
                return self.sync();
            }
            if let Some(p) = r.progress.as_mut() {
                if Instant::now() >= next_progress {
                    p(second, &self.tally);
                    second += 1;
                    next_progress += Duration::from_secs(1);
                }
            }
            // Wait for an answer, the engine's timeout, the next admission,
            // or (at most 10 ms) a signal.
            let now = self.now();
            let mut wait = 10u64;
            for t in [self.timeout_at, next_admission].into_iter().flatten() {
                wait = wait.min(t.saturating_sub(now));
            }
            match rx.recv_timeout(Duration::from_millis(wait)) {
                Ok(m) => carry.push(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err("the I/O threads are gone".into()),
            }
        }
    }

    /// An answer from another thread as the engine's input (`None`: nothing to feed).
    fn input_of(&mut self, m: Msg, now: u64) -> Option<Value> {
        match m {
            Msg::Io(Done::Sent { event_id, attempt, delivery }) => {
                self.sends.remove(&(event_id.clone(), attempt));
                let mut input = json!({"op": "result", "now_ms": now, "event_id": event_id, "attempt": attempt});
                match delivery {
                    Delivery::NotSent => input["not_started"] = true.into(),
                    Delivery::Response { status, retry_after } => {
                        self.tally.attempted(attempt);
                        input["status"] = status.into();
                        if let Some(ra) = retry_after {
                            input["retry_after"] = ra.into();
                        }
                    }
                    Delivery::Failed(kind) => {
                        self.tally.attempted(attempt);
                        input["error_kind"] = kind.into();
                    }
                }
                Some(input)
            }
            Msg::Io(Done::Stored { call_id, reply }) => {
                self.calls = self.calls.saturating_sub(1);
                Some(match reply {
                    Some(ints) => json!({"op": "store", "now_ms": now, "call_id": call_id, "reply": ints}),
                    None => json!({"op": "store", "now_ms": now, "call_id": call_id, "failed": true}),
                })
            }
            Msg::Swapped(sw) => {
                let version = self.swapped(&sw);
                let doc = sw.new.document_json.clone().filter(|_| self.config.document_from_artifact);
                self.metrics.set_policy_info(&sw.new, &version);
                doc.map(|d| json!({"op": "swap", "now_ms": now, "document": d}))
            }
        }
    }

    /// Log a swap; the version of the document new events get.
    fn swapped(&self, sw: &Swapped) -> String {
        let version = match (&sw.new.document_json, self.config.document_from_artifact) {
            (Some(d), true) => document_version(d),
            _ => self.metrics.policy_info().map(|i| i[2].clone()).unwrap_or_default(),
        };
        let shown = crate::artifact_reload::with_document_version(&sw.new, &version);
        log(&Swapped { new: shown, ..sw.clone() }.line());
        version
    }

    /// One crossing: the batch in, its actions done.
    fn feed(&mut self, batch: Vec<Value>) -> Result<(), String> {
        let text = Value::Array(batch).to_string();
        self.tally.crossings += 1;
        let out = self.inst.engine_feed(self.handle, &text).map_err(|e| format!("policy artifact: {e}"))?;
        self.act(&out.map_err(|e| format!("engine: {}", refusal_text(&e)))?)
    }

    /// A batch's answer: journal lines first (appended, then synced once),
    /// then every other action in order.
    fn act(&mut self, answer: &str) -> Result<(), String> {
        let v: Value = serde_json::from_str(answer).map_err(|e| format!("engine answered no JSON: {e}"))?;
        for e in v["errors"].as_array().into_iter().flatten() {
            log(&format!("engine refused an input: {}: {}", e["error"].as_str().unwrap_or("?"), e["message"]));
        }
        let outputs = v["outputs"].as_array().map(Vec::as_slice).unwrap_or_default();
        if let Some(j) = self.journal.as_mut() {
            for o in outputs {
                match o["action"].as_str() {
                    Some("journal") => j.append(o["line"].as_str().unwrap_or_default())?,
                    Some("journal_truncate") => j.truncate(o["keep_bytes"].as_u64().unwrap_or(0))?,
                    _ => {}
                }
            }
            j.sync()?;
        }
        for o in outputs {
            self.output(o);
        }
        self.timeout_at = v["timeout_ms"].as_u64();
        Ok(())
    }

    fn output(&mut self, o: &Value) {
        match o["action"].as_str().unwrap_or_default() {
            "journal" | "journal_truncate" => {}
            "send" => match SendJob::from_action(o) {
                Some(job) => {
                    self.endpoint_of.entry(job.event_id.clone()).or_insert_with(|| job.endpoint_id.clone());
                    self.sends.insert((job.event_id.clone(), job.attempt));
                    self.pool.send(job);
                }
                None => log(&format!("engine: a send action without its fields: {o}")),
            },
            "store_call" => {
                let argv: Vec<String> =
                    o["argv"].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(str::to_string)).collect();
                let call_id = o["call_id"].as_u64().unwrap_or(0);
                self.calls += 1;
                if self.redis.is_some() {
                    self.pool.store(call_id, o["key"].as_str().unwrap_or_default().to_string(), argv);
                } else {
                    // Not reachable with `memory_store` (the engine answers its own calls).
                    log("engine asked for a store call without a store: answered failed");
                    let _ = self.feed(vec![json!({"op": "store", "now_ms": self.last_now, "call_id": call_id,
                        "failed": true})]);
                    self.calls -= 1;
                }
            }
            "delivered" => {
                let id = o["event_id"].as_str().unwrap_or_default().to_string();
                let endpoint_id = self.endpoint_of.remove(&id).unwrap_or_default();
                let attempts = o["attempts"].as_u64().unwrap_or(0);
                self.stopped(Stop {
                    event_id: id,
                    endpoint_id,
                    reason: "delivered".into(),
                    attempts,
                    at_ms: self.last_now,
                });
            }
            "dead_letter" => {
                let dl = &o["dead_letter"];
                let text = |k: &str| dl[k].as_str().unwrap_or_default().to_string();
                self.endpoint_of.remove(&text("event_id"));
                let attempts = dl["attempts"].as_u64().unwrap_or(0);
                let (event_id, endpoint_id, reason) = (text("event_id"), text("endpoint_id"), text("stop_reason"));
                self.stopped(Stop { event_id, endpoint_id, reason, attempts, at_ms: self.last_now });
            }
            "hold" => *self.tally.holds.entry(o["reason"].as_str().unwrap_or("?").to_string()).or_default() += 1,
            "count" => {
                let label = o["label"].as_object().and_then(|m| m.iter().next());
                let label = label.map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default()));
                if let Err(e) =
                    self.metrics.count(o["name"].as_str().unwrap_or_default(), label, o["delta"].as_u64().unwrap_or(0))
                {
                    log(&e);
                }
            }
            "gauge" => {
                let value = o["value"].as_u64().unwrap_or(0);
                self.tally.held = value;
                if let Err(e) = self.metrics.gauge(o["name"].as_str().unwrap_or_default(), value) {
                    log(&e);
                }
            }
            "replayed" => self.tally.replayed = Some(o.clone()),
            "drained" => self.drained = true,
            "warn" => log(&format!("engine: {}", o["message"].as_str().unwrap_or_default())),
            other => log(&format!("engine: unknown action {other}")),
        }
    }

    fn stopped(&mut self, stop: Stop) {
        self.open = self.open.saturating_sub(1);
        *self.tally.stops.entry(stop.reason.clone()).or_default() += 1;
        if self.config.record_stops {
            self.tally.stop_log.push(stop);
        }
    }

    fn sync(&mut self) -> Result<(), String> {
        match self.journal.as_mut() {
            Some(j) => j.sync().map_err(|e| e.to_string()),
            None => Ok(()),
        }
    }
}

/// A JSON document's `version` ("" when it has none).
pub fn document_version(document: &str) -> String {
    serde_json::from_str::<Value>(document)
        .ok()
        .and_then(|v| v["version"].as_str().map(str::to_string))
        .unwrap_or_default()
}
