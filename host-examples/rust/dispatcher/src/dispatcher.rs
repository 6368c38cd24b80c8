//! The dispatcher: `concurrency` worker threads, each with its own instance
//! of the policy component, share one queue of due attempts (a min-heap on
//! the due instant) and one source of new events. A worker takes the
//! earliest due retry first, else the next new event (paced by an optional
//! rate); events waiting for a retry hold no worker. The dispatcher is done
//! when the source is drained (or the deadline passed) and no event is
//! pending.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use retry_policy_core::{Clock, InMemoryStore, SystemClock};
use retry_policy_host::{Policies, PolicyEngine, PolicyInstance};

use crate::budget_store::BudgetStore;
use crate::http_client::{ClientConfig, HttpClient};
use crate::metrics::Metrics;
use crate::signing::Signer;
use crate::store::{EventRecord, EventStore, Status};
use crate::worker;

/// A new event to deliver.
#[derive(Clone, Debug)]
pub struct NewEvent {
    pub event_id: String,
    pub endpoint_id: String,
    /// `http://host:port/path`
    pub target: String,
    /// Event class of the policy document.
    pub class: String,
    /// Start it no earlier than this many ms after the dispatcher started
    /// (`None`: as the rate allows).
    pub at_ms: Option<u64>,
}

/// How the dispatcher runs.
#[derive(Clone, Debug)]
pub struct DispatcherConfig {
    /// Worker threads = deliveries in flight.
    pub concurrency: usize,
    /// Delivery: connect timeout, attempt deadline, private targets.
    pub client: ClientConfig,
    /// Added to this process's clock (tests of replicas with skewed clocks).
    pub clock_offset_ms: i64,
    /// Start no new event after this many ms from start (retries go on).
    pub deadline_ms: Option<u64>,
    /// New events per second, for events without `at_ms` (`None` = as fast
    /// as workers take them).
    pub rate_per_s: Option<f64>,
    /// Standard Webhooks signing with per-endpoint secrets (`None`: unsigned).
    pub signer: Option<Arc<Signer>>,
}

impl Default for DispatcherConfig {
    fn default() -> Self {
        DispatcherConfig {
            concurrency: 8,
            client: ClientConfig::default(),
            clock_offset_ms: 0,
            deadline_ms: None,
            rate_per_s: None,
            signer: None,
        }
    }
}

pub(crate) struct Queue {
    heap: BinaryHeap<Reverse<(u64, u64)>>,
    /// Scheduled attempts: event id, and whether it was reloaded from a journal.
    jobs: HashMap<u64, (String, bool)>,
    seq: u64,
    source: Option<Box<dyn Iterator<Item = NewEvent> + Send>>,
    /// The next new event, taken from `source` but not yet due.
    peeked: Option<NewEvent>,
    started_new: u64,
    in_flight: usize,
}

/// What the workers share.
pub(crate) struct Shared {
    pub engine: PolicyEngine,
    /// The current document and every policy events were admitted under
    /// (by hash): reloaded without a restart ([`crate::policy_reload`]).
    pub policies: Policies,
    /// Classes the source's events need: a reload without one is refused.
    pub needed_classes: Vec<String>,
    pub budget: BudgetStore,
    pub store: EventStore,
    pub http: HttpClient,
    pub metrics: Arc<Metrics>,
    pub config: DispatcherConfig,
    pub start_ms: u64,
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// This machine's wall clock, in Unix milliseconds.
pub fn now_ms() -> u64 {
    SystemClock.now_ms()
}

/// The wall clock plus `offset_ms` (saturating).
pub fn skewed_now(offset_ms: i64) -> u64 {
    let t = now_ms();
    if offset_ms >= 0 {
        t.saturating_add(offset_ms as u64)
    } else {
        t.saturating_sub(offset_ms.unsigned_abs())
    }
}

enum Job {
    New(NewEvent),
    Attempt(String, bool),
}

impl Shared {
    /// The dispatcher's clock: the wall clock plus `clock_offset_ms`.
    pub fn now(&self) -> u64 {
        skewed_now(self.config.clock_offset_ms)
    }

    /// Queue an attempt of `event_id` at `due_ms` (`reloaded`: from a journal).
    pub fn schedule(&self, event_id: String, due_ms: u64, reloaded: bool) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.seq += 1;
        let seq = q.seq;
        q.jobs.insert(seq, (event_id, reloaded));
        q.heap.push(Reverse((due_ms, seq)));
        drop(q);
        self.wake.notify_one();
    }

    fn next_job(&self) -> Option<Job> {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let now = self.now();
            let mut wait_ms = 50;
            if let Some(Reverse((due, seq))) = q.heap.peek().copied() {
                if due <= now {
                    q.heap.pop();
                    let Some((id, reloaded)) = q.jobs.remove(&seq) else { continue };
                    q.in_flight += 1;
                    return Some(Job::Attempt(id, reloaded));
                }
                wait_ms = wait_ms.min(due - now);
            }
            if self.config.deadline_ms.is_some_and(|d| now >= self.start_ms.saturating_add(d)) {
                q.source = None; // stop starting new work
                q.peeked = None;
            }
            if q.peeked.is_none() && q.source.is_some() {
                q.peeked = q.source.as_mut().and_then(|s| s.next());
                if q.peeked.is_none() {
                    q.source = None;
                }
            }
            if let Some(at_ms) = q.peeked.as_ref().map(|e| e.at_ms) {
                let next_at = match (at_ms, self.config.rate_per_s) {
                    (Some(at), _) => self.start_ms.saturating_add(at),
                    (None, Some(r)) if r > 0.0 => self.start_ms + (q.started_new as f64 * 1000.0 / r) as u64,
                    _ => now,
                };
                if next_at <= now {
                    if let Some(ev) = q.peeked.take() {
                        q.started_new += 1;
                        q.in_flight += 1;
                        return Some(Job::New(ev));
                    }
                }
                wait_ms = wait_ms.min(next_at.saturating_sub(now));
            }
            if q.source.is_none() && q.peeked.is_none() && q.heap.is_empty() && q.in_flight == 0 {
                drop(q);
                self.wake.notify_all();
                return None;
            }
            q = self.wake.wait_timeout(q, Duration::from_millis(wait_ms.max(1))).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    fn job_done(&self) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.in_flight = q.in_flight.saturating_sub(1);
        drop(q);
        self.wake.notify_all();
    }
}

