//! ABI 0.3 on one structured case: the compiled policy's lifecycle
//! (compile, admit, advance, finish, gate, after_probe,
//! call_for, discard), the in-memory store's `apply_call` on the calls the
//! policy makes, and format 3's free functions (pace, normal_per_s,
//! health_outcome, pause_until, load_health_document).
//!
//! * [`HealthCase::arbitrary`] starts with a [`Case`] (so the `ops` corpus
//!   keeps its meaning) and adds a section, a gate event, a view, a pacer,
//!   what the store holds and how the handle is used (live, or
//!   stale: used after its discard).
//! * [`native_health`] computes every answer with `policy_core::compiled`;
//!   [`HealthAnswers`] compare between hosts (tests/differential wasmdiff).
//! * [`check_health`] panics when an invariant breaks: the compiled calls
//!   equal format 2's free functions and format 3's, holds end by the
//!   deadline, the pacer stays finite and in range, a call's bucket is
//!   `now / budget.window_ms`, the store's reply carries a view exactly
//!   with health.

use arbitrary::{Arbitrary, Result, Unstructured};
use retry_policy_core::compiled::{apply_call, CallOp, CallReply, CompiledPolicy, StepResult, StoreCall};
use retry_policy_core::document::Admission;
use retry_policy_core::health::{
    self, Circuit, FailureBuckets, GateDecision, GateEvent, Health, HealthOutcome, HealthSettlement, HealthState,
    HealthView, HeldHealth, Pace, Pacer, Release,
};
use retry_policy_core::{self as core_, AttemptOutcome, Budget};

use crate::{edge_u32, edge_u64, refusal, Ans, Case, Refusal};

fn pick<T: Copy>(u: &mut Unstructured, table: &[T]) -> Result<T> {
    Ok(table[u.choose_index(table.len())?])
}

fn edge_f64(u: &mut Unstructured, table: &[f64]) -> Result<f64> {
    Ok(if u.ratio(3, 4)? { pick(u, table)? } else { f64::from_bits(u.arbitrary()?) })
}
/// Mostly one of `valid`, now and then one of `invalid` (each check's edges).
fn mostly<T: Copy>(u: &mut Unstructured, valid: &[T], invalid: &[T]) -> Result<T> {
    if u.ratio(1, 12)? {
        pick(u, invalid)
    } else {
        pick(u, valid)
    }
}

fn circuit(u: &mut Unstructured) -> Result<Circuit> {
    if u.ratio(1, 3)? {
        return Ok(Circuit::default());
    }
    let nan = f64::NAN;
    let cooldown_ms = mostly(u, &[1, 1000, 5000, 86_400_000], &[0, 86_400_001])?;
    Ok(Circuit {
        failure_ratio: mostly(u, &[0.5, 1.0, 5e-324, 0.1, 0.9999999999999999], &[0.0, -0.0, 1.0000000000000002, nan])?,
        min_sample: mostly(u, &[1, 2, 20, 50, u64::MAX], &[0])?,
        cooldown_ms,
        cooldown_max_ms: mostly(u, &[cooldown_ms, 120_000.max(cooldown_ms), 86_400_000], &[0, 86_400_001])?,
        probes: mostly(u, &[1, 2, 3, 100], &[0, 101])?,
        probe_interval_ms: mostly(u, &[1, 1000, 3_600_000], &[0, 3_600_001])?,
    })
}

fn section(u: &mut Unstructured) -> Result<Option<Health>> {
    if u.ratio(1, 5)? {
        return Ok(None);
    }
    if u.ratio(1, 3)? {
        return Ok(Some(Health::default()));
    }
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    Ok(Some(Health {
        hold_budget_refusals: u.arbitrary()?,
        pause_max_ms: mostly(u, &[0, 1, 600_000, 86_400_000], &[86_400_001])?,
        circuit: if u.ratio(1, 5)? { None } else { Some(circuit(u)?) },
        release: Release {
            multiple: mostly(u, &[1.0, 0.5, 100.0, 1e-9, 3.0000000000000004], &[100.00000000000001, 0.0, inf, nan])?,
            floor_per_s: mostly(u, &[1.0, 0.001, 10_000.0, 5e-324], &[10_000.000000000002, 0.0, -1.0, nan])?,
        },
        cache_ms: mostly(u, &[1, 1000, 60_000], &[0, 60_001])?,
    }))
}

/// `now` moved by one of the boundary deltas (saturating).
fn near(u: &mut Unstructured, now: u64, deltas: &[i64]) -> Result<u64> {
    let d = pick(u, deltas)?;
    Ok(if d >= 0 { now.saturating_add(d as u64) } else { now.saturating_sub(d.unsigned_abs()) })
}

fn pacer(u: &mut Unstructured, now: u64) -> Result<Pacer> {
    Ok(Pacer {
        tokens: edge_f64(u, &[0.0, 0.5, 0.9999999999999999, 1.0, 1.0000000000000002, 2.5, -0.0, -1.0, f64::NAN])?,
        updated_ms: near(u, now, &[0, -1, -999, -1000, -1001, 5, i64::MIN])?,
        normal_per_s: edge_f64(u, &[0.0, 0.001, 1.0, 10.0, 1e9, 1e9 + 1.0, f64::INFINITY])?,
    })
}

