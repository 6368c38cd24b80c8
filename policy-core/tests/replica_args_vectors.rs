//! tests/vectors-cli/replica-args.json through policy-core's `replica_args`
//! (the Rust host's tests/component.rs runs it through the artifact too).

use retry_policy_core::replica_args::{judge_text, vectors};

#[test]
fn every_replica_args_vector_passes_natively() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors-cli/replica-args.json"))
        .unwrap();
    let (cases, failures) = vectors::failures(&text, &mut |r| judge_text(r)).unwrap();
    assert!(failures.is_empty(), "{} of {cases} failed:\n{}", failures.len(), failures.join("\n"));
    assert!(cases >= 58, "{cases} cases");
}