/// A running dispatcher.
pub struct Dispatcher {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Dispatcher {
    /// Load the policy document (validated by the component), check that
    /// every class `needed` exists, resume the `resumed` records (pending
    /// ones keep their first-attempt instant and are due at their recorded
    /// instant), and start the workers on `source`.
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        engine: PolicyEngine,
        document_json: &str,
        needed_classes: &[&str],
        budget: BudgetStore,
        store: EventStore,
        metrics: Arc<Metrics>,
        config: DispatcherConfig,
        resumed: Vec<EventRecord>,
        source: Box<dyn Iterator<Item = NewEvent> + Send>,
    ) -> Result<Dispatcher, String> {
        if config.concurrency == 0 || config.concurrency > 1024 {
            return Err(format!("concurrency must be between 1 and 1024, not {}", config.concurrency));
        }
        if config.rate_per_s.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return Err("rate must be a positive number of events per second".into());
        }
        let mut inst = instance(&engine)?;
        let needed = || needed_classes.iter().copied().chain(resumed.iter().map(|r| r.class.as_str()));
        let policies =
            Policies::new_checked(&mut inst, document_json, |doc| crate::policy_reload::has_classes(doc, needed()))
                .map_err(|e| format!("policy document: {e}"))?;
        let start_ms = skewed_now(config.clock_offset_ms);
        let http = HttpClient::new(ClientConfig { idle_per_host: config.concurrency, ..config.client });
        let shared = Arc::new(Shared {
            engine,
            policies,
            needed_classes: needed_classes.iter().map(|c| c.to_string()).collect(),
            budget,
            store,
            http,
            metrics,
            config,
            start_ms,
            queue: Mutex::new(Queue {
                heap: BinaryHeap::new(),
                jobs: HashMap::new(),
                seq: 0,
                source: Some(source),
                peeked: None,
                started_new: 0,
                in_flight: 0,
            }),
            wake: Condvar::new(),
        });
        for rec in resumed {
            shared.store.put(&rec)?;
            if rec.status == Status::Pending {
                shared.schedule(rec.event_id.clone(), rec.next_attempt_at_ms, true);
            }
        }
        let mut workers = Vec::new();
        for i in 0..shared.config.concurrency {
            let s = shared.clone();
            let mut policy = instance(&s.engine)?;
            let h = thread::Builder::new()
                .name(format!("dispatch-{i}"))
                .spawn(move || {
                    while let Some(job) = s.next_job() {
                        match job {
                            Job::New(ev) => worker::first_attempt(&s, &mut policy, ev),
                            Job::Attempt(id, reloaded) => worker::next_attempt(&s, &mut policy, &id, reloaded),
                        }
                        s.job_done();
                    }
                })
                .map_err(|e| format!("cannot start a worker thread: {e}"))?;
            workers.push(h);
        }
        Ok(Dispatcher { shared, workers })
    }

    /// Load a new policy document now: validated by the component (and for
    /// the classes this dispatcher's events need) before the swap; on error
    /// the current document stays and the error says why. New events are
    /// admitted under it; events in flight keep the policy they were
    /// admitted under. Returns the new document's version.
    pub fn reload_policy(&self, document_json: &str) -> Result<String, String> {
        self.shared.reload_policy(document_json)
    }

    /// Reload the policy whenever `path` changes (polled every `interval`),
    /// while this dispatcher lives; each result is logged and counted in
    /// `webhook_policy_reloads_total{result}`.
    pub fn watch_policy(&self, path: &std::path::Path, interval: Duration) {
        crate::policy_reload::watch(Arc::downgrade(&self.shared), path.to_path_buf(), interval);
    }

    /// The version of the document new events are admitted under.
    pub fn policy_version(&self) -> String {
        self.shared.policies.current().version.clone()
    }

    pub fn store(&self) -> &EventStore {
        &self.shared.store
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.shared.metrics
    }

    pub fn budget(&self) -> &BudgetStore {
        &self.shared.budget
    }

    /// New events started so far.
    pub fn started(&self) -> u64 {
        self.shared.queue.lock().unwrap_or_else(|p| p.into_inner()).started_new
    }

    /// Whether every event has stopped and no new one will start.
    pub fn is_idle(&self) -> bool {
        let q = self.shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.source.is_none() && q.peeked.is_none() && q.heap.is_empty() && q.in_flight == 0
    }

    /// Milliseconds since the Unix epoch when the dispatcher started.
    pub fn start_ms(&self) -> u64 {
        self.shared.start_ms
    }

    /// Wait until every event has stopped (then read the store and metrics).
    pub fn wait(mut self) -> Self {
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
        self
    }
}

pub(crate) fn instance(engine: &PolicyEngine) -> Result<PolicyInstance, String> {
    // The imports-driven WIT `decide` is not used (the step is driven here,
    // against the dispatcher's own store), so the instance's store stays empty.
    engine.instantiate(SystemClock, InMemoryStore::new()).map_err(|e| e.to_string())
}
