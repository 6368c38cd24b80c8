//! ABI 0.3 in the Rust host: the compiled-policy API against policy-core's
//! `compiled` module, handle ownership and release, and the default step
//! (now on a compiled handle) against 0.2's evaluate + settle.

use retry_policy_core::compiled as native;
use retry_policy_core::*;
use retry_policy_host::{
    CallOp, GateDecision, GateEvent, HeldHealth, HostError, Pacer, PolicyEngine, PolicyInstance, StepResult,
};

fn instance() -> PolicyInstance {
    PolicyEngine::load_default().unwrap().instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap()
}

fn policy(min_sample: u64) -> Policy {
    Policy {
        backoff: Backoff { base_ms: 2_000, factor: 2.0, cap_ms: 300_000, jitter: Jitter::Full },
        window_ms: 900_000,
        hard_cap: 16,
        budget: Budget { ratio: 0.2, window_ms: 60_000, min_sample, sliding: true },
    }
}

fn state(event: u64, attempt: u32, first_ms: u64) -> DeliveryState {
    DeliveryState {
        event_id: format!("evt_{event}"),
        endpoint_id: format!("ep_{}", event % 3),
        attempt,
        max_attempts: 8,
        first_attempted_at_ms: first_ms,
        credentials_refreshed: false,
    }
}

/// A fixed pseudo-random sequence (xorshift), so a failure replays.
struct Seq(u64);

