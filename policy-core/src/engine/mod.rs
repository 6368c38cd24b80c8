//! # The delivery engine (docs/engine.md)
//!
//! Everything a dispatcher decides, as one sans-IO state machine in the
//! str0m style: the host feeds it [`Input`]s (each with its `now_ms`: time
//! is an input) and polls [`Output`]s (actions) until there are none, then
//! sleeps until [`Engine::poll_timeout`] or its next input. The host only
//! moves bytes and time: it sends HTTP requests, makes store calls, appends
//! journal lines and moves metrics, exactly as told.
//!
//! ```text
//!            admit ─┐                ┌─► Journal(line)     append (durable before a later Send)
//!   result(e, n, r) ┤                ├─► Send(e, n, …)      HTTP attempt n, started before start_before_ms
//!  store(call, ints)┼─► Engine ──────┼─► StoreCall(id, key, argv)   EVALSHA budget.lua
//!   tick / drain    ┤   (no clock,   ├─► Delivered / DeadLetter / Hold
//!   replay / resume ┤    no I/O)     ├─► Count / Gauge     docs/metrics.md
//!   swap(document) ─┘                └─► Replayed / Drained / Warn
//! ```
//!
//! What the engine owns (each rule once, for every host):
//!
//! * **Due events**, in a queue ordered by due instant then arrival; at most
//!   `max_in_flight` of them busy (a send or a call out) at once.
//! * **The send loop** of docs/health-dispatch.md: the gate before every
//!   send (format 3), one probe call per endpoint and probe window, a
//!   budget-held wake's `reserve` and its second gate, holds (journaled
//!   before they are acknowledged) and their `held_ms`, the pacer's
//!   `normal_per_s` from the replica's own admissions.
//! * **Attempts are journaled before they are sent**: a crash mid-attempt
//!   never reuses that attempt's number (docs/journal.md "A crash").
//! * **Decisions**: every result goes through the compiled policy's `step`
//!   and, when the budget must answer, one store call and `finish`.
//! * **Store calls** in the script's own encoding (`argv`, integer replies),
//!   or answered inside the engine by its in-memory store.
//! * **The journal**: every record line, resume from its bytes, replay at
//!   most once.
//! * **Drain**: nothing new starts; `Drained` once nothing is in flight.
//!
//! Bad input is an [`EngineError`] naming what was wrong; a refused input
//! changes nothing.

mod admit;
mod due;
mod endpoint;
mod error;
mod event;
mod io;
mod limit;
mod metrics;
mod records;
mod release;
mod settle;
mod store_wire;
pub mod wire;
mod wire_out;

/// The backlog's need is capped at this many times `release.floor_per_s`
/// (docs/engine.md section 5; `lint`'s `health_floor_cannot_drain_backlog`).
pub use release::NEED_CAP_FLOORS;

use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;

use crate::compiled::{CompiledPolicy, StoreCall};
use crate::health::HealthDocument;

pub use crate::journal::Status;
pub use error::EngineError;
pub use event::Event;
pub use io::{AttemptResult, Input, NewEvent, Output, ReplayFilter, Resume, Send, StoreAnswer};
pub use store_wire::{call_argv, decode_argv, parse_reply, reply_ints, SharedStore};

use endpoint::Endpoints;
use store_wire::MemoryStore;

/// How an engine runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The current policy document (JSON, format 2 or 3).
    pub document: String,
    /// Events busy at once (a send or a store call out): the host's concurrency.
    pub max_in_flight: u32,
    /// Open events held at once; `admit` past it is `engine_full`.
    pub max_events: u64,
    /// Open events at once for admissions (`None`: only `max_events`);
    /// `admit` past it is `at_capacity`, refused with nothing changed, so a
    /// host can offer the admissions a batch's results may free in the same
    /// batch as those results. `resume` and `replay` are not bounded by it.
    pub max_open: Option<u64>,
    /// Endpoints kept in the per-endpoint table (LRU).
    pub max_endpoints: usize,
    /// Answer store calls inside the engine (one replica, no Redis).
    pub memory_store: bool,
    /// The script's clock-skew check flag (`argv[8]`).
    pub skew_check: bool,
    /// Start due events (false: an engine that only resumes, replays and
    /// journals, e.g. a `replay` command whose next run sends).
    pub dispatch: bool,
    /// Emit `journal` actions (false: a host that keeps no journal).
    pub journal: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            document: String::new(),
            max_in_flight: 64,
            max_events: 100_000,
            max_open: None,
            max_endpoints: 10_000,
            memory_store: false,
            skew_check: true,
            dispatch: true,
            journal: true,
        }
    }
}

