//! The component artifact itself: size, imports, behaviour through wasmtime.

use retry_policy_core::*;
use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::conformance::{run, vector_files, Native};
use retry_policy_host::{HostError, PolicyEngine};
use wasmtime::component::Component;

/// The artifact this crate ships (equal to `dist/retry_policy.wasm`: tests/artifact.rs).
fn component_bytes() -> Vec<u8> {
    EMBEDDED.to_vec()
}

/// 720 KiB: 561 KiB of policy, engine and vector runner, and about 113 KiB
/// for the rollout follower that moved in from the four hosts (Ed25519
/// verification about 32 KB of it; docs/abi-1.0.md, "Cost").
#[test]
fn the_component_fits_its_720_kib_cap() {
    let size = component_bytes().len();
    assert!(size <= 720 * 1024, "component is {size} bytes");
}

#[test]
fn the_component_imports_only_the_clock_and_the_budget_store() {
    let engine = wasmtime::Engine::default();
    let component = Component::new(&engine, component_bytes()).unwrap();
    let ty = component.component_type();
    let mut imports: Vec<String> = ty.imports(&engine).map(|(name, _)| name.to_string()).collect();
    imports.sort();
    assert_eq!(
        imports,
        [
            "webhook:retry-policy/budget-store@1.0.0",
            "webhook:retry-policy/clock@1.0.0",
            "webhook:retry-policy/types@1.0.0",
        ]
    );
    assert!(imports.iter().all(|i| !i.starts_with("wasi:")), "no WASI imports");
    let exports: Vec<String> = ty.exports(&engine).map(|(n, _)| n.to_string()).collect();
    assert_eq!(exports, ["webhook:retry-policy/policy@1.0.0"]);
}

#[test]
fn every_shared_vector_passes_natively_and_in_the_component() {
    let files =
        vector_files(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors"))).unwrap();
    assert!(files.len() >= 21);
    let native = run(&mut Native, &files);
    assert_eq!((native.failed, native.failures.len()), (0, 0), "{:#?}", native.failures);
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap();
    let wasm = run(&mut inst, &files);
    assert_eq!(wasm.failed, 0, "{:#?}", wasm.failures);
    assert_eq!(wasm.passed, native.passed);
    assert_eq!(native.passed, 1155, "945 of formats 1-2, 174 of format 3, 36 engine traces");
}

#[test]
fn every_replica_args_vector_passes_in_the_component() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors-cli/replica-args.json"))
            .unwrap();
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap();
    let judge = &mut |r: &str| retry_policy_host::conformance::replica_args(&mut inst, r);
    let (cases, failures) = retry_policy_core::replica_args::vectors::failures(&text, judge).unwrap();
    assert!(failures.is_empty(), "{} of {cases} failed:\n{}", failures.len(), failures.join("\n"));
    assert!(cases >= 58, "{cases} cases");
}

fn note_policy() -> Policy {
    Policy {
        backoff: Backoff { base_ms: 2_000, factor: 2.0, cap_ms: 300_000, jitter: Jitter::Full },
        window_ms: 900_000,
        hard_cap: 16,
        budget: Budget::default(),
    }
}

fn state(attempt: u32) -> DeliveryState {
    DeliveryState {
        event_id: "evt_1".into(),
        endpoint_id: "ep_42".into(),
        attempt,
        max_attempts: 13,
        first_attempted_at_ms: 1_000,
        credentials_refreshed: false,
    }
}

#[test]
fn decide_uses_the_host_clock_and_reserves_the_retry_in_the_host_counter() {
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(61_000), InMemoryStore::new()).unwrap();
    let outcome = AttemptOutcome::Response { status: 503, retry_after_ms: None };
    let d = inst.decide(&note_policy(), &state(1), &outcome).unwrap();
    let expected = decide_with(&note_policy(), &state(1), &outcome, 61_000, Some(&BudgetCounts::default())).unwrap();
    assert_eq!(d, expected);
    // The reservation counts: 50 more retries on an endpoint with no first
    // attempts soon exhaust a 10% budget once past the 50-attempt floor.
    let mut last = d;
    for _ in 0..60 {
        last = inst.decide(&note_policy(), &state(1), &outcome).unwrap();
    }
    let Decision::Stop(s) = last else { panic!("expected the budget to refuse: {last:?}") };
    assert_eq!(s.reason, StopReason::RetryBudgetExhausted);
}