/// Most of `Case`'s policies and states are refused (boundaries of every
/// field); the compiled calls and the store need valid ones to be reached.
fn valid_step(u: &mut Unstructured, c: &mut Case) -> Result<()> {
    let p = &mut c.policy;
    p.backoff.base_ms = pick(u, &[1, 100, 1000, 2000])?;
    p.backoff.factor = pick(u, &[1.0, 1.5, 2.0])?;
    p.backoff.cap_ms = pick(u, &[p.backoff.base_ms, 60_000, 300_000, 86_400_000])?;
    p.window_ms = pick(u, &[1, 1000, 60_000, 900_000, 86_400_000, 2_592_000_000])?;
    p.hard_cap = pick(u, &[1, 2, 16, 100])?;
    p.budget = Budget {
        ratio: pick(u, &[0.1, 0.5, 1.0, 5e-324])?,
        window_ms: pick(u, &[1, 1000, 60_000, 3_600_000])?,
        min_sample: pick(u, &[0, 1, 20, 50])?,
        sliding: u.arbitrary()?,
    };
    if u.ratio(1, 2)? {
        c.outcome = match u.int_in_range(0..=3u8)? {
            0 => AttemptOutcome::TransportError { kind: String::from("connect_timeout") },
            k => AttemptOutcome::Response {
                status: [503, 429, 500][usize::from(k - 1)],
                retry_after_ms: if u.arbitrary()? { Some(edge_u64(u)? % 700_000) } else { None },
            },
        };
    }
    let s = &mut c.state;
    s.max_attempts = pick(u, &[1, 2, 3, 16, 100])?;
    s.attempt = pick(u, &[1, 1, 2, s.max_attempts.saturating_sub(1).max(1), s.max_attempts])?;
    let window = p.window_ms;
    s.first_attempted_at_ms = c.now_ms.saturating_sub(pick(u, &[0, 1000, window - 1, window, 5000])?);
    Ok(())
}

/// How the compiled policy's handle is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    Live,
    /// Discarded before the calls: every handle call is `invalid_input` (`handle`).
    Stale,
}

/// A [`Case`] and what ABI 0.3's calls add to it.
#[derive(Clone, Debug)]
pub struct HealthCase {
    pub case: Case,
    pub health: Option<Health>,
    pub probe: bool,
    pub handle: Handle,
    pub event: GateEvent,
    pub view: Option<HealthView>,
    pub granted: bool,
    pub pacer: Pacer,
    pub call_op: CallOp,
    pub held: HeldHealth,
}

impl<'a> Arbitrary<'a> for HealthCase {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let mut case = Case::arbitrary(u)?;
        if u.ratio(2, 3)? {
            valid_step(u, &mut case)?;
        }
        let now = case.now_ms;
        let health = section(u)?;
        let c = health.and_then(|h| h.circuit).unwrap_or_default();
        let cd = pick(u, &[c.cooldown_ms, c.cooldown_max_ms, 0, 1])?;
        let cache = health.map_or(1000, |h| h.cache_ms) as i64;
        let view = HealthView {
            paused_until_ms: if u.arbitrary()? { 0 } else { near(u, now, &[0, 1, -1, 600_000, i64::MAX])? },
            opened_at_ms: if u.arbitrary()? { 0 } else { near(u, now, &[-(cd as i64), 1 - cd as i64, 0, i64::MIN])? },
            cooldown_ms: cd,
            closed_at_ms: near(u, now, &[0, -1, i64::MIN])?,
            as_of_ms: near(u, now, &[0, -cache, -cache - 1, 1, -60_001])?,
        };
        let first = case.state.first_attempted_at_ms;
        let event = GateEvent {
            event_id: case.state.event_id.clone(),
            endpoint_id: case.state.endpoint_id.clone(),
            attempts: edge_u32(u)?,
            first_attempted_at_ms: first,
            held: u.arbitrary()?,
            held_ms: edge_u64(u)?,
        };
        let bucket = case.policy.budget.bucket(now);
        let held = HeldHealth {
            buckets: case.held,
            health: HealthState {
                failures: FailureBuckets {
                    bucket: near(u, bucket, &[0, -1, -2, 1])?,
                    current: pick(u, &[0, 1, 9, 10, 20, u64::MAX])?,
                    previous: pick(u, &[0, 1, 39, u64::MAX])?,
                },
                paused_until_ms: view.paused_until_ms,
                opened_at_ms: view.opened_at_ms,
                cooldown_ms: view.cooldown_ms,
                probe_window: near(u, now / c.probe_interval_ms.max(1), &[0, -1, 1])?,
                probes_granted: pick(u, &[0, 1, c.probes.saturating_sub(1), c.probes, u32::MAX])?,
                closed_at_ms: view.closed_at_ms,
                consecutive_failures: pick(u, &[0, 1, c.min_sample.saturating_sub(1), c.min_sample, u64::MAX])?,
                probes_in_flight: pick(u, &[0, 1, c.probes.saturating_sub(1), c.probes, u32::MAX])?,
                probe_busy_until_ms: near(u, now, &[0, -1, 1, 5000])?,
            },
        };
        Ok(HealthCase {
            case,
            health,
            probe: u.ratio(1, 4)?,
            handle: if u.ratio(15, 16)? { Handle::Live } else { Handle::Stale },
            event,
            view: if u.ratio(1, 6)? { None } else { Some(view) },
            granted: u.arbitrary()?,
            pacer: pacer(u, now)?,
            call_op: pick(u, &[CallOp::Reserve, CallOp::Probe, CallOp::Record, CallOp::Report, CallOp::RecordReserve])?,
            held,
        })
    }
}

