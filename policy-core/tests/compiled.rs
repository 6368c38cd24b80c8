//! The compiled policy (ABI 0.3): one call per step where the answer needs
//! no store, the same decisions as format 2's evaluate/settle, and the
//! format-3 calls carrying what the store needs.

use retry_policy_core::compiled::{apply_call, CallOp, CompiledPolicy, StepResult};
use retry_policy_core::health::{Health, HealthOutcome, HeldHealth};
use retry_policy_core::{
    evaluate, settle, AttemptOutcome, Backoff, Budget, Decision, DeliveryState, ErrorCode, Jitter, Policy, StopReason,
    StoreOp, StoreReply,
};

const T0: u64 = 1_796_180_820_000;

fn policy() -> Policy {
    Policy {
        backoff: Backoff { base_ms: 1000, factor: 2.0, cap_ms: 60_000, jitter: Jitter::None },
        window_ms: 900_000,
        hard_cap: 16,
        budget: Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: false },
    }
}

fn state(attempt: u32) -> DeliveryState {
    DeliveryState {
        event_id: "ev-1".into(),
        endpoint_id: "ep-1".into(),
        attempt,
        max_attempts: 13,
        first_attempted_at_ms: T0,
        credentials_refreshed: false,
    }
}

fn status(s: u16) -> AttemptOutcome {
    AttemptOutcome::Response { status: s, retry_after_ms: None }
}

fn refusing_reply(p: &CompiledPolicy, st: &DeliveryState, o: &AttemptOutcome, now_ms: u64) -> StoreReply {
    let StepResult::NeedsStore(call) = p.step(st, o, false, now_ms).unwrap() else { panic!("expected a store call") };
    let mut held = HeldHealth::default();
    held.buckets.bucket = call.bucket;
    held.buckets.current.total = 1000;
    held.buckets.current.retries = 500;
    let (reply, _) = apply_call(&call, now_ms, &held).unwrap();
    StoreReply::Answered(reply.reservation.unwrap())
}

#[test]
fn a_delivered_retry_is_decided_in_one_call_with_no_store_call() {
    let p = CompiledPolicy::new(policy(), None).unwrap();
    let r = p.step(&state(3), &status(200), false, T0 + 10_000).unwrap();
    assert!(
        matches!(r, StepResult::Decided { decision: Decision::Stop(ref s), call: None } if s.reason == StopReason::Delivered)
    );
}

#[test]
fn a_decided_first_attempt_carries_its_record_call_and_key() {
    let p = CompiledPolicy::new(policy(), None).unwrap();
    let StepResult::Decided { call: Some(call), .. } = p.step(&state(1), &status(200), false, T0).unwrap() else {
        panic!("expected a decided step with a call")
    };
    assert_eq!(call.op, CallOp::Record);
    assert_eq!(call.key, "rb:{e65702d31}:60000");
    assert_eq!(call.bucket, T0 / 60_000);
    assert!(call.health.is_none(), "a format-2 policy's calls carry no health fields");
}

#[test]
fn every_format_2_step_matches_evaluate_and_settle() {
    let p = CompiledPolicy::new(policy(), None).unwrap();
    for attempt in [1, 2, 5, 13] {
        for o in [
            status(200),
            status(503),
            status(400),
            status(429),
            AttemptOutcome::TransportError { kind: "connect_timeout".into() },
        ] {
            let now_ms = T0 + u64::from(attempt) * 7_000;
            let st = state(attempt);
            let old = evaluate(&policy(), &st, &o, now_ms).unwrap();
            match p.step(&st, &o, false, now_ms).unwrap() {
                StepResult::Decided { decision, call } => {
                    assert_eq!(old.decision, Some(decision));
                    assert_eq!(
                        old.store.map(|r| r.op),
                        call.map(|c| match c.op {
                            CallOp::Record => StoreOp::Record,
                            other => panic!("unexpected {other:?}"),
                        })
                    );
                }
                StepResult::NeedsStore(_) => {
                    assert_eq!(old.decision, None);
                    for reply in [StoreReply::Unavailable, refusing_reply(&p, &st, &o, now_ms)] {
                        let new = p.finish(&st, &o, now_ms, &reply).unwrap();
                        let was = settle(&policy(), &st, &o, now_ms, &reply).unwrap();
                        assert_eq!(new.budget_disagreement, was.budget_disagreement);
                        assert_eq!(format!("{:?}", new.decision), format!("Decided({:?})", was.decision));
                    }
                }
            }
        }
    }
}

#[test]
fn with_health_a_refused_retry_is_held_not_dead_lettered() {
    let p = CompiledPolicy::new(policy(), Some(Health::default())).unwrap();
    let (st, o, now_ms) = (state(2), status(503), T0 + 5_000);
    let reply = refusing_reply(&p, &st, &o, now_ms);
    let f = p.finish(&st, &o, now_ms, &reply).unwrap();
    assert_eq!(
        format!("{:?}", f.decision),
        format!("Hold {{ until_ms: {}, refresh_credentials: false }}", now_ms + 2000)
    );
}

