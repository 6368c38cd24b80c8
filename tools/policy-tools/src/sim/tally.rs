//! What a run reports, counted from the engines' actions as a dispatcher's
//! metrics count them (docs/metrics.md): a `send` is an attempt (first,
//! retry, probe), `delivered` and `dead_letter` end an event (its reason,
//! its `held_ms`), `hold` holds it, `count` deltas are summed by name and
//! label. The endpoint's side (its answer, whether it was down) is the
//! simulated world's ([`super::world`]); nothing here judges a retry.

use std::collections::BTreeMap;

use retry_policy_core::engine::{Output, Send};

use super::figures::Figures;
use super::run::EndpointTotals;
use super::scenario::Scenario;
use super::series::{dead_index, Series};
use super::world::{is_down, Answer};

/// Reasons of the first dead letters kept per endpoint, in stop order.
const FIRST_STOPS: usize = 60;

/// A counter's label as the engine gives it (`kind`, `first`).
type Label = Option<(&'static str, String)>;

/// One simulated event, as the loop knows it.
#[derive(Debug, Clone, Default)]
pub struct SimEvent {
    pub endpoint: usize,
    pub replica: u32,
    /// `cache_ms` of its class's health section (none: format 2).
    pub cache_ms: Option<u64>,
    pub admitted_t: u64,
    in_outage: bool,
    held: bool,
    ever_held: bool,
    pub done: bool,
}

/// Everything counted over one run.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub series: Series,
    pub endpoints: Vec<EndpointTotals>,
    pub figures: Vec<Figures>,
    /// The engines' counters summed over replicas (name, label, total):
    /// a handful of series, searched in place (a storm moves millions).
    counts: Vec<(&'static str, Label, u64)>,
    /// `store_call` actions answered.
    pub store_calls: u64,
    /// Inputs fed to the engines.
    pub inputs: u64,
    pub warnings: u64,
    /// The latest `Retry-After` instant each endpoint announced.
    known_pause_ms: Vec<u64>,
    /// Per replica and endpoint: the newest view a store reply gave it
    /// (`paused_until_ms`, `as_of_ms`), as the engine keeps it.
    views: BTreeMap<(u32, usize), (u64, u64)>,
}

impl Tally {
    pub fn new(scenario: &Scenario, normal_per_s: impl Fn(&str) -> f64) -> Tally {
        let ep = &scenario.endpoints;
        Tally {
            endpoints: ep
                .iter()
                .map(|e| EndpointTotals { id: e.id.clone(), healthy: e.failure.is_healthy(), ..Default::default() })
                .collect(),
            figures: ep
                .iter()
                .map(|e| Figures { id: e.id.clone(), normal_per_s: normal_per_s(&e.id), ..Figures::default() })
                .collect(),
            known_pause_ms: vec![0; ep.len()],
            ..Tally::default()
        }
    }

    /// A counter's total over every label.
    pub fn counter(&self, name: &str) -> u64 {
        self.counts.iter().filter(|(n, _, _)| *n == name).map(|(_, _, x)| x).sum()
    }

    /// Every counter the engines moved: `name` or `name{label=value}`.
    pub fn counters(&self) -> BTreeMap<String, u64> {
        let key = |name: &str, label: &Label| match label {
            Some((l, v)) => format!("{name}{{{l}={v}}}"),
            None => name.to_string(),
        };
        self.counts.iter().map(|(n, l, x)| (key(n, l), *x)).collect()
    }

    pub fn admitted(
        &mut self,
        sc: &Scenario,
        t: u64,
        endpoint: usize,
        replica: u32,
        cache_ms: Option<u64>,
    ) -> SimEvent {
        let in_outage = is_down(&sc.endpoints[endpoint].failure, t);
        self.endpoints[endpoint].events += 1;
        let f = &mut self.figures[endpoint];
        f.events += 1;
        f.outage_arrivals += u64::from(in_outage);
        SimEvent { endpoint, replica, cache_ms, admitted_t: t, in_outage, ..SimEvent::default() }
    }

    fn leave_hold(&mut self, ev: &mut SimEvent, t: u64) {
        if std::mem::take(&mut ev.held) {
            self.figures[ev.endpoint].at(t).held_delta -= 1;
        }
    }

    /// A `send` action at `t` (since the start; `now` on the engines' clock), and the endpoint's answer.
    pub fn sent(&mut self, sc: &Scenario, ev: &mut SimEvent, s: &Send, a: &Answer, t: u64, now: u64) {
        let paced = ev.held && !s.probe;
        self.leave_hold(ev, t);
        let (ep, retry) = (ev.endpoint, s.attempt > 1);
        let failing = !sc.endpoints[ep].failure.is_healthy();
        let x = self.series.at(t);
        x.attempts += 1;
        x.first_attempts += u64::from(!retry);
        x.retries += u64::from(retry);
        x.failing_attempts += u64::from(failing);
        x.failing_retries += u64::from(failing && retry);
        let tot = &mut self.endpoints[ep];
        tot.attempts += 1;
        tot.retries += u64::from(retry);
        let aware = ev.cache_ms.is_some_and(|cache_ms| {
            self.views
                .get(&(ev.replica, ep))
                .is_some_and(|(paused_until, as_of)| now.saturating_sub(*as_of) <= cache_ms && now < *paused_until)
        });
        let f = &mut self.figures[ep];
        f.requests += 1;
        f.retries += u64::from(retry);
        f.probes += u64::from(s.probe);
        f.requests_in_outage += u64::from(is_down(&sc.endpoints[ep].failure, t));
        f.answers_429 += u64::from(a.status == 429);
        if now < self.known_pause_ms[ep] {
            f.before_retry_after += 1;
            f.before_retry_after_aware += u64::from(aware);
        }
        let second = f.at(t);
        second.requests += 1;
        second.retries += u64::from(retry);
        second.unpaced += u64::from(!paced);
    }

    /// The highest release rate replica `replica` of `replicas` used for
    /// endpoint `ep` at `t` (the engine's `take_release_peak_per_s`).
    pub fn release_peak(&mut self, ep: usize, replica: usize, replicas: usize, t: u64, per_s: f64) {
        let peaks = &mut self.figures[ep].at(t).release_peaks;
        if peaks.len() < replicas {
            peaks.resize(replicas, 0.0);
        }
        peaks[replica] = peaks[replica].max(per_s);
    }

    /// The answer reached the replica (fed as a `result`): a `Retry-After`
    /// with a 429 or 503 announces a pause from now on.
    pub fn answered(&mut self, ev: &SimEvent, a: &Answer, now: u64) {
        if let (429 | 503, Some(h)) = (a.status, &a.retry_after) {
            if let Some(ms) = retry_policy_core::parse_retry_after(h, now) {
                let k = &mut self.known_pause_ms[ev.endpoint];
                *k = (*k).max(now + ms);
            }
        }
    }

    /// A store reply given to `replica` for `endpoint` (11 integers with health: its view).
    pub fn store_reply(&mut self, replica: u32, endpoint: Option<usize>, reply: Option<&[i64]>) {
        self.store_calls += 1;
        if let (Some(ep), Some(n)) = (endpoint, reply.filter(|n| n.len() == 11)) {
            let (paused_until, as_of) = (n[6].max(0) as u64, n[10].max(0) as u64);
            let v = self.views.entry((replica, ep)).or_default();
            if as_of >= v.1 {
                *v = (paused_until, as_of);
            }
        }
    }

    /// Every other action of an engine at `t` (`ev`: the event it names, if any).
    pub fn action(&mut self, o: &Output, ev: Option<&mut SimEvent>, t: u64) {
        match (o, ev) {
            (Output::Count { name, label, delta }, _) => {
                match self.counts.iter_mut().find(|(n, l, _)| n == name && l == label) {
                    Some(c) => c.2 += delta,
                    None => self.counts.push((name, label.clone(), *delta)),
                }
            }
            (Output::Warn { .. }, _) => self.warnings += 1,
            (Output::Delivered { .. }, Some(ev)) => {
                self.leave_hold(ev, t);
                ev.done = true;
                let x = self.series.at(t);
                x.delivered += 1;
                x.latencies_ms.push(t - ev.admitted_t);
                self.endpoints[ev.endpoint].delivered += 1;
                let f = &mut self.figures[ev.endpoint];
                f.delivered += 1;
                f.outage_arrivals_delivered += u64::from(ev.in_outage);
                f.at(t).delivered += 1;
            }
            (Output::DeadLetter { dead_letter, held_ms, .. }, Some(ev)) => {
                self.leave_hold(ev, t);
                ev.done = true;
                let reason = dead_letter.stop_reason;
                let i = dead_index(reason).unwrap_or(0);
                self.series.at(t).dead[i] += 1;
                let tot = &mut self.endpoints[ev.endpoint];
                tot.dead[i] += 1;
                if tot.first_stops.len() < FIRST_STOPS {
                    tot.first_stops.push(reason);
                }
                let f = &mut self.figures[ev.endpoint];
                f.dead[i] += 1;
                if ev.ever_held {
                    f.dead_held += 1;
                    f.dead_held_ms += held_ms;
                }
            }
            (Output::Hold { .. }, Some(ev)) => {
                if !ev.held {
                    ev.held = true;
                    self.figures[ev.endpoint].at(t).held_delta += 1;
                }
                if !std::mem::replace(&mut ev.ever_held, true) {
                    self.figures[ev.endpoint].held_events += 1;
                }
            }
            _ => {}
        }
    }

    /// Turn the held deltas into counts per second.
    pub fn finish(&mut self) {
        for f in &mut self.figures {
            f.finish();
        }
    }
}
