//! One run of the format-2 vs health comparison: the discrete-event loop of
//! [`super::run`] with format 3's host side (docs/health.md,
//! docs/health-dispatch.md) added.
//!
//! Format-2 decisions (`evaluate`, `settle`, `parse-retry-after`) come from
//! the engine, as everywhere in the tools. The health parts run
//! `policy-core::health` natively (the same code the component runs since
//! ABI 0.3, so this also builds for the npm tools): the store's rule
//! ([`health::apply`], the budget op and the health steps in one call), the
//! gate, the pacer, holds and wakes. What the simulated host does, as every
//! dispatcher does (docs/health-dispatch.md):
//!
//! * one store call per attempt (`record`/`reserve`/`record_reserve`, or
//!   `report` when format 2 makes none and the attempt failed or probed),
//!   plus at most one `probe` call per replica, endpoint and probe window,
//!   and one `reserve` per budget-held wake (whose reply gates the send once
//!   more: a hold keeps the reservation);
//! * every replica caches the view of its own latest reply and runs the
//!   gate before every send, first attempts included (draft 3: a view of any
//!   age is read; no view sends);
//! * a replica's held events waiting for the release pacer leave it
//!   earliest deadline first (the spec leaves the order to the host).

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use retry_policy_core::health::{
    self, GateDecision, GateEvent, Health, HealthDecision, HealthOp, HealthOutcome, HealthRequest, HealthView,
    HeldHealth, HoldReason, Pacer, Wake, WakeDecision,
};
use retry_policy_core::{
    AttemptOutcome, Decision, DeliveryState, HeldBuckets, Policy, StopReason, StoreOp, StoreReply,
};

use super::figures::Figures;
use super::rng::Rng;
use super::run::policies;
use super::scenario::{Scenario, Scope, Variant};
use super::series::dead_index;
use super::world::{answer_counted, is_down, Load};
use crate::engine::DecisionSource;

/// One side of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct FleetRun {
    /// `format 2` or `health`.
    pub label: String,
    pub replicas: u32,
    pub endpoints: Vec<Figures>,
    /// Calls tied to an attempt (`record`, `reserve`, `record_reserve`, `report`).
    pub attempt_calls: u64,
    pub probe_calls: u64,
    /// `reserve` calls of budget-held events waking.
    pub wake_calls: u64,
    pub engine_calls: u64,
    /// Events still undecided when the drain time ran out.
    pub unfinished: u64,
}

type Key = (u32, usize);

/// A retry sent this long after its reservation is counted as late (the budget's window, in the design note).
pub const LATE_MS: u64 = 60_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Arrive(usize),
    Gate(usize, u64),
    Attempt(usize),
    Response(usize),
    Release(u32, usize),
}

struct Ev {
    state: DeliveryState,
    class: usize,
    endpoint: usize,
    replica: u32,
    made: u32,
    outcome: Option<AttemptOutcome>,
    probe: bool,
    aware_send: bool,
    held: bool,
    held_since: Option<u64>,
    held_ms: u64,
    ever_held: bool,
    wake: Option<u32>,
    queued: bool,
    gen: u64,
    in_outage: bool,
    /// When the retry about to be sent was reserved.
    reserved_at: u64,
    /// ... on counts under the budget's sample floor (no judgement).
    under_floor: bool,
}

struct World<'a> {
    engine: &'a mut dyn DecisionSource,
    scenario: &'a Scenario,
    pols: Vec<(String, Policy)>,
    health: Vec<Option<Health>>,
    max_attempts: Vec<u32>,
    replicas: u32,
    scope: Scope,
    start: u64,
    heap: BinaryHeap<Reverse<(u64, u64, Item)>>,
    seq: u64,
    events: Vec<Ev>,
    store2: HashMap<(u32, usize, u64), HeldBuckets>,
    store3: HashMap<(u32, usize, u64), HeldHealth>,
    views: HashMap<Key, HealthView>,
    pacers: HashMap<Key, Pacer>,
    /// docs/health-dispatch.md: no probe call before this instant (one per replica, endpoint and probe window).
    probe_busy: HashMap<Key, u64>,
    admissions: HashMap<Key, (u64, u64, u64)>,
    queues: HashMap<Key, BTreeSet<(u64, usize)>>,
    ticks: HashMap<Key, u64>,
    loads: Vec<Load>,
    known_pause_ms: Vec<u64>,
    figs: Vec<Figures>,
    run: FleetRun,
}

