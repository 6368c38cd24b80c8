//! The invariants of ABI 0.3's answers ([`check_health`], for the `ops`
//! fuzz target): panics when one breaks.

use retry_policy_core::compiled::{CallOp, StepResult, StoreCall};
use retry_policy_core::health::{
    self, pacer::MAX_NORMAL_PER_S, GateDecision, HealthDecision, HealthOutcome, Pace, Pacer,
};
use retry_policy_core::{self as core_, StoreOp, StoreRequest};

use crate::health::{call_of, native_health, stale, Handle, HealthAnswers, HealthCase};
use crate::refusal;

fn op_of(op: StoreOp) -> CallOp {
    match op {
        StoreOp::Record => CallOp::Record,
        StoreOp::Reserve => CallOp::Reserve,
        StoreOp::RecordReserve => CallOp::RecordReserve,
    }
}

/// A call's budget fields are format 2's request for the same step.
fn check_call(h: &HealthCase, call: &StoreCall) {
    let c = &h.case;
    let budget = c.policy.budget;
    assert_eq!(call.bucket, budget.bucket(c.now_ms), "call bucket != now / window");
    assert_eq!(call.budget, budget, "call budget");
    assert_eq!(call.endpoint_id, c.state.endpoint_id);
    let request =
        StoreRequest { op: StoreOp::Record, endpoint_id: call.endpoint_id.clone(), window_ms: budget.window_ms, bucket: call.bucket };
    assert_eq!(call.key, core_::store_key(&request), "call key != store_key");
    assert_eq!(call.health.is_some(), h.health.is_some(), "health fields exactly with a section");
    if let (Some(hc), Some(s)) = (&call.health, &h.health) {
        assert_eq!(hc.circuit, s.circuit, "the call carries the section's circuit");
    }
}

/// Format 2 through the compiled calls is format 2's evaluate and settle.
fn check_format2(h: &HealthCase, a: &HealthAnswers) {
    let c = &h.case;
    let ev = core_::evaluate(&c.policy, &c.state, &c.outcome, c.now_ms).map_err(refusal);
    match (&ev, &a.advance) {
        (Ok(step), Ok(StepResult::Decided { decision, call })) => {
            assert_eq!(step.decision.as_ref(), Some(decision), "advance decided otherwise than evaluate");
            assert_eq!(step.store.as_ref().map(|r| op_of(r.op)), call.as_ref().map(|k| k.op), "decided call op");
        }
        (Ok(step), Ok(StepResult::NeedsStore(call))) => {
            assert!(step.decision.is_none(), "advance asked the store where evaluate decided");
            assert_eq!(step.store.as_ref().map(|r| op_of(r.op)), Some(call.op), "store call op");
        }
        (Err(e1), Err(e2)) => assert_eq!(e1, e2, "advance and evaluate refuse alike"),
        other => panic!("advance vs evaluate: {other:?} for {h:?}"),
    }
    let settled = core_::settle(&c.policy, &c.state, &c.outcome, c.now_ms, &c.reply).map_err(refusal);
    match (&settled, &a.finish) {
        (Ok(s), Ok(f)) => {
            assert_eq!(f.decision, HealthDecision::Decided(s.decision.clone()), "finish != settle");
            assert_eq!(f.budget_disagreement, s.budget_disagreement);
        }
        (Err(e1), Err(e2)) => assert_eq!(e1, e2),
        other => panic!("finish vs settle: {other:?} for {h:?}"),
    }
}

fn check_gate(h: &HealthCase, d: &GateDecision, pacer: &Pacer, after_probe: bool) {
    let c = &h.case;
    let (first, window) = (h.event.first_attempted_at_ms, c.policy.window_ms);
    let elapsed = c.now_ms.saturating_sub(first);
    let deadline = first.saturating_add(window);
    assert_eq!(matches!(d, GateDecision::Stop { .. }), elapsed >= window, "stop iff the window is over: {h:?}");
    match d {
        GateDecision::Hold { until_ms, .. } => {
            assert!(*until_ms <= deadline, "a hold past the deadline: {d:?} for {h:?}");
            // (u64::MAX: every instant saturates there)
            assert!(*until_ms > c.now_ms || *until_ms == u64::MAX, "a hold that ends by now: {d:?} for {h:?}");
        }
        GateDecision::Send { probe: true } => assert!(after_probe && h.granted, "a probe send not granted"),
        GateDecision::Probe => assert!(!after_probe && h.health.is_some_and(|s| s.circuit.is_some())),
        GateDecision::Stop { held_ms, dead_letter } => {
            assert_eq!(*held_ms, h.event.held_ms);
            assert_eq!(dead_letter.elapsed_ms, elapsed);
        }
        GateDecision::Send { probe: false } => {}
    }
    if h.health.is_none() {
        assert!(matches!(d, GateDecision::Send { probe: false } | GateDecision::Stop { .. }), "no section: {d:?}");
    }
    if !h.event.held {
        assert_eq!(pacer, &h.pacer, "the pacer moved for an event that was not held");
    }
    assert!(pacer.validate().is_ok(), "the gate left an invalid pacer: {pacer:?}");
}

