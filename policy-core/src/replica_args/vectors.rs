//! The runner of `tests/vectors-cli/replica-args.json` (format
//! `webhook-retry-policy/replica-args 1`), once for every host that runs it
//! (policy-core natively, the Rust host through the artifact). A case is
//! `{name, request, expect | exact | error}`: `expect` the members the
//! answer must have (each equal; the others not checked), `exact` the whole
//! answer, `error` the exact error line. Unknown fields fail, by name.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::journal::json_text::to_text;
use crate::json::{self, Value};

/// The format this runner reads.
pub const FORMAT: &str = "webhook-retry-policy/replica-args 1";

/// Every failing case of the file `text` (named), judged by `judge` (the
/// request's JSON text to the answer's, or the error line).
pub fn failures(
    text: &str,
    judge: &mut dyn FnMut(&str) -> Result<String, String>,
) -> Result<(usize, Vec<String>), String> {
    let doc = json::parse(text).map_err(|e| format!("not JSON: {e}"))?;
    if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Err(format!("not a {FORMAT} file"));
    }
    let Some(Value::Array(cases)) = doc.get("cases") else { return Err("no `cases` array".into()) };
    Ok((cases.len(), cases.iter().filter_map(|c| check(c, judge)).collect()))
}

fn check(case: &Value, judge: &mut dyn FnMut(&str) -> Result<String, String>) -> Option<String> {
    let name = case.get("name").and_then(Value::as_str).unwrap_or("?");
    let Value::Object(members) = case else { return Some(format!("{name}: not an object")) };
    if let Some((k, _)) =
        members.iter().find(|(k, _)| !["name", "request", "expect", "exact", "error"].contains(&k.as_str()))
    {
        return Some(format!("{name}: unknown field {k}"));
    }
    let Some(request) = case.get("request") else { return Some(format!("{name}: no request")) };
    let got = judge(&to_text(request));
    let answer = got.as_ref().ok().and_then(|a| json::parse(a).ok());
    let pass = match (case.get("expect"), case.get("exact"), case.get("error")) {
        (None, None, Some(Value::String(want))) => got.as_ref().err() == Some(want),
        (None, Some(want), None) => answer.as_ref() == Some(want),
        (Some(Value::Object(want)), None, None) => {
            answer.is_some_and(|a| want.iter().all(|(k, v)| a.get(k) == Some(v)))
        }
        _ => return Some(format!("{name}: needs exactly one of expect (an object), exact, error (a string)")),
    };
    (!pass).then(|| format!("{name}: got {got:?}"))
}