/// What a store call is waiting to continue.
#[derive(Clone, Debug)]
pub(crate) enum Pending {
    /// The decision is known; the reply only refreshes the endpoint's view.
    Observe,
    /// An event waits on it (probe, wake or settle: its phase says which).
    Event(String),
}

/// A compiled class policy and the class name it was admitted under.
#[derive(Clone, Debug)]
struct Known {
    policy: CompiledPolicy,
}

/// The state machine (module docs).
pub struct Engine {
    config: Config,
    now_ms: u64,
    /// Policies by `policy_hash` (every admitted or resumed event's).
    policies: BTreeMap<String, Known>,
    /// The current document: class -> policy hash, and its version.
    classes: BTreeMap<String, String>,
    version: String,
    events: BTreeMap<String, Event>,
    /// The dead letters held (oldest first), at most `max_events`: past that
    /// the oldest leaves memory (the journal keeps it for a later replay).
    dead: VecDeque<String>,
    queue: BTreeSet<(u64, u64, String)>,
    seq: u64,
    order: u64,
    busy: u32,
    calls: BTreeMap<u64, (StoreCall, Pending)>,
    next_call: u64,
    endpoints: Endpoints,
    memory: Option<MemoryStore>,
    /// Calls the in-memory store answers once the current input is handled.
    memory_calls: VecDeque<u64>,
    out: VecDeque<Output>,
    /// Actions polled so far: `out[i]` is action number `out_polled + i`.
    out_polled: u64,
    /// Events whose record is queued in `out` but not yet written (each
    /// event's `unwritten` says where): written when polled, or before
    /// anything that must follow them (records.rs).
    unwritten: Vec<String>,
    header_written: bool,
    /// Records in the host's journal: resumed, written, or left by a compaction.
    journal_records: u64,
    /// Dead letters that left memory (past `max_events`) since the last compaction.
    evicted_dead: u64,
    started: bool,
    draining: bool,
    drained_said: bool,
    held_gauge: u64,
    held_said: u64,
}

impl Engine {
    /// A new engine on `config.document` (errors as `load-health-document`).
    pub fn new(config: Config) -> Result<Engine, EngineError> {
        if config.max_in_flight == 0 {
            return Err(EngineError::invalid("max_in_flight", "must be at least 1"));
        }
        let mut e = Engine {
            endpoints: Endpoints::new(config.max_endpoints),
            memory: config.memory_store.then(|| MemoryStore::new(config.max_endpoints)),
            memory_calls: VecDeque::new(),
            config,
            now_ms: 0,
            policies: BTreeMap::new(),
            classes: BTreeMap::new(),
            version: String::new(),
            events: BTreeMap::new(),
            dead: VecDeque::new(),
            queue: BTreeSet::new(),
            seq: 0,
            order: 0,
            busy: 0,
            calls: BTreeMap::new(),
            next_call: 1,
            out: VecDeque::new(),
            out_polled: 0,
            unwritten: Vec::new(),
            header_written: false,
            journal_records: 0,
            evicted_dead: 0,
            started: false,
            draining: false,
            drained_said: false,
            held_gauge: 0,
            held_said: 0,
        };
        let doc = e.config.document.clone();
        e.swap(&doc)?;
        Ok(e)
    }

    /// Handle one input at `now_ms`, then run what is due. A refused input
    /// changes nothing.
    pub fn handle(&mut self, now_ms: u64, input: Input) -> Result<(), EngineError> {
        if now_ms < self.now_ms {
            return Err(EngineError::TimeWentBackwards { now_ms, last_ms: self.now_ms });
        }
        let last_ms = core::mem::replace(&mut self.now_ms, now_ms);
        let handled = match input {
            Input::Tick => Ok(()),
            Input::Admit(ev) => self.admit(ev),
            Input::Result { event_id, attempt, result } => self.result(&event_id, attempt, result),
            Input::Store { call_id, answer } => self.store_answer(call_id, answer),
            Input::Drain => {
                self.draining = true;
                Ok(())
            }
            Input::Replay(filter) => self.replay(&filter),
            Input::Resume(r) => self.resume(&r.journal, r.copy),
            Input::Snapshot => self.snapshot(),
            Input::Swap(document) => self.swap(&document),
        };
        if let Err(e) = handled {
            // Every refusal comes before any change: the clock goes back too.
            self.now_ms = last_ms;
            return Err(e);
        }
        self.settle_memory_calls();
        self.say_gauges();
        self.check_drained();
        self.maybe_compact();
        Ok(())
    }

