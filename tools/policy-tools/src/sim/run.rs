//! One run of a scenario variant: a discrete-event loop on a virtual clock.
//! Every decision is the engine's (`evaluate`, then the one store call as
//! `store_apply` on an in-memory store, then `settle`), exactly the
//! dispatcher's step; nothing here judges a retry.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use retry_policy_core::{AttemptOutcome, Decision, DeliveryState, HeldBuckets, Policy, StopReason, StoreReply};

use super::rng::Rng;
use super::scenario::{Scenario, Scope, Variant};
use super::series::{dead_index, Series};
use super::world::{answer_counted, Load};
use crate::engine::{DecisionSource, EngineError};

/// What happened to one endpoint over the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointTotals {
    pub id: String,
    pub healthy: bool,
    pub events: u64,
    pub attempts: u64,
    pub retries: u64,
    pub delivered: u64,
    pub dead: [u64; 5],
    /// Reasons of the first dead letters, in the order they stopped.
    pub first_stops: Vec<StopReason>,
}

/// The result of one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub variant: String,
    pub replicas: u32,
    pub scope: Scope,
    pub ratio: f64,
    pub sliding: bool,
    pub min_sample: u64,
    pub series: Series,
    pub endpoints: Vec<EndpointTotals>,
    pub disagreements: u64,
    pub engine_calls: u64,
    /// Events still undecided when the drain time ran out.
    pub unfinished: u64,
}

const FIRST_STOPS: usize = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Arrive(usize),
    Attempt(usize),
    Response(usize),
}

struct Event {
    state: DeliveryState,
    class: usize,
    endpoint: usize,
    replica: u32,
    outcome: Option<AttemptOutcome>,
}

/// The class policies with the variant's budget overrides.
pub fn policies(classes: &[(String, Policy)], v: &Variant) -> Vec<(String, Policy)> {
    classes
        .iter()
        .map(|(n, p)| {
            let mut p = *p;
            p.budget.ratio = v.ratio.unwrap_or(p.budget.ratio);
            p.budget.min_sample = v.min_sample.unwrap_or(p.budget.min_sample);
            p.budget.sliding = v.sliding.unwrap_or(p.budget.sliding);
            p.budget.window_ms = v.budget_window_ms.unwrap_or(p.budget.window_ms);
            (n.clone(), p)
        })
        .collect()
}

