//! The dispatcher: a thin driver of the delivery engine (docs/engine.md)
//! running in the policy artifact (`PolicyInstance::engine_*`, one
//! crossing per batch). The engine decides everything — which event is
//! due, each attempt, retries, holds, probes, store calls, dead letters,
//! drain, the journal's lines; this loop only moves bytes and time:
//!
//! * inputs that arrive together (results, store replies, admissions, a
//!   tick, `drain`) go in ONE `engine-feed` ([`step`]);
//! * the batch's `journal` lines are appended and synced (group commit)
//!   before any of its `send`s starts; `send` and `store_call` go to the
//!   I/O threads ([`io`]); the rest are tallies ([`tally`]), metrics and
//!   logs ([`actions`]);
//! * `now_ms` is the wall clock plus `--clock-offset-ms`, never fed smaller
//!   than before; `timeout_ms` is when the next `tick` is due;
//! * a swapped-in artifact gets a new engine that resumes the old one's
//!   `snapshot` ([`swap`]).

mod actions;
mod admissions;
pub mod io;
mod step;
mod swap;
pub mod tally;

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::time::Duration;

use retry_policy_core::{InMemoryStore, SystemClock};
use retry_policy_host::{LiveArtifact, PolicyEngine, PolicyInstance, Swapped, WatchEvent};
use serde_json::{json, Value};

use crate::clock::skewed_now;
use crate::drain::Signals;
use crate::http_client::{ClientConfig, HttpClient};
use crate::journal_file::JournalFile;
use crate::metrics::Metrics;
use crate::redis_store::RedisStore;
use crate::signing::Signer;
use io::{log, Done, Pool};
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
    /// At most `concurrency` events open (the REPLICA contract): the
    /// engine's `max_open`; off: events waiting for a retry hold nothing (the demo).
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
    /// Keep every stop in order (the demo's flip, the tests).
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

/// Called with the second and the figures so far.
pub type Progress = Box<dyn FnMut(u64, &Tally)>;

/// Everything one run needs.
pub struct Run {
    pub artifact: Arc<LiveArtifact>,
    /// The policy document (JSON).
    pub document: String,
    /// `None`: the engine keeps the budget in memory (`memory_store`).
    pub redis: Option<Arc<RedisStore>>,
    pub journal: Option<JournalFile>,
    /// `--store`'s own bytes, resumed first (a torn tail is cut off the file).
    pub store_bytes: Vec<u8>,
    /// `--resume`'s bytes (another run's journal, read only), resumed next
    /// with `copy`: its open events are journaled into `journal`.
    pub resume_bytes: Option<Vec<u8>>,
    pub metrics: Arc<Metrics>,
    pub config: DriverConfig,
    pub source: Box<dyn Iterator<Item = NewEvent>>,
    pub signals: Signals,
    /// `--watch-artifact-ms`: the file and how often.
    pub watch: Option<(PathBuf, Duration)>,
    /// `--watch-policy`: the policy file and how often; a new document is
    /// fed as `swap` (the classes in `needed` required first).
    pub watch_policy: Option<(PathBuf, Duration)>,
    /// The classes this run's events are admitted in.
    pub needed: Vec<String>,
    /// `--artifact-from-redis`: started with the loop's swap hand-off once
    /// the loop can take swaps (docs/rollout.md).
    pub follow: Option<Follow>,
    /// Called about once a second while the run lasts (the demo's progress).
    pub progress: Option<Progress>,
}

/// Starts a follower of the fleet rollout; its argument hands a swap to the loop.
pub type Follow = Box<dyn FnOnce(Box<dyn Fn(Swapped) + Send>) -> Result<(), String>>;

/// Messages to the loop from the other threads.
enum Msg {
    Io(Done),
    Swapped(Box<Swapped>),
    /// `--watch-policy`: the file's new text, or why it could not be read.
    Document(Result<String, String>),
}

struct Driver {
    inst: PolicyInstance,
    handle: u32,
    artifact: Arc<LiveArtifact>,
    /// The current document (a swapped-in artifact's, when it follows the artifact).
    document: String,
    last_now: u64,
    start_ms: u64,
    pool: Pool,
    journal: Option<JournalFile>,
    metrics: Arc<Metrics>,
    redis: Option<Arc<RedisStore>>,
    tally: Tally,
    config: DriverConfig,
    /// Sends out: (event, attempt).
    sends: std::collections::HashSet<(String, u32)>,
    calls: u64,
    /// Events' endpoints while they are open (a `delivered` action names none).
    endpoint_of: std::collections::HashMap<String, String>,
    timeout_at: Option<u64>,
    drained: bool,
    /// Resuming the old engine's snapshot into a new one: its events are
    /// not new to the run (no `resumed` count) and its bytes are not the
    /// journal file's (no `journal_truncate`).
    migrating: bool,
    /// An artifact swapped in, waiting for the old engine to drain.
    swap_to: Option<PolicyEngine>,
    /// The live artifact's generation this driver has taken in: when the
    /// watcher swapped again, its message is on the way and nothing is
    /// admitted on the old engine meanwhile.
    generation: u64,
    /// The old engine's `snapshot` action.
    snapshot: Option<String>,
    /// The classes this run's events are admitted in.
    needed: Vec<String>,
}

/// Open an engine for `document` in `inst`: its budget in memory without
/// Redis, its journal lines only for a run that keeps a journal, and with
/// `cap_in_progress` at most `concurrency` open events (`max_open`).
fn open_engine(
    inst: &mut PolicyInstance,
    document: &str,
    c: &DriverConfig,
    memory: bool,
    journal: bool,
) -> Result<u32, String> {
    let mut config = json!({"document": document, "max_in_flight": c.concurrency, "memory_store": memory,
        "skew_check": c.skew_check, "journal": journal});
    if c.cap_in_progress {
        config["max_open"] = c.concurrency.into();
    }
    inst.engine_open(&config.to_string())
        .map_err(|e| format!("policy artifact: {e}"))?
        .map_err(|e| format!("policy document: {}", refusal_text(&e)))
}