fn e2s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

impl World<'_> {
    fn push(&mut self, t: u64, item: Item) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, item)));
    }

    fn section(&self, e: usize) -> Option<Health> {
        self.health[self.events[e].class]
    }

    fn deadline_t(&self, e: usize) -> u64 {
        let ev = &self.events[e];
        (ev.state.first_attempted_at_ms + self.pols[ev.class].1.window_ms).saturating_sub(self.start)
    }

    fn store_key(&self, e: usize) -> (u32, usize, u64) {
        let ev = &self.events[e];
        let who = if self.scope == Scope::Shared { 0 } else { ev.replica };
        (who, ev.endpoint, self.pols[ev.class].1.budget.window_ms)
    }

    fn arrive(&mut self, i: usize, t: u64, rng: &mut Rng, counter: u64) {
        let (class, endpoint) = self.traffic_of(i);
        let replica = rng.below(u64::from(self.replicas)) as u32;
        let now = self.start + t;
        let ep = &self.scenario.endpoints[endpoint];
        let in_outage = is_down(&ep.failure, t);
        let state = DeliveryState {
            event_id: format!("evt-{}-{counter}", ep.id),
            endpoint_id: ep.id.clone(),
            attempt: 1,
            max_attempts: self.max_attempts[class],
            first_attempted_at_ms: now,
            credentials_refreshed: false,
        };
        self.events.push(Ev {
            state,
            class,
            endpoint,
            replica,
            made: 0,
            outcome: None,
            probe: false,
            aware_send: false,
            held: false,
            held_since: None,
            held_ms: 0,
            ever_held: false,
            wake: None,
            queued: false,
            gen: 0,
            in_outage,
            reserved_at: 0,
            under_floor: false,
        });
        let f = &mut self.figs[endpoint];
        f.events += 1;
        f.outage_arrivals += u64::from(in_outage);
        let window_ms = self.pols[class].1.budget.window_ms.max(1);
        let a = self.admissions.entry((replica, endpoint)).or_default();
        let bucket = now / window_ms;
        if bucket != a.0 {
            *a = (bucket, 0, if bucket == a.0 + 1 { a.1 } else { 0 });
        }
        a.1 += 1;
        let e = self.events.len() - 1;
        if self.section(e).is_some() {
            self.push(t, Item::Gate(e, 0));
        } else {
            self.push(t, Item::Attempt(e));
        }
    }

    fn traffic_of(&self, i: usize) -> (usize, usize) {
        let t = &self.scenario.traffic[i];
        let class = self.pols.iter().position(|(n, _)| *n == t.class).unwrap_or(0);
        (class, self.scenario.endpoints.iter().position(|e| e.id == t.endpoint).unwrap_or(0))
    }

    fn normal_per_s(&self, e: usize, now: u64) -> f64 {
        let ev = &self.events[e];
        let budget = &self.pols[ev.class].1.budget;
        let (bucket, cur, prev) = self.admissions.get(&(ev.replica, ev.endpoint)).copied().unwrap_or_default();
        let b = budget.bucket(now);
        let (c, p) = if b == bucket {
            (cur, prev)
        } else if b == bucket + 1 {
            (0, cur)
        } else {
            (0, 0)
        };
        health::normal_per_s(budget, now, c, p)
    }

    fn gate_event(&self, e: usize, now: u64) -> GateEvent {
        let ev = &self.events[e];
        let current = ev.held_since.map_or(0, |s| now.saturating_sub(s));
        GateEvent {
            event_id: ev.state.event_id.clone(),
            endpoint_id: ev.state.endpoint_id.clone(),
            attempts: ev.made,
            first_attempted_at_ms: ev.state.first_attempted_at_ms,
            held: ev.held,
            held_ms: ev.held_ms + current,
        }
    }

    fn gate(&mut self, e: usize, t: u64) -> Result<(), String> {
        let Some(h) = self.section(e) else { return Ok(()) };
        let now = self.start + t;
        let key = (self.events[e].replica, self.events[e].endpoint);
        let view = self.views.get(&key).copied();
        let mut pacer = self.pacers.get(&key).copied().unwrap_or_default();
        pacer.normal_per_s = self.normal_per_s(e, now);
        let policy = self.pols[self.events[e].class].1;
        let gev = self.gate_event(e, now);
        let (d, p) = health::gate(&policy, Some(&h), &gev, view.as_ref(), &pacer, now).map_err(e2s)?;
        self.pacers.insert(key, p);
        let busy = self.probe_busy.get(&key).is_some_and(|&u| now < u);
        let d = if d == GateDecision::Probe && busy {
            let v = view.unwrap_or_default();
            let (d, p) = health::after_probe(&policy, &h, &gev, false, &v, &p, now).map_err(e2s)?;
            self.pacers.insert(key, p);
            d
        } else if d == GateDecision::Probe {
            let (reply, held) =
                health::apply(&self.request(e, HealthOp::Probe, now), &h, &policy.budget, now, &self.held3(e));
            let k = self.store_key(e);
            self.store3.insert(k, held);
            self.run.probe_calls += 1;
            self.views.insert(key, reply.view);
            let busy_until = match health::after_probe(&policy, &h, &gev, false, &reply.view, &p, now).map_err(e2s)?.0 {
                GateDecision::Hold { until_ms, .. } => until_ms,
                _ => 0,
            };
            self.probe_busy.insert(key, busy_until);
            let (d, p) = health::after_probe(&policy, &h, &gev, reply.granted == Some(true), &reply.view, &p, now)
                .map_err(e2s)?;
            self.pacers.insert(key, p);
            d
        } else {
            d
        };
        match d {
            GateDecision::Send { probe } if self.events[e].wake.is_some() => self.wake(e, t, probe),
            GateDecision::Send { probe } => {
                self.send(e, t, probe);
                Ok(())
            }
            GateDecision::Hold { until_ms, reason } => {
                self.hold(e, t, until_ms.saturating_sub(self.start), reason);
                Ok(())
            }
            GateDecision::Stop { .. } | GateDecision::Probe => {
                self.finish(e, t, StopReason::RetryWindowElapsed);
                Ok(())
            }
        }
    }

    fn request(&self, e: usize, op: HealthOp, now: u64) -> HealthRequest {
        let budget = &self.pols[self.events[e].class].1.budget;
        HealthRequest { op, bucket: budget.bucket(now), outcome: HealthOutcome::None, pause_until_ms: 0, probe: false }
    }

    fn held3(&self, e: usize) -> HeldHealth {
        self.store3.get(&self.store_key(e)).copied().unwrap_or_default()
    }

    /// A budget-held event passed the gate: its one `reserve` call.
    fn wake(&mut self, e: usize, t: u64, probe: bool) -> Result<(), String> {
        let now = self.start + t;
        let h = self.section(e).unwrap_or_default();
        let policy = self.pols[self.events[e].class].1;
        let req = self.request(e, HealthOp::Budget(StoreOp::Reserve), now);
        let (reply, held) = health::apply(&req, &h, &policy.budget, now, &self.held3(e));
        let k = self.store_key(e);
        self.store3.insert(k, held);
        self.run.wake_calls += 1;
        self.views.insert((self.events[e].replica, self.events[e].endpoint), reply.view);
        let store = reply.reservation.map_or(StoreReply::Unavailable, StoreReply::Answered);
        let ev = &self.events[e];
        let wake = Wake {
            event_id: ev.state.event_id.clone(),
            endpoint_id: ev.state.endpoint_id.clone(),
            attempts: ev.made,
            first_attempted_at_ms: ev.state.first_attempted_at_ms,
            refusals: ev.wake.unwrap_or(0),
        };
        match health::settle_wake(&policy, &wake, &store, now).map_err(e2s)? {
            WakeDecision::Send => {
                if let Some(r) = reply.reservation {
                    self.reserved(e, now, &r.counts);
                }
                self.events[e].wake = None;
                // draft 3 item 2 (docs/health-dispatch.md step 3): the reserve's own
                // reply gates the send; a hold keeps the reservation (no second reserve).
                let mut gev = self.gate_event(e, now);
                gev.held = false;
                let key = (self.events[e].replica, self.events[e].endpoint);
                let pacer = self.pacers.get(&key).copied().unwrap_or_default();
                match health::gate(&policy, Some(&h), &gev, Some(&reply.view), &pacer, now).map_err(e2s)?.0 {
                    GateDecision::Hold { until_ms, reason } if !probe => {
                        self.hold(e, t, until_ms.saturating_sub(self.start), reason)
                    }
                    _ => self.send(e, t, probe),
                }
            }
            WakeDecision::Hold { until_ms, refusals } => {
                self.events[e].wake = Some(refusals);
                self.hold(e, t, until_ms.saturating_sub(self.start), HoldReason::BudgetRefused);
            }
            WakeDecision::Stop { .. } => self.finish(e, t, StopReason::BudgetUnavailable),
        }
        Ok(())
    }

    /// Note a granted reservation: when, and whether its counts were under `min_sample`.
    fn reserved(&mut self, e: usize, now: u64, counts: &retry_policy_core::BudgetCounts) {
        let b = self.pols[self.events[e].class].1.budget;
        let w = match now.checked_rem(b.window_ms) {
            Some(rem) if b.sliding => (b.window_ms - rem) as f64 / b.window_ms as f64,
            _ => 0.0,
        };
        let est_total = counts.current.total as f64 + counts.previous.total as f64 * w;
        self.events[e].reserved_at = now;
        self.events[e].under_floor = est_total < b.min_sample as f64;
    }

    fn leave_hold(&mut self, e: usize, t: u64) {
        let now = self.start + t;
        let ev = &mut self.events[e];
        if let Some(since) = ev.held_since.take() {
            ev.held_ms += now.saturating_sub(since);
            let ep = ev.endpoint;
            self.figs[ep].at(t).held_delta -= 1;
        }
    }

    fn hold(&mut self, e: usize, t: u64, until_t: u64, reason: HoldReason) {
        let now = self.start + t;
        let until_t = until_t.max(t + 1);
        let deadline_t = self.deadline_t(e);
        let ev = &mut self.events[e];
        if ev.held_since.is_none() {
            ev.held_since = Some(now);
            if !ev.ever_held {
                ev.ever_held = true;
                self.figs[ev.endpoint].held_events += 1;
            }
            let ep = ev.endpoint;
            self.figs[ep].at(t).held_delta += 1;
        }
        let ev = &mut self.events[e];
        ev.held = true;
        ev.gen += 1;
        let gen = ev.gen;
        if reason == HoldReason::ReleasePacing {
            ev.queued = true;
            let key = (ev.replica, ev.endpoint);
            self.queues.entry(key).or_default().insert((deadline_t, e));
            if self.ticks.get(&key).is_none_or(|at| until_t < *at) {
                self.ticks.insert(key, until_t);
                self.push(until_t, Item::Release(key.0, key.1));
            }
            self.push(deadline_t.max(until_t), Item::Gate(e, gen));
        } else {
            self.push(until_t, Item::Gate(e, gen));
        }
    }

    /// A replica's pacer has a token again: its queued events, earliest deadline first.
    fn release(&mut self, key: Key, t: u64) -> Result<(), String> {
        if self.ticks.get(&key) != Some(&t) {
            return Ok(());
        }
        self.ticks.remove(&key);
        while let Some((_, e)) = self.queues.get_mut(&key).and_then(|q| q.pop_first()) {
            self.events[e].queued = false;
            self.events[e].gen += 1;
            self.gate(e, t)?;
            if self.events[e].queued {
                break;
            }
        }
        Ok(())
    }

    fn wake_item(&mut self, e: usize, gen: u64, t: u64) -> Result<(), String> {
        let ev = &mut self.events[e];
        if ev.gen != gen {
            return Ok(());
        }
        if ev.queued {
            ev.queued = false;
            let (key, d) = ((ev.replica, ev.endpoint), self.deadline_t(e));
            if let Some(q) = self.queues.get_mut(&key) {
                q.remove(&(d, e));
            }
        }
        self.gate(e, t)
    }

    /// Whether the replica's usable view shows a pause at `now` (after the
    /// gate and a wake's reserve: the latest the replica knows).
    fn sees_pause(&self, e: usize, now: u64) -> bool {
        let ev = &self.events[e];
        let Some(h) = self.section(e) else { return false };
        self.views
            .get(&(ev.replica, ev.endpoint))
            .is_some_and(|v| now.saturating_sub(v.as_of_ms) <= h.cache_ms && now < v.paused_until_ms)
    }

    fn send(&mut self, e: usize, t: u64, probe: bool) {
        self.leave_hold(e, t);
        let aware = self.sees_pause(e, self.start + t);
        let ev = &mut self.events[e];
        ev.held = false;
        ev.probe = probe;
        ev.aware_send = aware;
        self.push(t, Item::Attempt(e));
    }

    fn attempt(&mut self, e: usize, t: u64) -> Result<(), String> {
        let now = self.start + t;
        let ev = &mut self.events[e];
        ev.made += 1;
        let (ep_i, retry, probe, aware) = (ev.endpoint, ev.made > 1, ev.probe, ev.aware_send);
        let ep = &self.scenario.endpoints[ep_i];
        let late = retry && now.saturating_sub(self.events[e].reserved_at) > LATE_MS;
        let floor = retry && self.events[e].under_floor;
        let f = &mut self.figs[ep_i];
        f.requests += 1;
        f.retries += u64::from(retry);
        f.probes += u64::from(probe);
        f.late_retries += u64::from(late);
        f.floor_retries += u64::from(floor);
        f.requests_in_outage += u64::from(is_down(&ep.failure, t));
        if now < self.known_pause_ms[ep_i] {
            f.before_retry_after += 1;
            f.before_retry_after_aware += u64::from(aware);
        }
        let s = f.at(t);
        s.requests += 1;
        s.retries += u64::from(retry);
        let a = answer_counted(&ep.failure, t, &mut self.loads[ep_i]);
        f.answers_429 += u64::from(a.status == 429);
        let retry_after_ms = match &a.retry_after {
            Some(h) => {
                self.run.engine_calls += 1;
                self.engine.parse_retry_after(h, now).map_err(e2s)?
            }
            None => None,
        };
        self.events[e].outcome = Some(AttemptOutcome::Response { status: a.status, retry_after_ms });
        self.push(t + ep.latency_ms, Item::Response(e));
        Ok(())
    }

    fn response(&mut self, e: usize, t: u64) -> Result<(), String> {
        let now = self.start + t;
        let outcome =
            self.events[e].outcome.clone().unwrap_or(AttemptOutcome::Response { status: 200, retry_after_ms: None });
        if let AttemptOutcome::Response { status: 429 | 503, retry_after_ms: Some(ra) } = &outcome {
            let ep = self.events[e].endpoint;
            self.known_pause_ms[ep] = self.known_pause_ms[ep].max(now + ra);
        }
        self.events[e].state.attempt = self.events[e].made;
        let policy = self.pols[self.events[e].class].1;
        let state = self.events[e].state.clone();
        self.run.engine_calls += 1;
        let step = self.engine.evaluate(&policy, &state, &outcome, now).map_err(e2s)?;
        let section = self.section(e);
        let reply = match section {
            None => match &step.store {
                Some(req) => {
                    let k = self.store_key(e);
                    let h = self.store2.get(&k).copied().unwrap_or_default();
                    self.run.engine_calls += 1;
                    self.run.attempt_calls += 1;
                    let (r, h2) = self.engine.store_apply(req, &policy.budget, now, &h).map_err(e2s)?;
                    self.store2.insert(k, h2);
                    if r.reserved {
                        self.reserved(e, now, &r.counts);
                    }
                    Some(StoreReply::Answered(r))
                }
                None => None,
            },
            Some(h) => {
                let hout = health::health_outcome(&outcome).map_err(e2s)?;
                let op = match &step.store {
                    Some(req) => Some(HealthOp::Budget(req.op)),
                    None if hout == HealthOutcome::Failure || self.events[e].probe => Some(HealthOp::Report),
                    None => None,
                };
                match op {
                    Some(op) => {
                        let mut req = self.request(e, op, now);
                        req.outcome = hout;
                        req.pause_until_ms = health::pause_until_ms(&h, &outcome, now);
                        req.probe = self.events[e].probe;
                        let (r, held) = health::apply(&req, &h, &policy.budget, now, &self.held3(e));
                        let k = self.store_key(e);
                        self.store3.insert(k, held);
                        self.run.attempt_calls += 1;
                        self.views.insert((self.events[e].replica, self.events[e].endpoint), r.view);
                        if let Some(x) = r.reservation.filter(|x| x.reserved) {
                            self.reserved(e, now, &x.counts);
                        }
                        r.reservation.map(StoreReply::Answered)
                    }
                    None => None,
                }
            }
        };
        let decision = match (step.decision, reply) {
            (Some(d), _) => d,
            (None, r) => {
                let reply = r.unwrap_or(StoreReply::Unavailable);
                self.run.engine_calls += 1;
                let s = self.engine.settle(&policy, &state, &outcome, now, &reply).map_err(e2s)?;
                let refused = matches!(&s.decision, Decision::Stop(x) if x.reason == StopReason::RetryBudgetExhausted);
                match section {
                    Some(h) if refused && h.hold_budget_refusals => {
                        match health::settle(&policy, Some(&h), &state, &outcome, now, &reply).map_err(e2s)?.decision {
                            HealthDecision::Hold { until_ms, .. } => {
                                self.events[e].wake = Some(0);
                                self.hold(e, t, until_ms.saturating_sub(self.start), HoldReason::BudgetRefused);
                                return Ok(());
                            }
                            HealthDecision::Decided(d) => d,
                        }
                    }
                    _ => s.decision,
                }
            }
        };
        match decision {
            Decision::Retry(r) if section.is_some() => {
                self.events[e].state.credentials_refreshed |= r.refresh_credentials;
                self.events[e].gen += 1;
                let gen = self.events[e].gen;
                self.push(t + r.delay_ms, Item::Gate(e, gen));
            }
            Decision::Retry(r) => {
                self.events[e].state.credentials_refreshed |= r.refresh_credentials;
                self.push(t + r.delay_ms, Item::Attempt(e));
            }
            Decision::Stop(stop) => self.finish(e, t, stop.reason),
        }
        Ok(())
    }

    fn finish(&mut self, e: usize, t: u64, reason: StopReason) {
        self.leave_hold(e, t);
        let ev = &mut self.events[e];
        ev.gen += 1;
        let f = &mut self.figs[ev.endpoint];
        match dead_index(reason) {
            None => {
                f.delivered += 1;
                f.outage_arrivals_delivered += u64::from(ev.in_outage);
                f.at(t).delivered += 1;
            }
            Some(i) => {
                f.dead[i] += 1;
                if ev.ever_held {
                    f.dead_held += 1;
                    f.dead_held_ms += ev.held_ms;
                }
            }
        }
        ev.outcome = None;
        ev.made = u32::MAX;
    }
}