    /// Run due events, answering in-memory store calls as they come, until
    /// neither has anything left (each answer may free a slot or start a send).
    fn settle_memory_calls(&mut self) {
        loop {
            self.run_due();
            let Some(call_id) = self.memory_calls.pop_front() else { return };
            let Some(memory) = self.memory.as_mut() else { return };
            let answer = match self.calls.get(&call_id) {
                Some((call, _)) => memory.answer(call, self.now_ms).map_or(StoreAnswer::Failed, StoreAnswer::Reply),
                None => continue,
            };
            // The call is outstanding (checked above), so this cannot be refused.
            let _ = self.store_answer(call_id, answer);
        }
    }

    /// The next action, if any.
    pub fn poll_output(&mut self) -> Option<Output> {
        self.write_records();
        let o = self.out.pop_front();
        self.out_polled += u64::from(o.is_some());
        o
    }

    /// When the engine next needs a [`Input::Tick`] (none: nothing is scheduled).
    pub fn poll_timeout(&self) -> Option<u64> {
        // Draining, not dispatching, or every slot busy: only a result or a
        // store answer can start anything (no timer that would spin at now).
        if self.draining || !self.config.dispatch || self.busy >= self.config.max_in_flight {
            return None;
        }
        self.queue.first().map(|(t, _, _)| (*t).max(self.now_ms))
    }

    /// The highest release rate (tokens a second, docs/health.md section 4:
    /// `max(floor_per_s, multiple x normal_per_s)` with the backlog's need or
    /// the learned limit in `normal_per_s`) any gate used for `endpoint_id`
    /// since the last call, then forgets it; `None` for an endpoint the table
    /// does not hold. For inspection: `retry-policy simulate` checks the
    /// post-recovery bound of docs/health.md section 4 with it.
    pub fn take_release_peak_per_s(&mut self, endpoint_id: &str) -> Option<f64> {
        self.endpoints.peek(endpoint_id).map(|e| core::mem::take(&mut e.release_peak_per_s))
    }

    /// The events held now (open and dead-lettered), for inspection.
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.events.values()
    }

    /// Open events (pending and held).
    pub fn open_events(&self) -> usize {
        self.events.len() - self.dead.len()
    }

    /// Hold dead letter `id` for replay, within the bound.
    pub(crate) fn keep_dead(&mut self, id: &str) {
        self.dead.push_back(String::from(id));
        if self.dead.len() as u64 > self.config.max_events {
            if let Some(old) = self.dead.pop_front() {
                self.write_records();
                self.events.remove(&old);
                self.evicted_dead += 1;
            }
        }
    }

    /// The current document's version label.
    pub fn document_version(&self) -> &str {
        &self.version
    }

    fn check_drained(&mut self) {
        if self.draining && !self.drained_said && self.busy == 0 && self.calls.is_empty() {
            self.drained_said = true;
            self.out.push_back(Output::Drained);
        }
    }

    /// Load `document` as the current one (format 2 or 3).
    fn swap(&mut self, document: &str) -> Result<(), EngineError> {
        let doc = HealthDocument::from_json(document)?;
        let mut classes = BTreeMap::new();
        let mut compiled = Vec::new();
        for ((name, policy), (_, health)) in doc.document.classes.iter().zip(doc.health.iter()) {
            let cp = CompiledPolicy::new(*policy, *health).map_err(|e| e.within(&alloc::format!("classes.{name}")))?;
            let hash = String::from(cp.admit(name, "", 0)?.policy_hash.as_str());
            classes.insert(name.clone(), hash.clone());
            compiled.push((hash, cp));
        }
        for (hash, cp) in compiled {
            self.policies.entry(hash).or_insert(Known { policy: cp });
        }
        self.classes = classes;
        self.version = doc.document.version;
        Ok(())
    }
}