impl Seq {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn the_default_step_decides_as_evaluate_and_settle_did_with_the_same_store_requests() {
    let mut inst = instance();
    let (mut new_store, mut old_store) = (InMemoryStore::new(), InMemoryStore::new());
    let mut seq = Seq(0x9e37_79b9_7f4a_7c15);
    let (mut decided, mut needed_store) = (0, 0);
    for i in 0..3_000u64 {
        let p = policy(if i % 2 == 0 { 5 } else { 50 });
        let now_ms = 1_000_000 + i * 700;
        let s = state(seq.next(40), 1 + seq.next(7) as u32, now_ms - seq.next(1_000_000));
        let status = [200, 404, 429, 503, 500, 408][seq.next(6) as usize];
        let o = AttemptOutcome::Response { status, retry_after_ms: [None, Some(5_000)][seq.next(2) as usize] };

        let got = inst.step(&p, &s, &o, now_ms, &mut new_store);
        // 0.2's path: evaluate, one store call, settle.
        let want = core_step(&p, &s, &o, now_ms, &mut old_store);
        match (got, want) {
            (Ok(g), Ok((decision, disagreement, request))) => {
                assert_eq!((&g.decision, g.budget_disagreement, &g.store), (&decision, disagreement, &request), "{i}");
                // record-reserve / reserve: the advance, store, finish path.
                needed_store += usize::from(g.store.as_ref().is_some_and(|r| r.op != StoreOp::Record));
                decided += 1;
            }
            (Err(HostError::Policy(g)), Err(w)) => assert_eq!(g.code, w.code, "{i}"),
            (g, w) => panic!("{i}: {g:?} vs {w:?}"),
        }
    }
    assert!(decided > 2_500 && needed_store > 100, "the sequence exercises both paths: {decided} {needed_store}");
    assert_eq!(inst.step_policies_compiled(), 2);
}

type Old = (Decision, bool, Option<StoreRequest>);

fn core_step(
    p: &Policy,
    s: &DeliveryState,
    o: &AttemptOutcome,
    now_ms: u64,
    store: &mut InMemoryStore,
) -> Result<Old, PolicyError> {
    let step = evaluate(p, s, o, now_ms)?;
    let reply = match &step.store {
        Some(r) => store.call(r, &p.budget, now_ms).map_or(StoreReply::Unavailable, StoreReply::Answered),
        None => StoreReply::Unavailable,
    };
    Ok(match step.decision {
        Some(d) => (d, false, step.store),
        None => {
            let settled = settle(p, s, o, now_ms, &reply)?;
            (settled.decision, settled.budget_disagreement, step.store)
        }
    })
}

#[test]
fn the_default_step_compiles_once_per_policy_value_and_instance() {
    let mut inst = instance();
    let mut store = InMemoryStore::new();
    let fail = AttemptOutcome::Response { status: 503, retry_after_ms: None };
    assert_eq!(inst.step_policies_compiled(), 0);
    for i in 0..20 {
        inst.step(&policy(5), &state(i, 2, 0), &fail, 1_000, &mut store).unwrap();
    }
    assert_eq!(inst.step_policies_compiled(), 1);
    for i in 0..20 {
        inst.step(&policy(5 + i % 2), &state(i, 2, 0), &fail, 1_000, &mut store).unwrap();
    }
    assert_eq!(inst.step_policies_compiled(), 2);
    assert_eq!(instance().step_policies_compiled(), 0, "a new instance (an artifact swap's) starts empty");
}

#[test]
fn a_compiled_policy_is_refused_by_another_instance() {
    let (mut a, mut b) = (instance(), instance());
    let c = a.compile(&policy(5), None).unwrap();
    let ok = AttemptOutcome::Response { status: 200, retry_after_ms: None };
    assert!(matches!(a.advance(&c, &state(1, 1, 0), &ok, false, 10), Ok(StepResult::Decided { .. })));
    match b.advance(&c, &state(1, 1, 0), &ok, false, 10) {
        Err(HostError::Policy(e)) => assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidInput, "handle")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn dropped_and_closed_compiled_policies_release_their_handles() {
    // The component keeps at most 65535 live handles (wit: `compile`), so
    // without the release on drop this loop is refused past that many.
    let mut inst = instance();
    for _ in 0..70_000 {
        drop(inst.compile(&policy(5), None).unwrap());
    }
    for _ in 0..70_000 {
        inst.compile(&policy(5), None).unwrap().close(&mut inst).unwrap();
    }
}

const HEALTH_DOC: &str = r#"{"version": "h1", "health": {"hold_budget_refusals": true,
  "circuit": {"failure_ratio": 0.5, "min_sample": 4, "cooldown_ms": 10000}},
  "classes": {"n": {"window_ms": 900000, "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000},
                    "budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 2}},
              "plain": {"window_ms": 900000, "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000}, "health": null}}}"#;

#[test]
fn a_format_3_document_through_compiled_handles_matches_policy_core() {
    let mut inst = instance();
    let doc = inst.load_health_document(HEALTH_DOC).unwrap();
    let native_doc = health::HealthDocument::from_json(HEALTH_DOC).unwrap();
    assert_eq!(doc.version, "h1");
    let names: Vec<&str> = doc.classes.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, native_doc.health.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>());
    let compiled = inst.compile_document(&doc).unwrap();
    let (name, c) = &compiled[0];
    let class = &doc.classes[0];
    assert_eq!((name.as_str(), class.health.is_some()), ("n", true));
    let reference = native::CompiledPolicy::new(class.policy, class.health).unwrap();
    assert_eq!(
        inst.admit_compiled(c, "n", "h1", 5).unwrap().policy_hash,
        reference.admit("n", "h1", 5).unwrap().policy_hash
    );

    // One endpoint failing: gate, send, advance, the store call, finish.
    let (mut held, mut native_held) = (HeldHealth::default(), HeldHealth::default());
    let mut view = None;
    let pacer = Pacer { tokens: 0.0, updated_ms: 0, normal_per_s: 0.0 };
    let fail = AttemptOutcome::Response { status: 503, retry_after_ms: None };
    let mut seen_hold_or_probe = false;
    for i in 0..40u64 {
        let now_ms = 1_000 + i * 500;
        let s = state(i, 1, now_ms);
        let event = GateEvent {
            event_id: s.event_id.clone(),
            endpoint_id: "ep_0".into(),
            attempts: 0,
            first_attempted_at_ms: now_ms,
            held: false,
            held_ms: 0,
        };
        let gated = inst.gate(c, &event, view.as_ref(), &pacer, now_ms).unwrap();
        assert_eq!(gated, reference.gate(&event, view.as_ref(), &pacer, now_ms).unwrap(), "{i}");
        if !matches!(gated.0, GateDecision::Send { .. }) {
            seen_hold_or_probe = true;
            continue;
        }
        let s = DeliveryState { endpoint_id: "ep_0".into(), ..s };
        let step = inst.advance(c, &s, &fail, false, now_ms).unwrap();
        assert_eq!(step, reference.step(&s, &fail, false, now_ms).unwrap(), "{i}");
        let (StepResult::NeedsStore(call) | StepResult::Decided { call: Some(call), .. }) = step else { continue };
        let (reply, next) = inst.apply_call(&call, now_ms, &held).unwrap();
        let (native_reply, native_next) = native::apply_call(&call, now_ms, &native_held).unwrap();
        assert_eq!((reply, next), (native_reply, native_next), "{i}");
        (held, native_held, view) = (next, native_next, reply.view);
        if let Some(r) = reply.reservation.filter(|_| call.op != CallOp::Record) {
            let finished = inst.finish(c, &s, &fail, now_ms, &StoreReply::Answered(r)).unwrap();
            assert_eq!(finished, reference.finish(&s, &fail, now_ms, &StoreReply::Answered(r)).unwrap(), "{i}");
        }
    }
    assert!(seen_hold_or_probe, "the circuit opened and the gate held");
    assert!(held.health.opened_at_ms > 0);
    let probe = inst.call_for(c, CallOp::Probe, "ep_0", 30_000).unwrap();
    assert_eq!(probe, reference.call_for(CallOp::Probe, "ep_0", 30_000).unwrap());
    let plain = &compiled[1].1;
    let doc2 = inst
        .load_document(
            r#"{"classes": {"n": {"window_ms": 900000, "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000}},
            "plain": {"window_ms": 60000, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 30000}}}}"#,
        )
        .unwrap();
    let classes = inst.compile_classes(&doc2).unwrap();
    assert_eq!(
        classes.iter().map(|(n, c)| (n.as_str(), c.health())).collect::<Vec<_>>(),
        [("n", None), ("plain", None)]
    );
    assert!(matches!(inst.call_for(plain, CallOp::Probe, "ep_0", 1), Err(HostError::Policy(_))), "no health, no probe");
}