#[test]
fn with_health_a_decided_retry_that_failed_reports_its_outcome_and_pause() {
    let p = CompiledPolicy::new(policy(), Some(Health::default())).unwrap();
    let mut st = state(13);
    st.max_attempts = 13;
    let o = AttemptOutcome::Response { status: 429, retry_after_ms: Some(120_000) };
    let now_ms = T0 + 60_000;
    let StepResult::Decided { decision: Decision::Stop(s), call: Some(call) } = p.step(&st, &o, false, now_ms).unwrap()
    else {
        panic!("expected max attempts with a report call")
    };
    assert_eq!(s.reason, StopReason::MaxAttemptsExhausted);
    assert_eq!(call.op, CallOp::Report);
    let h = call.health.unwrap();
    assert_eq!((h.outcome, h.pause_until_ms, h.probe), (HealthOutcome::Failure, now_ms + 120_000, false));
}

#[test]
fn with_health_a_delivered_retry_reports_only_when_it_was_a_probe() {
    let p = CompiledPolicy::new(policy(), Some(Health::default())).unwrap();
    let plain = p.step(&state(2), &status(200), false, T0 + 5_000).unwrap();
    assert!(matches!(plain, StepResult::Decided { call: None, .. }));
    let probe = p.step(&state(2), &status(200), true, T0 + 5_000).unwrap();
    let StepResult::Decided { call: Some(call), .. } = probe else { panic!("a probe reports") };
    assert_eq!(call.health.unwrap().outcome, HealthOutcome::Success);
}

#[test]
fn a_probe_flag_without_health_is_invalid_input() {
    let p = CompiledPolicy::new(policy(), None).unwrap();
    let e = p.step(&state(2), &status(200), true, T0).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidInput, "probe"));
}

#[test]
fn an_invalid_section_is_refused_at_compile_time_with_its_path() {
    let h = Health { cache_ms: 0, ..Health::default() };
    let e = CompiledPolicy::new(policy(), Some(h)).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidDocument, "health.cache_ms"));
}

#[test]
fn the_only_call_outside_an_attempt_is_a_probe() {
    let plain = CompiledPolicy::new(policy(), None).unwrap();
    assert_eq!(plain.call_for(CallOp::Reserve, "ep-1", T0).unwrap_err().field, "op");
    assert_eq!(plain.call_for(CallOp::Probe, "ep-1", T0).unwrap_err().field, "op");
    assert_eq!(plain.call_for(CallOp::Report, "ep-1", T0).unwrap_err().field, "op");
    let health = CompiledPolicy::new(policy(), Some(Health::default())).unwrap();
    let probe = health.call_for(CallOp::Probe, "ep-1", T0).unwrap();
    assert_eq!(probe.health.unwrap().outcome, HealthOutcome::None);
    // Since draft 6 a held retry's wake makes no `reserve` (docs/health.md section 5).
    assert_eq!(health.call_for(CallOp::Reserve, "ep-1", T0).unwrap_err().field, "op");
}

#[test]
fn a_store_refuses_a_report_without_health_fields_and_a_probe_with_an_outcome() {
    let p = CompiledPolicy::new(policy(), Some(Health::default())).unwrap();
    let mut call = p.call_for(CallOp::Probe, "ep-1", T0).unwrap();
    call.health.as_mut().unwrap().outcome = HealthOutcome::Failure;
    assert_eq!(apply_call(&call, T0, &HeldHealth::default()).unwrap_err().field, "call.health");
    call.health = None;
    call.op = CallOp::Report;
    assert_eq!(apply_call(&call, T0, &HeldHealth::default()).unwrap_err().field, "call.op");
}

#[test]
fn a_store_answers_a_probe_with_a_grant_only_once_the_cooldown_is_over() {
    let p = CompiledPolicy::new(policy(), Some(Health::default())).unwrap();
    let mut held = HeldHealth::default();
    held.health.opened_at_ms = T0;
    held.health.cooldown_ms = 5_000;
    let early = apply_call(&p.call_for(CallOp::Probe, "ep-1", T0 + 1_000).unwrap(), T0 + 1_000, &held).unwrap();
    assert_eq!(early.0.granted, Some(false));
    let late = apply_call(&p.call_for(CallOp::Probe, "ep-1", T0 + 6_000).unwrap(), T0 + 6_000, &held).unwrap();
    assert_eq!(late.0.granted, Some(true));
    assert_eq!(late.0.view.unwrap().opened_at_ms, T0);
}

#[test]
fn an_admission_with_health_hashes_the_section_and_one_without_keeps_format_2s_hash() {
    let doc =
        retry_policy_core::document::PolicyDocument { version: "v".into(), classes: vec![("c".into(), policy())] };
    let plain = CompiledPolicy::new(policy(), None).unwrap().admit("c", "v", T0).unwrap();
    assert_eq!(plain, doc.admit("c", T0).unwrap());
    let health = CompiledPolicy::new(policy(), Some(Health::default())).unwrap().admit("c", "v", T0).unwrap();
    assert_ne!(health.policy_hash, plain.policy_hash);
}
