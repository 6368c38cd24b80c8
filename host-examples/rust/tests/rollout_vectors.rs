//! Every case of `tests/vectors-rollout/rollout.json` (docs/rollout.md):
//! the canary rule (`bucket`), the record reader and desired artifact
//! (`select`), the trust file (`trust`) and the signature check (`verify`).
//! Wycheproof style: a case with an unknown field fails, a failure names its
//! case, and the number of cases run per group is asserted, so a runner that
//! skips cannot pass. Prints `rollout vectors: N passed`.
#![cfg(feature = "rollout")]

use retry_policy_host::rollout::{bucket, desired, Record, TrustedKeys, SIGNED_MESSAGE_PREFIX};
use serde_json::{Map, Value};

const VECTORS: &str = include_str!("../../../tests/vectors-rollout/rollout.json");

/// The cases each group holds (87 in all).
const COUNTS: [(&str, usize); 4] = [("bucket", 11), ("select", 51), ("trust", 8), ("verify", 17)];

fn only(case: &Map<String, Value>, known: &[&str]) -> Result<(), String> {
    match case.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(format!("unknown field `{k}`")),
        None => Ok(()),
    }
}

fn text<'a>(case: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    case.get(key).and_then(Value::as_str).ok_or_else(|| format!("`{key}` is not a string"))
}

/// The expected outcome: `Ok(value of ok_key)` or `Err(error code)`.
fn expected<'a>(case: &'a Map<String, Value>, ok_key: &str) -> Result<Result<&'a Value, &'a str>, String> {
    let e = case.get("expect").and_then(Value::as_object).ok_or("`expect` is not an object")?;
    only(e, &[ok_key, "error"])?;
    match (e.get(ok_key), e.get("error").and_then(Value::as_str)) {
        (Some(v), None) => Ok(Ok(v)),
        (None, Some(code)) => Ok(Err(code)),
        _ => Err(format!("`expect` must hold `{ok_key}` or `error`")),
    }
}

fn compare<T: std::fmt::Debug + PartialEq>(got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("expected {want:?}, got {got:?}"))
    }
}

fn run_bucket(c: &Map<String, Value>) -> Result<(), String> {
    only(c, &["replica_id", "bucket"])?;
    let want = c.get("bucket").and_then(Value::as_u64).ok_or("`bucket` is not an integer")?;
    compare(u64::from(bucket(text(c, "replica_id")?)), want)
}

fn run_select(c: &Map<String, Value>) -> Result<(), String> {
    only(c, &["name", "record", "replica_id", "expect"])?;
    let got = Record::parse(text(c, "record")?).map(|r| desired(&r, text(c, "replica_id").unwrap_or("")).to_string());
    match expected(c, "desired")? {
        Ok(v) => compare(got.map_err(|e| e.to_string()), Ok(v.as_str().unwrap_or_default().to_string())),
        Err(code) => compare(got.map_err(|e| e.code().to_string()), Err(code.to_string())),
    }
}

fn run_trust(c: &Map<String, Value>) -> Result<(), String> {
    only(c, &["name", "pem", "expect"])?;
    let got = TrustedKeys::parse(text(c, "pem")?);
    match expected(c, "key_ids")? {
        Ok(ids) => {
            let want: Vec<&str> =
                ids.as_array().ok_or("`key_ids` is not an array")?.iter().filter_map(Value::as_str).collect();
            compare(got.as_ref().map(TrustedKeys::key_ids).map_err(ToString::to_string), Ok(want))
        }
        Err(code) => compare(got.map(|_| ()).map_err(|e| e.code().to_string()), Err(code.to_string())),
    }
}

fn run_verify(c: &Map<String, Value>) -> Result<(), String> {
    only(c, &["name", "trust", "key_id", "signature", "artifact_sha256", "expect"])?;
    let trusted = TrustedKeys::parse(text(c, "trust")?).map_err(|e| format!("the case's trust file: {e}"))?;
    let got = trusted.verify(text(c, "key_id")?, text(c, "signature")?, text(c, "artifact_sha256")?);
    // `expect` is "ok" or the refusal's code.
    match c.get("expect").and_then(Value::as_str) {
        Some("ok") => compare(got.map_err(|e| e.to_string()), Ok(())),
        Some(code) => compare(got.map_err(|e| e.code().to_string()), Err(code.to_string())),
        None => Err("`expect` is not a string".into()),
    }
}

#[test]
fn every_rollout_vector_gives_the_outcome_it_expects_and_none_is_skipped() {
    let doc: Value = serde_json::from_str(VECTORS).unwrap();
    let doc = doc.as_object().unwrap();
    only(doc, &["about", "signed_message_prefix", "bucket", "select", "trust", "verify"]).unwrap();
    assert_eq!(doc["signed_message_prefix"].as_str(), Some(SIGNED_MESSAGE_PREFIX));
    let mut failures = Vec::new();
    let mut total = 0;
    for (group, count) in COUNTS {
        let run: fn(&Map<String, Value>) -> Result<(), String> = match group {
            "bucket" => run_bucket,
            "select" => run_select,
            "trust" => run_trust,
            _ => run_verify,
        };
        let cases = doc[group].as_array().unwrap_or_else(|| panic!("`{group}` is not an array"));
        let mut ran = 0;
        for (i, case) in cases.iter().enumerate() {
            let case = case.as_object().unwrap_or_else(|| panic!("{group}[{i}] is not an object"));
            let name = case.get("name").and_then(Value::as_str).map_or_else(
                || format!("{group}[{i}] {}", case.get("replica_id").and_then(Value::as_str).unwrap_or("")),
                |n| format!("{group}: {n}"),
            );
            if let Err(why) = run(case) {
                failures.push(format!("{name}: {why}"));
            }
            ran += 1;
        }
        assert_eq!(ran, count, "the `{group}` group ran {ran} cases, expected {count}");
        total += ran;
    }
    assert!(failures.is_empty(), "{} of {total} cases failed:\n{}", failures.len(), failures.join("\n"));
    println!("rollout vectors: {total} passed");
}
