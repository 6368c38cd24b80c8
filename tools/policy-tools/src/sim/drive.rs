//! The one discrete-event loop every simulation runs: N replicas, each a
//! [`retry_policy_core::engine::Engine`] (the code the component runs, here
//! natively), on a virtual clock. The loop is the dispatchers' host and
//! nothing more (docs/engine.md):
//!
//! * an arrival is an `admit` to the replica it lands on;
//! * a `send` action is an attempt: the endpoint answers at the send's
//!   instant ([`answer_counted`]) and the answer comes back as a `result`
//!   after the endpoint's latency;
//! * a `store_call` is answered at once, in the order the calls were made,
//!   by one [`SharedStore`] for the fleet (`budget = "shared"`, Redis in
//!   production) or one per replica (`per_replica`), from its key and argv
//!   as they would go to `fleet/budget.lua`;
//! * `poll_timeout` is a tick on the virtual clock.
//!
//! What the run reports is counted from the actions ([`Tally`]).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use retry_policy_core::engine::{AttemptResult, Config, Engine, Input, NewEvent, Output, SharedStore, StoreAnswer};
use retry_policy_core::health::Health;
use retry_policy_core::{store_key, Policy, StoreOp, StoreRequest};

use super::document::engine_document;
use super::rng::Rng;
use super::scenario::{Scenario, Scope};
use super::tally::{SimEvent, Tally};
use super::world::{answer_counted, Answer, Load};

/// Events busy at once per replica when the scenario sets no
/// `max_in_flight`: high enough that the engine never throttles.
pub const UNBOUNDED_IN_FLIGHT: u32 = 1 << 24;
/// Open events per replica (the engine's `max_events`); past it an arrival
/// is an error naming the replica, never unbounded memory.
pub const MAX_OPEN_EVENTS: u64 = 1_000_000;
/// Ticks one replica may ask for at one instant before the run stops with
/// an error (the engine never asks twice; this bounds a bug, never a hang).
const SAME_INSTANT_TICKS: u32 = 64;

/// One run's settings.
pub struct Setup<'a> {
    pub scenario: &'a Scenario,
    /// The classes as the replicas run them (overrides applied), document order.
    pub classes: &'a [(String, Policy)],
    /// Per class: its `health` section (none: format 2).
    pub health: &'a [Option<Health>],
    pub version: &'a str,
    pub replicas: u32,
    pub scope: Scope,
    pub seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Arrive(usize),
    Tick(usize),
    Answer(usize),
}

/// What replica `r` reads next: an input, or the answer to one of its calls.
enum Next {
    Input(Input),
    Call { call_id: u64, key: String, argv: Vec<String> },
}

struct Fleet<'a> {
    sc: &'a Scenario,
    start: u64,
    shared: bool,
    engines: Vec<Engine>,
    stores: Vec<SharedStore>,
    keys: HashMap<String, usize>,
    next_tick: Vec<Option<u64>>,
    heap: BinaryHeap<Reverse<(u64, u64, Item)>>,
    seq: u64,
    events: Vec<SimEvent>,
    answers: Vec<Option<(u32, Answer)>>,
    ids: Vec<String>,
    index: HashMap<String, usize>,
    loads: Vec<Load>,
    tally: &'a mut Tally,
}

impl Fleet<'_> {
    fn push(&mut self, t: u64, item: Item) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, item)));
    }

    /// Feed `input` to replica `r` at `t`, perform its actions, answer its
    /// store calls in order, then schedule its next tick.
    fn feed(&mut self, r: usize, t: u64, input: Input) -> Result<(), String> {
        let now = self.start + t;
        let mut pending = VecDeque::from([Next::Input(input)]);
        while let Some(next) = pending.pop_front() {
            let input = match next {
                Next::Input(input) => input,
                // Answered when the engine reads the answer, as its own store answers.
                Next::Call { call_id, key, argv } => {
                    let store = &mut self.stores[if self.shared { 0 } else { r }];
                    let reply = store.answer_wire(&key, &argv, now);
                    self.tally.store_reply(r as u32, self.keys.get(&key).copied(), reply.as_deref());
                    Input::Store { call_id, answer: reply.map_or(StoreAnswer::Failed, StoreAnswer::Reply) }
                }
            };
            self.tally.inputs += 1;
            self.engines[r].handle(now, input).map_err(|e| format!("replica {r} at {t} ms: {e}"))?;
            while let Some(o) = self.engines[r].poll_output() {
                match o {
                    Output::StoreCall { call_id, key, argv } => pending.push_back(Next::Call { call_id, key, argv }),
                    Output::Send(s) => {
                        let (sc, e) = (self.sc, self.event(&s.event_id)?);
                        let ep = &sc.endpoints[self.events[e].endpoint];
                        let a = answer_counted(&ep.failure, t, &mut self.loads[self.events[e].endpoint]);
                        self.tally.sent(sc, &mut self.events[e], &s, &a, t, now);
                        self.answers[e] = Some((s.attempt, a));
                        self.push(t + ep.latency_ms, Item::Answer(e));
                    }
                    o => {
                        let id = match &o {
                            Output::Delivered { event_id, .. } | Output::Hold { event_id, .. } => Some(event_id),
                            Output::DeadLetter { dead_letter, .. } => Some(&dead_letter.event_id),
                            _ => None,
                        };
                        let e = id.map(|id| self.event(id)).transpose()?;
                        self.tally.action(&o, e.map(|e| &mut self.events[e]), t);
                    }
                }
            }
        }
        for (ep, e) in self.sc.endpoints.iter().enumerate() {
            if let Some(peak) = self.engines[r].take_release_peak_per_s(&e.id).filter(|p| *p > 0.0) {
                self.tally.release_peak(ep, r, self.engines.len(), t, peak);
            }
        }
        let at = self.engines[r].poll_timeout().map(|at| at.saturating_sub(self.start));
        if at.is_some() && at != self.next_tick[r] {
            self.push(at.unwrap_or(t), Item::Tick(r));
        }
        self.next_tick[r] = at;
        Ok(())
    }

    fn event(&self, id: &str) -> Result<usize, String> {
        self.index.get(id).copied().ok_or_else(|| format!("the engine named an event the run never admitted: {id}"))
    }
}

