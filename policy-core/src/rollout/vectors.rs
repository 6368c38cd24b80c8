//! `tests/vectors-rollout/rollout.json`'s cases (docs/rollout.md): the
//! canary rule (`bucket`), the record reader (`select`), the trust file
//! (`trust`) and the signature check (`verify`), one case at a time. The
//! component exports this as `vector-case` with the format `"rollout/<group>"`,
//! so every host runs the cases inside the artifact it loads. Wycheproof
//! style: an unknown field is a broken vector.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::{bucket, desired, Record, TrustedKeys};
use crate::journal::json_text::to_text;
use crate::json::Value;

/// The groups of the file, in its order.
pub const GROUPS: [&str; 4] = ["bucket", "select", "trust", "verify"];

fn only(case: &Value, known: &[&str]) -> Result<(), String> {
    let Value::Object(members) = case else { return Err("broken vector: a case must be an object".into()) };
    match members.iter().find(|(k, _)| !known.contains(&k.as_str())) {
        Some((k, _)) => Err(format!("broken vector: unknown field `{k}`")),
        None => Ok(()),
    }
}

fn text<'a>(case: &'a Value, key: &str) -> Result<&'a str, String> {
    case.get(key).and_then(Value::as_str).ok_or_else(|| format!("broken vector: `{key}` is not a string"))
}

/// `expect` as `Ok(value of ok_key)` or `Err(error code)`.
fn expected<'a>(case: &'a Value, ok_key: &str) -> Result<Result<&'a Value, &'a str>, String> {
    let e = case.get("expect").ok_or("broken vector: no `expect`")?;
    only(e, &[ok_key, "error"])?;
    match (e.get(ok_key), e.get("error").and_then(Value::as_str)) {
        (Some(v), None) => Ok(Ok(v)),
        (None, Some(code)) => Ok(Err(code)),
        _ => Err(format!("broken vector: `expect` must hold `{ok_key}` or `error`")),
    }
}

fn compare(got: Result<Value, String>, want: Result<&Value, &str>) -> Result<(), String> {
    let want = want.cloned().map_err(ToString::to_string);
    if got == want {
        return Ok(());
    }
    let show = |r: &Result<Value, String>| match r {
        Ok(v) => to_text(v),
        Err(code) => format!("error {code}"),
    };
    Err(format!("expected {} got {}", show(&want), show(&got)))
}

/// One case of `group`: `Ok` when its answer is `expect`, else why not.
pub fn check_case(group: &str, case: &Value) -> Result<(), String> {
    match group {
        "bucket" => {
            only(case, &["replica_id", "bucket"])?;
            let want = case.get("bucket").ok_or("broken vector: no `bucket`")?;
            compare(Ok(Value::Int(u64::from(bucket(text(case, "replica_id")?)))), Ok(want))
        }
        "select" => {
            only(case, &["name", "record", "replica_id", "expect"])?;
            let replica_id = text(case, "replica_id")?;
            let got = Record::parse(text(case, "record")?)
                .map(|r| Value::String(desired(&r, replica_id).to_string()))
                .map_err(|e| e.code().to_string());
            compare(got, expected(case, "desired")?)
        }
        "trust" => {
            only(case, &["name", "pem", "expect"])?;
            let got = TrustedKeys::parse(text(case, "pem")?)
                .map(|t| Value::Array(t.keys().iter().map(|(id, _)| Value::String(id.clone())).collect::<Vec<_>>()))
                .map_err(|e| e.code().to_string());
            compare(got, expected(case, "key_ids")?)
        }
        "verify" => {
            only(case, &["name", "trust", "key_id", "signature", "artifact_sha256", "expect"])?;
            let want = text(case, "expect")?;
            let trusted = TrustedKeys::parse(text(case, "trust")?).map_err(|e| format!("broken vector: trust: {e}"))?;
            let got = trusted.verify(text(case, "key_id")?, text(case, "signature")?, text(case, "artifact_sha256")?);
            let got = got.map_or_else(|e| e.code().to_string(), |()| "ok".to_string());
            if got == want {
                Ok(())
            } else {
                Err(format!("expected {want} got {got}"))
            }
        }
        other => Err(format!("broken vector: no rollout group {other:?} (bucket, select, trust, verify)")),
    }
}