fn check_live(h: &HealthCase, a: &HealthAnswers) {
    let c = &h.case;
    if h.health.is_none() && !h.probe {
        check_format2(h, a);
    }
    if h.health.is_some() {
        let want = health::settle(&c.policy, h.health.as_ref(), &c.state, &c.outcome, c.now_ms, &c.reply);
        assert_eq!(a.finish, want.map_err(refusal), "finish != health::settle");
    }
    match &a.advance {
        Ok(StepResult::Decided { call: Some(k), .. } | StepResult::NeedsStore(k)) => check_call(h, k),
        Err(e) if h.probe && h.health.is_none() && a.compile.is_ok() => {
            let ev = core_::evaluate(&c.policy, &c.state, &c.outcome, c.now_ms);
            assert!(ev.is_err() || e.field == "probe", "a probe without a section: {e:?}");
        }
        _ => {}
    }
    if let Ok((d, p)) = &a.gate {
        check_gate(h, d, p, false);
    }
    if let Ok((d, p)) = &a.after_probe {
        check_gate(h, d, p, true);
    }
    match (&a.call_for, h.call_op) {
        (Ok(k), CallOp::Probe) => {
            check_call(h, k);
            assert_eq!(k.op, h.call_op);
            if let Some(hc) = &k.health {
                assert!(hc.outcome == HealthOutcome::None && hc.pause_until_ms == 0 && !hc.probe);
            }
        }
        (Err(e), op) => assert!(
            e.code == "invalid_input" && e.field == "op",
            "call_for {op:?}: {e:?}"
        ),
        (Ok(k), op) => panic!("call_for {op:?} made {k:?}"),
    }
    if let (Some(call), Ok((reply, next))) = (call_of(&a.advance, &a.call_for), &a.apply) {
        assert_eq!(reply.view.is_some(), call.health.is_some(), "a view exactly with health");
        assert_eq!(reply.granted.is_some(), call.op == CallOp::Probe, "granted exactly for a probe");
        let budget_op = !matches!(call.op, CallOp::Report | CallOp::Probe);
        assert_eq!(reply.reservation.is_some(), budget_op, "a reservation exactly for a budget op");
        if call.health.is_none() {
            let op = [StoreOp::Record, StoreOp::Reserve, StoreOp::RecordReserve][match call.op {
                CallOp::Record => 0,
                CallOp::Reserve => 1,
                _ => 2,
            }];
            let r = StoreRequest { op, endpoint_id: String::new(), window_ms: call.budget.window_ms, bucket: call.bucket };
            let (res, buckets) = core_::store_apply(&r, &call.budget, c.now_ms, &h.held.buckets);
            assert_eq!((reply.reservation, next.buckets), (Some(res), buckets), "apply_call != store_apply");
            assert_eq!(next.health, h.held.health, "format 2 left the health state alone");
        }
    }
}

/// Every answer natively, and the invariants (module docs).
pub fn check_health(h: &HealthCase) -> HealthAnswers {
    let a = native_health(h);
    let c = &h.case;
    let valid = c.policy.validate().is_ok() && h.health.map_or(true, |s| s.validate().is_ok());
    assert_eq!(a.compile.is_ok(), valid, "compile validates the policy and the section: {:?}", a.compile);
    match (&a.compile, h.handle) {
        (Ok(()), Handle::Stale) => {
            for r in [a.admit.as_ref().err(), a.advance.as_ref().err(), a.gate.as_ref().err(), a.call_for.as_ref().err()] {
                assert_eq!(r, Some(&stale()), "a stale handle is refused");
            }
        }
        (Ok(()), Handle::Live) => check_live(h, &a),
        (Err(e), _) => assert_eq!(a.advance.as_ref().err(), Some(e), "no handle: every call has compile's error"),
    }
    if let Ok((verdict, next)) = &a.pace {
        let release = h.health.map_or_else(Default::default, |s| s.release);
        let rate = health::rate_per_s(&release, h.pacer.normal_per_s);
        assert!(next.tokens >= 0.0 && next.tokens <= rate.max(1.0), "pacer tokens out of range: {next:?}");
        assert_eq!(next.updated_ms, c.now_ms);
        if let Pace::Wait { until_ms } = verdict {
            assert!(*until_ms > c.now_ms || c.now_ms == u64::MAX, "a wait that ends by now");
        }
    }
    if let Ok(n) = a.normal_per_s {
        assert!((0.0..=MAX_NORMAL_PER_S).contains(&n), "normal_per_s {n}");
    }
    if let (Ok(until), Some(s)) = (a.pause_until.clone(), &h.health) {
        assert!(until == 0 || (until >= c.now_ms && until <= c.now_ms.saturating_add(s.pause_max_ms)), "pause {until}");
    }
    a
}
