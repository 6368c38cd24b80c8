//! Every case of `tests/vectors-rollout/rollout.json` (docs/rollout.md),
//! run inside the artifact through its `vector-case` export with the format
//! `"rollout/<group>"`: the canary rule (`bucket`), the record reader and
//! desired artifact (`select`), the trust file (`trust`) and the signature
//! check (`verify`), the code every replica of this host runs. Wycheproof
//! style: a case with an unknown field fails, a failure names its case, and
//! the number of cases run per group is asserted, so a runner that skips
//! cannot pass. Prints `rollout vectors: N passed`.
#![cfg(feature = "rollout")]

use retry_policy_host::artifact::EMBEDDED;
use retry_policy_host::conformance::Host as _;
use retry_policy_host::rollout::SIGNED_MESSAGE_PREFIX;
use retry_policy_host::{InMemoryStore, PolicyEngine, SystemClock};
use serde_json::Value;

const VECTORS: &str = include_str!("../../../tests/vectors-rollout/rollout.json");

/// The cases each group holds (87 in all).
const COUNTS: [(&str, usize); 4] = [("bucket", 11), ("select", 51), ("trust", 8), ("verify", 17)];

#[test]
fn every_rollout_vector_gives_the_outcome_it_expects_inside_the_artifact_and_none_is_skipped() {
    let doc: Value = serde_json::from_str(VECTORS).unwrap();
    let doc = doc.as_object().unwrap();
    let mut keys: Vec<&str> = doc.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["about", "bucket", "select", "signed_message_prefix", "trust", "verify"], "the file's fields");
    assert_eq!(doc["signed_message_prefix"].as_str(), Some(SIGNED_MESSAGE_PREFIX));
    let mut inst = PolicyEngine::from_bytes(EMBEDDED).unwrap().instantiate(SystemClock, InMemoryStore::new()).unwrap();
    let mut failures = Vec::new();
    let mut total = 0;
    for (group, count) in COUNTS {
        let format = Value::String(format!("rollout/{group}")).to_string();
        let cases = doc[group].as_array().unwrap_or_else(|| panic!("`{group}` is not an array"));
        for (i, case) in cases.iter().enumerate() {
            let name = case.get("name").or_else(|| case.get("replica_id")).and_then(Value::as_str).unwrap_or("");
            if let Err(why) = inst.vector_case(&format, &case.to_string()) {
                failures.push(format!("{group}[{i}] {name}: {why}"));
            }
        }
        assert_eq!(cases.len(), count, "the `{group}` group holds {} cases, expected {count}", cases.len());
        total += cases.len();
    }
    assert!(failures.is_empty(), "{} of {total} cases failed:\n{}", failures.len(), failures.join("\n"));
    println!("rollout vectors: {total} passed");
}