/// The endpoint's new events per second, averaged over the arrivals.
fn normal_rate(scenario: &Scenario, id: &str) -> f64 {
    let d = scenario.duration_s.max(1);
    let secs = |t: &super::scenario::Traffic| t.to_s.unwrap_or(d).min(d).saturating_sub(t.from_s) as f64;
    scenario.traffic.iter().filter(|t| t.endpoint == id).map(|t| t.rate_per_s * secs(t) / d as f64).sum()
}

/// Run `scenario` as written (its replicas and budget scope) with a health
/// section per class (`None` everywhere: format 2).
pub fn run_fleet(
    engine: &mut dyn DecisionSource,
    classes: &[(String, Policy)],
    health: &[Option<Health>],
    scenario: &Scenario,
    seed: u64,
    label: &str,
) -> Result<FleetRun, String> {
    let pols = policies(classes, &Variant::default());
    let mut max_attempts = Vec::new();
    for (_, p) in &pols {
        max_attempts.push(engine.plan(&p.backoff, p.window_ms, p.hard_cap).map_err(e2s)?.max_attempts);
    }
    for t in &scenario.traffic {
        if !pols.iter().any(|(n, _)| *n == t.class) {
            return Err(format!("scenario traffic names class `{}`, which the policy does not define", t.class));
        }
    }
    let n = scenario.endpoints.len();
    let figs = scenario
        .endpoints
        .iter()
        .map(|ep| Figures { id: ep.id.clone(), normal_per_s: normal_rate(scenario, &ep.id), ..Figures::default() })
        .collect();
    let mut w = World {
        engine,
        scenario,
        pols,
        health: health.to_vec(),
        max_attempts,
        replicas: scenario.replicas,
        scope: scenario.budget,
        start: scenario.start_ms,
        heap: BinaryHeap::new(),
        seq: 0,
        events: Vec::new(),
        store2: HashMap::new(),
        store3: HashMap::new(),
        views: HashMap::new(),
        probe_busy: HashMap::new(),
        pacers: HashMap::new(),
        admissions: HashMap::new(),
        queues: HashMap::new(),
        ticks: HashMap::new(),
        loads: vec![Load::default(); n],
        known_pause_ms: vec![0; n],
        figs,
        run: FleetRun {
            label: label.to_string(),
            replicas: scenario.replicas,
            endpoints: Vec::new(),
            attempt_calls: 0,
            probe_calls: 0,
            wake_calls: 0,
            engine_calls: 0,
            unfinished: 0,
        },
    };
    let end_arrivals = scenario.duration_s * 1000;
    let hard_end = end_arrivals + scenario.drain_s * 1000;
    let mut rngs: Vec<Rng> = (0..scenario.traffic.len()).map(|i| Rng::new(seed, i as u64)).collect();
    for (i, t) in scenario.traffic.iter().enumerate() {
        let first = t.from_s * 1000 + rngs[i].exp_ms(1000.0 / t.rate_per_s);
        w.push(first, Item::Arrive(i));
    }
    let mut counter = 0u64;
    while let Some(Reverse((t, _, item))) = w.heap.pop() {
        if t > hard_end {
            break;
        }
        match item {
            Item::Arrive(i) => {
                let spec = &scenario.traffic[i];
                let to = spec.to_s.map_or(end_arrivals, |s| (s * 1000).min(end_arrivals));
                if t >= to {
                    continue;
                }
                counter += 1;
                w.arrive(i, t, &mut rngs[i], counter);
                let gap = rngs[i].exp_ms(1000.0 / spec.rate_per_s);
                w.push(t + gap, Item::Arrive(i));
            }
            Item::Gate(e, gen) => w.wake_item(e, gen, t)?,
            Item::Attempt(e) => w.attempt(e, t)?,
            Item::Response(e) => w.response(e, t)?,
            Item::Release(r, ep) => w.release((r, ep), t)?,
        }
    }
    let mut run = w.run;
    run.unfinished = w.events.iter().filter(|e| e.made != u32::MAX).count() as u64;
    run.endpoints = w.figs;
    for f in &mut run.endpoints {
        f.finish();
    }
    Ok(run)
}
