//! What the dispatcher's workers share: the configuration, the live
//! artifact and documents, the stores, and the queue of due attempts (a
//! min-heap on the due instant) with the source of new events. A worker
//! takes the earliest due retry first, else the next new event (paced by an
//! optional rate). This module depends on no other part of the dispatcher's
//! control flow: `dispatcher` (start, swap, reload), `worker` (one attempt)
//! and `policy_reload` / `artifact_reload` all use it, never each other.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use retry_policy_core::{Clock, InMemoryStore, Policy, SystemClock};
use retry_policy_host::{HostError, LiveArtifact, Policies, PolicyEngine, PolicyInstance};

use crate::budget_store::BudgetStore;
use crate::http_client::{ClientConfig, HttpClient};
use crate::metrics::Metrics;
use crate::signing::Signer;
use crate::store::{EventRecord, EventStore};

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
    /// The document came from the artifact (`retry-policy bundle`), not a
    /// file the caller pinned: a swapped artifact's embedded document then
    /// becomes current too (through the document reload rules).
    pub document_from_artifact: bool,
    /// At most `concurrency` events in progress (admitted, not stopped,
    /// waits for a retry included): a new event is admitted only below it
    /// (docs/replica.md: the REPLICA's `--concurrency`). Off: events waiting
    /// for a retry hold no slot (the demo, the bench).
    pub cap_events_in_progress: bool,
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
            document_from_artifact: false,
            cap_events_in_progress: false,
        }
    }
}

pub(crate) struct Queue {
    pub(crate) heap: BinaryHeap<Reverse<(u64, u64)>>,
    /// Scheduled attempts: event id, and whether it was reloaded from a journal.
    pub(crate) jobs: HashMap<u64, (String, bool)>,
    pub(crate) seq: u64,
    pub(crate) source: Option<Box<dyn Iterator<Item = NewEvent> + Send>>,
    /// The next new event, taken from `source` but not yet due.
    pub(crate) peeked: Option<NewEvent>,
    pub(crate) started_new: u64,
    pub(crate) in_flight: usize,
}

/// What the workers share.
pub(crate) struct Shared {
    /// The artifact new instances are made from (swapped without a restart:
    /// [`crate::artifact_reload`]); each worker moves to a new one between jobs.
    pub artifact: Arc<LiveArtifact>,
    /// The current document and every policy events were admitted under
    /// (by hash): reloaded without a restart ([`crate::policy_reload`]).
    pub policies: Policies,
    /// Classes the source's events need: a reload without one is refused.
    pub needed_classes: Vec<String>,
    pub budget: BudgetStore,
    /// Format 3: each endpoint's view, pacer and admissions (in memory only).
    pub endpoints: crate::endpoint_health::EndpointTable,
    pub store: EventStore,
    pub http: HttpClient,
    pub metrics: Arc<Metrics>,
    pub config: DispatcherConfig,
    pub start_ms: u64,
    pub(crate) queue: Mutex<Queue>,
    pub(crate) wake: Condvar,
    /// SIGTERM/SIGINT drain: once begun, no job is handed out ([`crate::drain`]).
    pub(crate) drain: crate::drain::Drain,
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

pub(crate) enum Job {
    New(NewEvent),
    Attempt(String, bool),
}

impl Shared {
    /// The dispatcher's clock: the wall clock plus `clock_offset_ms`.
    pub fn now(&self) -> u64 {
        skewed_now(self.config.clock_offset_ms)
    }

    /// The policy `rec` was admitted under: the record's own (journal
    /// format 1 carries it, checked against its hash when it was read), so
    /// an event resumed from another process or language keeps its policy
    /// whatever document is current here.
    pub(crate) fn policy_of(&self, rec: &EventRecord) -> Option<Policy> {
        Some(rec.policy)
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

    pub(crate) fn next_job(&self) -> Option<Job> {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if self.drain.is_draining() {
                // Admit nothing more, start no attempt: pending events stay pending.
                q.source = None;
                q.peeked = None;
                drop(q);
                self.wake.notify_all();
                return None;
            }
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
                // Events in progress: each has one job, running or scheduled.
                let room = !self.config.cap_events_in_progress || q.in_flight + q.heap.len() < self.config.concurrency;
                if next_at <= now && room {
                    if let Some(ev) = q.peeked.take() {
                        q.started_new += 1;
                        q.in_flight += 1;
                        return Some(Job::New(ev));
                    }
                }
                if room {
                    wait_ms = wait_ms.min(next_at.saturating_sub(now));
                } // else: woken when an event's job ends (job_done) or a retry is due
            }
            if q.source.is_none() && q.peeked.is_none() && q.heap.is_empty() && q.in_flight == 0 {
                drop(q);
                self.wake.notify_all();
                return None;
            }
            q = self.wake.wait_timeout(q, Duration::from_millis(wait_ms.max(1))).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    pub(crate) fn job_done(&self) {
        let mut q = self.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.in_flight = q.in_flight.saturating_sub(1);
        drop(q);
        self.wake.notify_all();
    }
}

/// A worker's (or a reload's) instance. The imports-driven WIT `decide` is
/// not used (the step is driven here, against the dispatcher's own store),
/// so the instance's store stays empty.
pub(crate) fn instance(engine: &PolicyEngine) -> Result<PolicyInstance, HostError> {
    engine.instantiate(SystemClock, InMemoryStore::new())
}