fn instantiate(engine: &PolicyEngine) -> Result<PolicyInstance, String> {
    engine.instantiate(SystemClock, InMemoryStore::new()).map_err(|e| format!("policy artifact: {e}"))
}

/// Run until every event stops (or a signal's drain ends); the figures.
pub fn run(mut r: Run) -> Result<Tally, String> {
    let c = &r.config;
    if c.concurrency == 0 || c.concurrency > 1024 {
        return Err(format!("concurrency must be between 1 and 1024, not {}", c.concurrency));
    }
    if c.rate_per_s.is_some_and(|x| !(x.is_finite() && x > 0.0)) {
        return Err("rate must be a positive number of events per second".into());
    }
    let mut inst = instantiate(&r.artifact.current())?;
    let handle = open_engine(&mut inst, &r.document, c, r.redis.is_none(), r.journal.is_some())?;
    let (tx, rx) = channel::<Msg>();
    let http = HttpClient::new(ClientConfig { idle_per_host: c.concurrency, ..c.client.clone() });
    let sender = Arc::new(io::Sender_ {
        http,
        signer: c.signer.clone(),
        metrics: r.metrics.clone(),
        clock_offset_ms: c.clock_offset_ms,
    });
    let pool = Pool::start(c.concurrency * 2, sender, r.redis.clone(), tx.clone(), Msg::Io)?;
    if let Some((path, every)) = r.watch.take() {
        watch(&r.artifact, path, every, tx.clone())?;
    }
    if let Some(start) = r.follow.take() {
        let to = tx.clone();
        start(Box::new(move |sw| {
            let _ = to.send(Msg::Swapped(Box::new(sw)));
        }))?;
    }
    if let Some((path, every)) = r.watch_policy.take() {
        let (to, shown) = (tx.clone(), path.display().to_string());
        retry_policy_host::poll_file(path, every, move |tick| match tick {
            None => true,
            Some(text) => to.send(Msg::Document(text.map_err(|e| format!("{shown}: {e}")))).is_ok(),
        })
        .map_err(|e| format!("--watch-policy: {e}"))?;
    }
    let mut d = Driver {
        inst,
        handle,
        artifact: r.artifact.clone(),
        document: r.document.clone(),
        last_now: 0,
        start_ms: skewed_now(c.clock_offset_ms),
        pool,
        journal: r.journal.take(),
        metrics: r.metrics.clone(),
        redis: r.redis.clone(),
        tally: Tally::new(),
        config: r.config.clone(),
        sends: Default::default(),
        calls: 0,
        endpoint_of: Default::default(),
        timeout_at: None,
        drained: false,
        migrating: false,
        swap_to: None,
        generation: r.artifact.generation(),
        snapshot: None,
        needed: std::mem::take(&mut r.needed),
    };
    d.resume(std::mem::take(&mut r.store_bytes), r.resume_bytes.take())?;
    let result = d.run_loop(&mut r, &rx);
    let _ = d.inst.engine_close(d.handle);
    result?;
    d.tally.round_trips = d.redis.as_ref().map_or(0, |s| s.commands());
    d.tally.elapsed_ms = skewed_now(d.config.clock_offset_ms).saturating_sub(d.start_ms);
    Ok(d.tally)
}

/// `--watch-artifact-ms`: a swap goes to the loop (a new engine on the new
/// artifact, [`swap`]); a refusal is logged here (the old artifact stays).
fn watch(live: &Arc<LiveArtifact>, path: PathBuf, every: Duration, to: Sender<Msg>) -> Result<(), String> {
    live.watch_artifact(path, every, move |event| match event {
        WatchEvent::Swapped(sw) => {
            let _ = to.send(Msg::Swapped(Box::new(sw.clone())));
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

/// A JSON document's `version` ("" when it has none).
pub fn document_version(document: &str) -> String {
    serde_json::from_str::<Value>(document)
        .ok()
        .and_then(|v| v["version"].as_str().map(str::to_string))
        .unwrap_or_default()
}

impl Driver {
    /// The clock as fed: never smaller than the last value fed.
    fn now(&mut self) -> u64 {
        self.last_now = self.last_now.max(skewed_now(self.config.clock_offset_ms));
        self.last_now
    }

    /// `--store`'s own bytes (`engine-resume`: a torn tail is cut off the
    /// file), then `--resume`'s (`resume {copy: true}`: read only, its open
    /// events journaled into ours).
    fn resume(&mut self, own: Vec<u8>, other: Option<Vec<u8>>) -> Result<(), String> {
        if !own.is_empty() {
            let now = self.now();
            let out =
                self.cross(|inst, h| inst.engine_resume(h, now, &own)).map_err(|e| format!("policy artifact: {e}"))?;
            if let Some(e) = self.act(&out.map_err(|e| format!("--store: {}", refusal_text(&e)))?)?.first() {
                return Err(format!("--store: {e}"));
            }
        }
        if let Some(bytes) = other.filter(|b| !b.is_empty()) {
            // A torn tail may end inside a character: lossy text leaves it torn.
            let journal = String::from_utf8_lossy(&bytes);
            let now = self.now();
            let refused = self.feed(vec![json!({"op": "resume", "now_ms": now, "journal": journal, "copy": true})])?;
            if let Some(e) = refused.first() {
                return Err(format!("--resume: {e}"));
            }
        }
        Ok(())
    }
}
