//! The store's wire form read back (`decode_argv`, the inverse of
//! `call_argv`) and the [`SharedStore`] that answers it: the engine's own
//! in-memory store is that type, so an engine answered from outside by a
//! `SharedStore` acts exactly as one answering itself.

use proptest::prelude::*;
use retry_policy_core::compiled::{CallOp, HealthCall, StoreCall};
use retry_policy_core::engine::{
    call_argv, decode_argv, AttemptResult, Config, Engine, Input, NewEvent, Output, SharedStore, StoreAnswer,
};
use retry_policy_core::health::{Circuit, HealthOutcome};
use retry_policy_core::Budget;

const OPS: [CallOp; 5] = [CallOp::Record, CallOp::Reserve, CallOp::RecordReserve, CallOp::Report, CallOp::Probe];
const OUTCOMES: [HealthOutcome; 3] = [HealthOutcome::Success, HealthOutcome::Failure, HealthOutcome::None];

fn call() -> impl Strategy<Value = StoreCall> {
    let budget =
        (1u32..=1000, 1u64..10_000_000, 0u64..10_000, any::<bool>()).prop_map(|(r, window_ms, min_sample, sliding)| {
            Budget { ratio: f64::from(r) / 1000.0, window_ms, min_sample, sliding }
        });
    let circuit =
        (1u32..=1000, 1u64..1000, 1u64..86_400_000, 1u32..=100, 1u64..3_600_000).prop_map(|(f, m, c, p, i)| Circuit {
            failure_ratio: f64::from(f) / 997.0,
            min_sample: m,
            cooldown_ms: c,
            cooldown_max_ms: c * 2,
            probes: p,
            probe_interval_ms: i,
        });
    let health = (0usize..3, any::<u64>(), any::<bool>(), prop::option::of(circuit)).prop_map(
        |(o, pause_until_ms, probe, circuit)| HealthCall { outcome: OUTCOMES[o], pause_until_ms, probe, circuit },
    );
    (0usize..5, any::<u64>(), budget, prop::option::of(health)).prop_map(|(op, bucket, budget, health)| StoreCall {
        op: OPS[op],
        key: format!("rb:{{e{bucket:x}}}:{}", budget.window_ms),
        endpoint_id: String::new(),
        bucket,
        budget,
        health,
    })
}

proptest! {
    #[test]
    fn every_call_reads_back_from_its_argv(c in call(), now in any::<u64>(), skew in any::<bool>()) {
        let argv = call_argv(&c, now, skew);
        prop_assert_eq!(decode_argv(&c.key, &argv), Ok(c.clone()));
        let mut a = SharedStore::new(8);
        let mut b = SharedStore::new(8);
        prop_assert_eq!(a.answer_wire(&c.key, &argv, now % 1_000_000_000_000), b.answer(&c, now % 1_000_000_000_000));
    }
}

#[test]
fn an_argv_the_encoder_does_not_write_is_refused_with_the_argument_named() {
    let ok: Vec<String> = ["record", "3", "60000", "1", "0.1", "50", "1", "1"].map(String::from).to_vec();
    assert!(decode_argv("k", &ok).is_ok());
    let with = |i: usize, v: &str| {
        let mut a = ok.clone();
        a[i] = v.into();
        decode_argv("k", &a).unwrap_err()
    };
    assert!(with(0, "flush").contains("argv[1] `flush`"));
    assert!(with(2, "-5").contains("argv[3]"));
    assert!(with(4, "NaN").contains("argv[5]"));
    assert!(with(6, "yes").contains("argv[7]"));
    assert!(decode_argv("k", &ok[..7]).unwrap_err().contains("7 arguments"));
    let mut store = SharedStore::new(1);
    assert_eq!(store.answer_wire("k", &ok[..7], 1), None, "a malformed call fails, as the script's error");
}

const DOC: &str = r#"{"version":"s","health":{"circuit":{"min_sample":3,"cooldown_ms":2000,"probe_interval_ms":500}},
 "classes":{"c":{"window_ms":30000,"hard_cap":8,"backoff":{"base_ms":500,"factor":2.0,"cap_ms":8000,"jitter":"full"},
   "budget":{"ratio":0.2,"window_ms":10000,"min_sample":5,"sliding":true}}}}"#;

/// Actions of an engine fed a fixed storm, store calls answered by `store`
/// (none: the engine's own memory store). Store calls are left out.
fn storm(mut store: Option<SharedStore>) -> Vec<Output> {
    let memory_store = store.is_none();
    let mut e =
        Engine::new(Config { document: DOC.into(), memory_store, journal: false, ..Config::default() }).unwrap();
    let mut seen = Vec::new();
    let mut sends = Vec::new();
    for t in 0..400u64 {
        let now = 1_000_000 + t * 250;
        let mut inputs = vec![Input::Tick];
        if t % 3 == 0 {
            let ev = NewEvent {
                event_id: format!("e{t}"),
                endpoint_id: format!("ep{}", t % 2),
                target: "https://x".into(),
                class: "c".into(),
                body_b64: None,
            };
            inputs.push(Input::Admit(ev));
        }
        for (id, n) in sends.drain(..) {
            let status = if t < 200 { 503 } else { 200 };
            inputs.push(Input::Result {
                event_id: id,
                attempt: n,
                result: AttemptResult::Response { status, retry_after: None },
            });
        }
        for input in inputs {
            // Calls are answered in the order they were made, each after the
            // input that made it, as the engine's own store answers them.
            let mut pending = std::collections::VecDeque::from([input]);
            while let Some(input) = pending.pop_front() {
                e.handle(now, input).unwrap();
                while let Some(o) = e.poll_output() {
                    match &o {
                        Output::StoreCall { call_id, key, argv } => {
                            let s = store.as_mut().expect("the memory store makes no call");
                            let answer = s.answer_wire(key, argv, now).map_or(StoreAnswer::Failed, StoreAnswer::Reply);
                            pending.push_back(Input::Store { call_id: *call_id, answer });
                        }
                        // Said once per input: an input per answer says it more often.
                        Output::Gauge { .. } => {}
                        Output::Send(s) => {
                            sends.push((s.event_id.clone(), s.attempt));
                            seen.push(o);
                        }
                        _ => seen.push(o),
                    }
                }
            }
        }
    }
    seen
}

#[test]
fn an_engine_answered_by_a_shared_store_acts_as_one_answering_itself() {
    let own = storm(None);
    assert!(own.iter().any(|o| matches!(o, Output::Hold { .. })), "the storm opens the circuit");
    assert_eq!(storm(Some(SharedStore::new(10_000))), own);
}