/// Run one variant of `scenario` with `seed`.
pub fn run(
    engine: &mut dyn DecisionSource,
    classes: &[(String, Policy)],
    scenario: &Scenario,
    variant: &Variant,
    seed: u64,
) -> Result<Run, String> {
    let err = |e: EngineError| format!("variant {}: {e}", variant.name);
    let pols = policies(classes, variant);
    let mut max_attempts = Vec::new();
    for (_, p) in &pols {
        max_attempts.push(engine.plan(&p.backoff, p.window_ms, p.hard_cap).map_err(err)?.max_attempts);
    }
    let class_of = |name: &str| {
        pols.iter()
            .position(|(n, _)| n == name)
            .ok_or_else(|| format!("scenario traffic names class `{name}`, which the policy does not define"))
    };
    let traffic: Vec<(usize, usize)> = scenario
        .traffic
        .iter()
        .map(|t| Ok((class_of(&t.class)?, scenario.endpoints.iter().position(|e| e.id == t.endpoint).unwrap_or(0))))
        .collect::<Result<_, String>>()?;
    let replicas = variant.replicas.unwrap_or(scenario.replicas);
    let scope = variant.budget.unwrap_or(scenario.budget);
    let start = scenario.start_ms;
    let end_arrivals = scenario.duration_s * 1000;
    let hard_end = end_arrivals + scenario.drain_s * 1000;

    let mut rngs: Vec<Rng> = (0..traffic.len()).map(|i| Rng::new(seed, i as u64)).collect();
    let mut heap: BinaryHeap<Reverse<(u64, u64, Item)>> = BinaryHeap::new();
    let mut seq = 0u64;
    let mut push = |heap: &mut BinaryHeap<_>, t: u64, item: Item| {
        seq += 1;
        heap.push(Reverse((t, seq, item)));
    };
    for (i, t) in scenario.traffic.iter().enumerate() {
        let first = t.from_s * 1000 + rngs[i].exp_ms(1000.0 / t.rate_per_s);
        push(&mut heap, first, Item::Arrive(i));
    }
    let mut events: Vec<Event> = Vec::new();
    let mut held: HashMap<(u32, usize, u64), HeldBuckets> = HashMap::new();
    let mut series = Series::default();
    let mut loads = vec![Load::default(); scenario.endpoints.len()];
    let mut totals: Vec<EndpointTotals> = scenario
        .endpoints
        .iter()
        .map(|e| EndpointTotals { id: e.id.clone(), healthy: e.failure.is_healthy(), ..Default::default() })
        .collect();
    let (mut disagreements, mut calls, mut counter) = (0u64, 0u64, 0u64);

    while let Some(Reverse((t, _, item))) = heap.pop() {
        if t > hard_end {
            break;
        }
        let now = start + t;
        match item {
            Item::Arrive(i) => {
                let spec = &scenario.traffic[i];
                let to = spec.to_s.map_or(end_arrivals, |s| (s * 1000).min(end_arrivals));
                if t >= to {
                    continue;
                }
                let (class, endpoint) = traffic[i];
                counter += 1;
                let replica = rngs[i].below(u64::from(replicas)) as u32;
                let ep = &scenario.endpoints[endpoint];
                events.push(Event {
                    state: DeliveryState {
                        event_id: format!("evt-{}-{counter}", ep.id),
                        endpoint_id: ep.id.clone(),
                        attempt: 1,
                        max_attempts: max_attempts[class],
                        first_attempted_at_ms: now,
                        credentials_refreshed: false,
                    },
                    class,
                    endpoint,
                    replica,
                    outcome: None,
                });
                totals[endpoint].events += 1;
                push(&mut heap, t, Item::Attempt(events.len() - 1));
                let gap = rngs[i].exp_ms(1000.0 / spec.rate_per_s);
                push(&mut heap, t + gap, Item::Arrive(i));
            }
            Item::Attempt(e) => {
                let ev = &mut events[e];
                let ep = &scenario.endpoints[ev.endpoint];
                let retry = ev.state.attempt > 1;
                let s = series.at(t);
                s.attempts += 1;
                s.first_attempts += u64::from(!retry);
                s.retries += u64::from(retry);
                if !ep.failure.is_healthy() {
                    s.failing_attempts += 1;
                    s.failing_retries += u64::from(retry);
                }
                let tot = &mut totals[ev.endpoint];
                tot.attempts += 1;
                tot.retries += u64::from(retry);
                let a = answer_counted(&ep.failure, t, &mut loads[ev.endpoint]);
                let retry_after_ms = match &a.retry_after {
                    Some(h) => {
                        calls += 1;
                        engine.parse_retry_after(h, now).map_err(err)?
                    }
                    None => None,
                };
                ev.outcome = Some(AttemptOutcome::Response { status: a.status, retry_after_ms });
                push(&mut heap, t + ep.latency_ms, Item::Response(e));
            }
            Item::Response(e) => {
                let ev = &mut events[e];
                let policy = &pols[ev.class].1;
                let outcome =
                    ev.outcome.clone().unwrap_or(AttemptOutcome::Response { status: 200, retry_after_ms: None });
                calls += 1;
                let step = engine.evaluate(policy, &ev.state, &outcome, now).map_err(err)?;
                let reply = match &step.store {
                    Some(req) => {
                        let who = if scope == Scope::Shared { 0 } else { ev.replica };
                        let key = (who, ev.endpoint, req.window_ms);
                        let h = held.get(&key).copied().unwrap_or_default();
                        calls += 1;
                        let (reservation, h2) = engine.store_apply(req, &policy.budget, now, &h).map_err(err)?;
                        held.insert(key, h2);
                        Some(reservation)
                    }
                    None => None,
                };
                let decision = match (step.decision, reply) {
                    (Some(d), _) => d,
                    (None, r) => {
                        calls += 1;
                        let reply = r.map_or(StoreReply::Unavailable, StoreReply::Answered);
                        let s = engine.settle(policy, &ev.state, &outcome, now, &reply).map_err(err)?;
                        disagreements += u64::from(s.budget_disagreement);
                        s.decision
                    }
                };
                match decision {
                    Decision::Retry(r) => {
                        ev.state.attempt += 1;
                        ev.state.credentials_refreshed |= r.refresh_credentials;
                        push(&mut heap, t + r.delay_ms, Item::Attempt(e));
                    }
                    Decision::Stop(stop) => {
                        let s = series.at(t);
                        let tot = &mut totals[ev.endpoint];
                        match dead_index(stop.reason) {
                            None => {
                                s.delivered += 1;
                                s.latencies_ms.push(now - ev.state.first_attempted_at_ms);
                                tot.delivered += 1;
                            }
                            Some(i) => {
                                s.dead[i] += 1;
                                tot.dead[i] += 1;
                                if tot.first_stops.len() < FIRST_STOPS {
                                    tot.first_stops.push(stop.reason);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let unfinished = heap.iter().filter(|Reverse((_, _, i))| !matches!(i, Item::Arrive(_))).count() as u64;
    let b = pols.first().map(|(_, p)| p.budget).unwrap_or_default();
    Ok(Run {
        variant: variant.name.clone(),
        replicas,
        scope,
        ratio: b.ratio,
        sliding: b.sliding,
        min_sample: b.min_sample,
        series,
        endpoints: totals,
        disagreements,
        engine_calls: calls,
        unfinished,
    })
}
