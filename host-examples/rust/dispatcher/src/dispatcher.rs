//! The dispatcher: `concurrency` worker threads, each with its own instance
//! of the policy artifact, share one queue of due attempts and one source
//! of new events ([`crate::shared`]); events waiting for a retry hold no
//! worker. The dispatcher is done when the source is drained (or the
//! deadline passed) and no event is pending. The artifact and the document
//! are swapped without a restart ([`crate::artifact_reload`],
//! [`crate::policy_reload`]).

use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use retry_policy_host::{ArtifactError, ArtifactInfo, ArtifactRef, LiveArtifact, LiveInstance, Policies, PolicyEngine};

use crate::budget_store::BudgetStore;
use crate::drain::{Drain, Signals};
use crate::http_client::{ClientConfig, HttpClient};
use crate::metrics::Metrics;
use crate::shared::{instance, Job, Queue, Shared};
pub use crate::shared::{now_ms, skewed_now, DispatcherConfig, NewEvent};
use crate::store::{EventRecord, EventStore, Status};
use crate::worker;

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
        let mut inst = instance(&engine).map_err(|e| e.to_string())?;
        // Resumed records carry their own policy (journal format 1): their
        // classes need not be in the current document.
        let needed = || needed_classes.iter().copied();
        let policies =
            Policies::new_checked(&mut inst, document_json, |doc| crate::policy_reload::has_classes(doc, needed()))
                .map_err(|e| format!("policy document: {e}"))?;
        let needed_list: Vec<String> = needed().map(str::to_string).collect();
        let from_artifact = config.document_from_artifact;
        let artifact = Arc::new(LiveArtifact::with_check(
            engine,
            Box::new(move |e: &PolicyEngine| crate::artifact_reload::check(e, from_artifact, &needed_list)),
        ));
        metrics.set_policy_info(&artifact.info(), &policies.current().version);
        let start_ms = skewed_now(config.clock_offset_ms);
        let http = HttpClient::new(ClientConfig { idle_per_host: config.concurrency, ..config.client.clone() });
        let shared = Arc::new(Shared {
            artifact,
            policies,
            needed_classes: needed_classes.iter().map(|c| c.to_string()).collect(),
            budget,
            endpoints: Default::default(),
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
            drain: Drain::default(),
        });
        for rec in resumed {
            shared.store.put(&rec)?;
            match rec.status {
                Status::Pending => shared.schedule(rec.event_id.clone(), rec.next_attempt_at_ms, true),
                // A held event waits until its hold ends (or runs now if past).
                Status::Held => {
                    shared.metrics.health.held_change(1);
                    let due = rec.hold.held_until_ms.max(rec.next_attempt_at_ms);
                    shared.schedule(rec.event_id.clone(), due, true);
                }
                Status::Delivered | Status::DeadLettered => {}
            }
        }
        let mut workers = Vec::new();
        for i in 0..shared.config.concurrency {
            let s = shared.clone();
            let mut live = LiveInstance::new(s.artifact.clone(), instance).map_err(|e| e.to_string())?;
            let mut cache = crate::compiled_cache::CompiledCache::default();
            let h = thread::Builder::new()
                .name(format!("dispatch-{i}"))
                .spawn(move || {
                    while let Some(job) = s.next_job() {
                        // Between jobs: a swapped artifact takes over here; a
                        // job already running finishes on its instance.
                        if let Err(e) = live.refresh() {
                            worker::log(&format!(
                                "cannot instantiate the new policy artifact, keeping the old instance: {e}"
                            ));
                        }
                        let policy = live.instance();
                        match job {
                            Job::New(ev) => worker::first_attempt(&s, policy, &mut cache, ev),
                            Job::Attempt(id, reloaded) => worker::next_attempt(&s, policy, &mut cache, &id, reloaded),
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

    /// Load the artifact at `artifact` now, with every check of
    /// `docs/artifact.md` (and, when this dispatcher takes its document from
    /// the artifact, the classes its events need) before the swap; on error
    /// the current artifact stays and the error says why. Workers move to the
    /// new artifact between jobs; an attempt already running finishes on its
    /// instance; events keep the policy hash they were admitted under.
    pub fn swap_artifact(&self, artifact: ArtifactRef<'_>) -> Result<ArtifactInfo, ArtifactError> {
        crate::artifact_reload::swap(&self.shared, artifact)
    }

    /// Swap the artifact whenever the file at `path` changes content (polled
    /// every `interval`), while this dispatcher lives; every swap and
    /// refusal is logged (`docs/artifact.md`, "What a replica shows").
    pub fn watch_artifact(&self, path: &std::path::Path, interval: Duration) -> std::io::Result<()> {
        crate::artifact_reload::watch(&self.shared, path, interval)
    }

    /// Replay dead letters of this dispatcher's store (docs/health-dispatch.md
    /// section 4) under the current document at `now_ms`; the replays are
    /// scheduled now (held at their first gate) and counted in
    /// `webhook_replayed_total`.
    pub fn replay(
        &self,
        filter: &crate::replay::ReplayFilter,
        now_ms: u64,
    ) -> Result<crate::replay::ReplayReport, crate::replay::ReplayError> {
        let s = &self.shared;
        let mut inst = instance(&s.artifact.current()).map_err(crate::replay::ReplayError::Policy)?;
        let records = s.store.all_in_order();
        let report = crate::replay::replay(&s.store, &records, &s.policies, &mut inst, filter, now_ms)?;
        s.metrics.health.replayed(report.replayed);
        for id in &report.ids {
            s.schedule(id.clone(), now_ms, false);
        }
        Ok(report)
    }

    /// The artifact new instances are made from.
    pub fn artifact_info(&self) -> ArtifactInfo {
        self.shared.artifact.info()
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

    /// Wait until every event has stopped, or until `signals` reports a
    /// SIGTERM/SIGINT: then drain for up to `drain` (docs/replica.md) and
    /// return `true` (drained).
    pub fn wait_or_drain(mut self, signals: &Signals, drain: Duration) -> (Self, bool) {
        loop {
            if self.workers.iter().all(|h| h.is_finished()) {
                return (self.wait(), false);
            }
            if signals.received() {
                self.drain(drain);
                return (self, true);
            }
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// Drain now: admit nothing more and start no attempt; attempts being
    /// sent may finish (and are settled) for up to `drain`; those still
    /// running then are abandoned: counted as made, their attempt number
    /// written to the event's record, the event pending. Returns how many
    /// were abandoned.
    pub fn drain(&mut self, drain: Duration) -> usize {
        let s = &self.shared;
        if !s.drain.begin() {
            return 0;
        }
        s.wake.notify_all();
        let deadline = std::time::Instant::now() + drain;
        while std::time::Instant::now() < deadline && !self.workers.iter().all(|h| h.is_finished()) {
            thread::sleep(Duration::from_millis(2));
        }
        if self.workers.iter().all(|h| h.is_finished()) {
            for h in self.workers.drain(..) {
                let _ = h.join();
            }
            return 0;
        }
        let abandoned = s.drain.abandon();
        for (event_id, attempt) in &abandoned {
            if let Some(mut rec) = s.store.get(event_id).filter(|r| r.status == Status::Pending) {
                rec.attempts = rec.attempts.max(*attempt);
                rec.next_attempt_at_ms = s.now();
                if let Err(e) = s.store.put(&rec) {
                    worker::log(&format!("event {event_id}: {e}"));
                }
            }
            s.metrics.attempted(*attempt <= 1);
        }
        // Workers that got their answer before the deadline settle it (one
        // store call, bounded by its timeout); the abandoned ones are left.
        let settle_by = std::time::Instant::now() + Duration::from_secs(2);
        loop {
            let in_flight = s.queue.lock().unwrap_or_else(|p| p.into_inner()).in_flight;
            if in_flight <= abandoned.len() || std::time::Instant::now() >= settle_by {
                break;
            }
            thread::sleep(Duration::from_millis(2));
        }
        abandoned.len()
    }

    /// Wait until every event has stopped (then read the store and metrics).
    pub fn wait(mut self) -> Self {
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
        self
    }
}
