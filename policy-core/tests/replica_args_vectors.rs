//! tests/vectors-cli/replica-args.json through policy-core's `replica_args`
//! (the component's `replica-args` answers from the same code; the Rust
//! host's component test runs the file through the artifact too).

use retry_policy_core::json::{self, Value};
use retry_policy_core::replica_args::judge_text;

/// One case's failure, named; `None` when it passes. Unknown fields fail.
pub fn check(case: &Value, judge: &mut dyn FnMut(&str) -> Result<String, String>) -> Option<String> {
    let name = case.get("name").and_then(Value::as_str).unwrap_or("?").to_string();
    let Value::Object(members) = case else { return Some(format!("{name}: not an object")) };
    if let Some((k, _)) =
        members.iter().find(|(k, _)| !["name", "request", "expect", "exact", "error"].contains(&k.as_str()))
    {
        return Some(format!("{name}: unknown field {k}"));
    }
    let request = retry_policy_core::journal::json_text::to_text(case.get("request")?);
    let got = judge(&request);
    match (case.get("expect"), case.get("exact"), case.get("error"), got) {
        (_, _, Some(Value::String(want)), Err(e)) if *want == e => None,
        (_, Some(want), None, Ok(a)) if json::parse(&a).ok().as_ref() == Some(want) => None,
        (Some(Value::Object(want)), None, None, Ok(a)) => {
            let a = json::parse(&a).ok()?;
            want.iter()
                .find(|(k, v)| a.get(k) != Some(v))
                .map(|(k, v)| format!("{name}: {k}: want {v:?}, got {:?}", a.get(k)))
        }
        (_, _, _, got) => Some(format!("{name}: got {got:?}")),
    }
}

#[test]
fn every_replica_args_vector_passes_natively() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors-cli/replica-args.json"))
        .unwrap();
    let doc = json::parse(&text).unwrap();
    assert_eq!(doc.get("format").and_then(Value::as_str), Some("webhook-retry-policy/replica-args 1"));
    let Some(Value::Array(cases)) = doc.get("cases") else { panic!("no cases") };
    let failures: Vec<String> = cases.iter().filter_map(|c| check(c, &mut |r| judge_text(r))).collect();
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    assert!(cases.len() >= 50);
}