#[test]
fn a_failing_store_is_budget_unavailable_not_a_trap() {
    struct Down;
    impl BudgetStore for Down {
        type Error = &'static str;
        fn call(&mut self, _: &StoreRequest, _: &Budget, _: u64) -> Result<Reservation, &'static str> {
            Err("redis: connection refused")
        }
    }
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(5_000), Down).unwrap();
    let d = inst
        .decide(&note_policy(), &state(1), &AttemptOutcome::TransportError { kind: "read_timeout".into() })
        .unwrap();
    assert!(matches!(d, Decision::Stop(Stop { reason: StopReason::BudgetUnavailable, .. })));
}

#[test]
fn decide_in_the_component_makes_one_store_call_per_attempt() {
    struct Counting(InMemoryStore, std::sync::Arc<std::sync::Mutex<Vec<StoreOp>>>);
    impl BudgetStore for Counting {
        type Error = core::convert::Infallible;
        fn call(&mut self, r: &StoreRequest, b: &Budget, now_ms: u64) -> Result<Reservation, Self::Error> {
            self.1.lock().unwrap().push(r.op);
            self.0.call(r, b, now_ms)
        }
    }
    let ops = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(5_000), Counting(InMemoryStore::new(), ops.clone())).unwrap();
    let busy = AttemptOutcome::Response { status: 503, retry_after_ms: None };
    assert!(matches!(inst.decide(&note_policy(), &state(1), &busy).unwrap(), Decision::Retry(_)));
    assert!(matches!(inst.decide(&note_policy(), &state(2), &busy).unwrap(), Decision::Retry(_)));
    inst.decide(&note_policy(), &state(3), &AttemptOutcome::Response { status: 200, retry_after_ms: None }).unwrap();
    assert_eq!(*ops.lock().unwrap(), [StoreOp::RecordReserve, StoreOp::Reserve]);
}

#[test]
fn the_step_helpers_in_the_component_match_policy_core() {
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap();
    for h in ["120", " 7 ", "Sun, 06 Nov 1994 08:49:37 GMT", "²", "99999999999999999999", ""] {
        assert_eq!(inst.parse_retry_after(h, 784_111_000_000).unwrap(), parse_retry_after(h, 784_111_000_000), "{h:?}");
    }
    let r = StoreRequest { op: StoreOp::RecordReserve, endpoint_id: "}{é".into(), window_ms: 60_000, bucket: 9 };
    assert_eq!(inst.store_key(&r).unwrap(), store_key(&r));
    let held =
        HeldBuckets { bucket: 8, current: BucketCounts { total: 70, retries: 3 }, previous: BucketCounts::default() };
    assert_eq!(
        inst.store_apply(&r, &Budget::default(), 540_000, &held).unwrap(),
        store_apply(&r, &Budget::default(), 540_000, &held)
    );
}

#[test]
fn bad_input_through_the_component_is_a_typed_error_and_the_instance_stays_usable() {
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap();
    let mut bad = note_policy();
    bad.backoff.factor = f64::NAN;
    match inst.evaluate(&bad, &state(1), &AttemptOutcome::Response { status: 503, retry_after_ms: None }, 0) {
        Err(HostError::Policy(e)) => {
            assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidBackoff, "backoff.factor"))
        }
        other => panic!("{other:?}"),
    }
    match inst.load_document("{\"classes\": {\"n\": {\"window_ms\": -1}}}") {
        Err(HostError::Policy(e)) => assert_eq!(e.code, ErrorCode::InvalidDocument),
        other => panic!("{other:?}"),
    }
    assert_eq!(inst.classify_status(503).unwrap(), OutcomeClass::Retryable);
    assert_eq!(inst.abi_version().unwrap(), 5);
}

#[test]
fn admit_in_the_component_matches_the_native_document() {
    let json = r#"{"version":"v1","classes":{"notification":{"window_ms":900000,"backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000}},
        "ledger":{"window_ms":86400000,"backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000}}}}"#;
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap();
    let doc = inst.load_document(json).unwrap();
    let a = inst.admit(&doc, "ledger", 7).unwrap();
    let n = document::PolicyDocument::from_json(json).unwrap().admit("ledger", 7).unwrap();
    assert_eq!(
        (a.policy_hash.as_str(), a.schedule.max_attempts, a.deadline_ms),
        (n.policy_hash.as_str(), 16, n.deadline_ms)
    );
    assert_eq!(a.schedule.offsets_ms, n.plan.offsets_ms);
    assert!(
        matches!(inst.admit(&doc, "billing", 7), Err(HostError::Policy(e)) if e.code == ErrorCode::UnknownEventClass)
    );
}
