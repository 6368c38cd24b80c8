//! A seeded sweep of the `ops` target's input type on stable (`cargo test`
//! in fuzz/): the invariants hold on cases from a fixed byte stream, and
//! the stream reaches the answers worth fuzzing.

use arbitrary::{Arbitrary, Unstructured};
use retry_policy_core::compiled::StepResult;
use retry_policy_core::health::GateDecision;
use retry_policy_fuzz_ops::{check_health, check_native, HealthCase};

fn cases(n: u64) -> impl Iterator<Item = HealthCase> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..n).filter_map(move |_| {
        let bytes: Vec<u8> = (0..128)
            .flat_map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x.to_le_bytes()
            })
            .collect();
        HealthCase::arbitrary(&mut Unstructured::new(&bytes)).ok()
    })
}

#[test]
fn seeded_cases_keep_every_invariant_and_reach_holds_probes_and_store_calls() {
    let (mut holds, mut probes, mut needs_store, mut applied, mut compiled) = (0, 0, 0, 0, 0);
    for h in cases(20_000) {
        check_native(&h.case);
        let a = check_health(&h);
        holds += usize::from(matches!(a.gate, Ok((GateDecision::Hold { .. }, _))));
        probes += usize::from(matches!(a.gate, Ok((GateDecision::Probe, _))));
        needs_store += usize::from(matches!(a.advance, Ok(StepResult::NeedsStore(_))));
        applied += usize::from(a.apply.is_ok());
        compiled += usize::from(a.compile.is_ok());
    }
    eprintln!("compiled {compiled}, holds {holds}, probes {probes}, needs_store {needs_store}, applied {applied}");
    assert!(holds > 50 && probes > 20 && needs_store > 50 && applied > 200, "the generator lost its reach");
}