/// Each traffic line's class (index into `classes`) and endpoint; an
/// error names a class the policy does not define.
pub fn traffic_of(sc: &Scenario, classes: &[(String, Policy)]) -> Result<Vec<(usize, usize)>, String> {
    sc.traffic
        .iter()
        .map(|t| {
            let class = classes.iter().position(|(n, _)| *n == t.class).ok_or_else(|| {
                format!("scenario traffic names class `{}`, which the policy does not define", t.class)
            })?;
            Ok((class, sc.endpoints.iter().position(|e| e.id == t.endpoint).unwrap_or(0)))
        })
        .collect()
}

/// Run `setup` to the end of its drain time, counting into `tally`; the
/// number of events still open then.
pub fn drive(setup: &Setup, tally: &mut Tally) -> Result<u64, String> {
    let sc = setup.scenario;
    let document = engine_document(setup.version, setup.classes, setup.health);
    let config = Config {
        document,
        max_in_flight: sc.max_in_flight.unwrap_or(UNBOUNDED_IN_FLIGHT),
        max_events: MAX_OPEN_EVENTS,
        memory_store: false,
        journal: false,
        ..Config::default()
    };
    let replicas = setup.replicas as usize;
    let engines = (0..replicas).map(|_| Engine::new(config.clone())).collect::<Result<Vec<_>, _>>();
    let engines = engines.map_err(|e| format!("the engine refused the document: {e}"))?;
    let traffic = traffic_of(sc, setup.classes)?;
    let mut keys = HashMap::new();
    for (i, ep) in sc.endpoints.iter().enumerate() {
        for (_, p) in setup.classes {
            let request = StoreRequest {
                op: StoreOp::Record,
                endpoint_id: ep.id.clone(),
                window_ms: p.budget.window_ms,
                bucket: 0,
            };
            keys.insert(store_key(&request), i);
        }
    }
    let stores = if setup.scope == Scope::Shared { 1 } else { replicas };
    let mut f = Fleet {
        sc,
        start: sc.start_ms,
        shared: setup.scope == Scope::Shared,
        engines,
        stores: vec![SharedStore::new(keys.len() + 1); stores],
        keys,
        next_tick: vec![None; replicas],
        heap: BinaryHeap::new(),
        seq: 0,
        events: Vec::new(),
        answers: Vec::new(),
        ids: Vec::new(),
        index: HashMap::new(),
        loads: vec![Load::default(); sc.endpoints.len()],
        tally,
    };
    let end_arrivals = sc.duration_s * 1000;
    let hard_end = end_arrivals + sc.drain_s * 1000;
    let mut rngs: Vec<Rng> = (0..sc.traffic.len()).map(|i| Rng::new(setup.seed, i as u64)).collect();
    for (i, t) in sc.traffic.iter().enumerate() {
        let first = t.from_s * 1000 + rngs[i].exp_ms(1000.0 / t.rate_per_s);
        f.push(first, Item::Arrive(i));
    }
    let (mut counter, mut same) = (0u64, vec![(u64::MAX, 0u32); replicas]);
    while let Some(Reverse((t, _, item))) = f.heap.pop() {
        if t > hard_end {
            break;
        }
        match item {
            Item::Arrive(i) => {
                let spec = &sc.traffic[i];
                let to = spec.to_s.map_or(end_arrivals, |s| (s * 1000).min(end_arrivals));
                if t >= to {
                    continue;
                }
                let (class, endpoint) = traffic[i];
                counter += 1;
                let replica = rngs[i].below(u64::from(setup.replicas)) as usize;
                let ep = &sc.endpoints[endpoint];
                let id = format!("evt-{}-{counter}", ep.id);
                let cache_ms = setup.health[class].map(|h| h.cache_ms);
                let ev = f.tally.admitted(sc, t, endpoint, replica as u32, cache_ms);
                f.index.insert(id.clone(), f.events.len());
                f.events.push(ev);
                f.answers.push(None);
                f.ids.push(id.clone());
                let admit = NewEvent {
                    event_id: id,
                    endpoint_id: ep.id.clone(),
                    target: format!("https://{}.sim.invalid/", ep.id),
                    class: setup.classes[class].0.clone(),
                    body_b64: None,
                };
                f.feed(replica, t, Input::Admit(admit))?;
                let gap = rngs[i].exp_ms(1000.0 / spec.rate_per_s);
                f.push(t + gap, Item::Arrive(i));
            }
            Item::Tick(r) => {
                if f.next_tick[r] != Some(t) {
                    continue;
                }
                same[r] = if same[r].0 == t { (t, same[r].1 + 1) } else { (t, 0) };
                if same[r].1 > SAME_INSTANT_TICKS {
                    return Err(format!("replica {r} asked for a tick at {t} ms again and again"));
                }
                f.feed(r, t, Input::Tick)?;
            }
            Item::Answer(e) => {
                let Some((attempt, a)) = f.answers[e].take() else { continue };
                f.tally.answered(&f.events[e], &a, f.start + t);
                let result = AttemptResult::Response { status: a.status, retry_after: a.retry_after };
                let input = Input::Result { event_id: f.ids[e].clone(), attempt, result };
                f.feed(f.events[e].replica as usize, t, input)?;
            }
        }
    }
    Ok(f.events.iter().filter(|e| !e.done).count() as u64)
}