/// Every ABI 0.3 answer on one case.
#[derive(Clone, Debug, PartialEq)]
pub struct HealthAnswers {
    pub compile: Ans<()>,
    pub admit: Ans<Admission>,
    pub advance: Ans<StepResult>,
    /// `finish` with the case's store reply.
    pub finish: Ans<HealthSettlement>,
    /// `apply_call` on advance's call (or call_for's), on what the case's store holds.
    pub apply: Ans<(CallReply, HeldHealth)>,
    pub gate: Ans<(GateDecision, Pacer)>,
    pub after_probe: Ans<(GateDecision, Pacer)>,
    pub call_for: Ans<StoreCall>,
    pub pace: Ans<(Pace, Pacer)>,
    pub normal_per_s: Ans<f64>,
    pub health_outcome: Ans<HealthOutcome>,
    pub pause_until: Ans<u64>,
}

pub fn stale() -> Refusal {
    Refusal { code: "invalid_input", field: String::from("handle") }
}

/// The store call these answers exercise: advance's, else call_for's.
pub fn call_of(advance: &Ans<StepResult>, call_for: &Ans<StoreCall>) -> Option<StoreCall> {
    match advance {
        Ok(StepResult::NeedsStore(c)) | Ok(StepResult::Decided { call: Some(c), .. }) => Some(c.clone()),
        _ => call_for.as_ref().ok().cloned(),
    }
}

fn on<T>(
    compiled: &Ans<CompiledPolicy>,
    handle: Handle,
    f: impl FnOnce(&CompiledPolicy) -> core::result::Result<T, core_::PolicyError>,
) -> Ans<T> {
    match (compiled, handle) {
        (Err(e), _) => Err(e.clone()),
        (Ok(_), Handle::Stale) => Err(stale()),
        (Ok(p), Handle::Live) => f(p).map_err(refusal),
    }
}

/// Every answer natively (`policy_core::compiled`, and the component's
/// checks for the free functions: `pace` validates the pacer then the
/// release as a section's, `normal_per_s` the budget, `pause_until` the
/// section).
pub fn native_health(h: &HealthCase) -> HealthAnswers {
    let c = &h.case;
    let compiled = CompiledPolicy::new(c.policy, h.health).map_err(refusal);
    let k = h.handle;
    let advance = on(&compiled, k, |p| p.step(&c.state, &c.outcome, h.probe, c.now_ms));
    let call_for = on(&compiled, k, |p| p.call_for(h.call_op, &c.state.endpoint_id, c.now_ms));
    let apply = match call_of(&advance, &call_for) {
        Some(call) => apply_call(&call, c.now_ms, &h.held).map_err(refusal),
        None => Err(Refusal { code: "skipped", field: String::new() }),
    };
    let release = h.health.map_or_else(Release::default, |s| s.release);
    let section = h.health.unwrap_or_default();
    let view = h.view.unwrap_or_default();
    HealthAnswers {
        compile: compiled.as_ref().map(|_| ()).map_err(Clone::clone),
        admit: on(&compiled, k, |p| p.admit("class", "v1", c.now_ms)),
        advance,
        finish: on(&compiled, k, |p| p.finish(&c.state, &c.outcome, c.now_ms, &c.reply)),
        apply,
        gate: on(&compiled, k, |p| p.gate(&h.event, h.view.as_ref(), &h.pacer, c.now_ms)),
        after_probe: on(&compiled, k, |p| p.after_probe(&h.event, h.granted, &view, &h.pacer, c.now_ms)),
        call_for,
        pace: h
            .pacer
            .validate()
            .and_then(|()| Health { release, ..Health::default() }.validate().map_err(|e| e.within("health")))
            .map(|()| health::pace(&h.pacer, &release, c.now_ms))
            .map_err(refusal),
        normal_per_s: c
            .policy
            .budget
            .validate()
            .map_err(|e| e.within("budget"))
            .map(|()| health::normal_per_s(&c.policy.budget, c.now_ms, c.held.current.total, c.held.previous.total))
            .map_err(refusal),
        health_outcome: health::health_outcome(&c.outcome).map_err(refusal),
        pause_until: section
            .validate()
            .map_err(|e| e.within("health"))
            .map(|()| health::pause_until_ms(&section, &c.outcome, c.now_ms))
            .map_err(refusal),
    }
}
