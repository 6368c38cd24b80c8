//! Format 3 (`format3-*.json`, "webhook-retry-policy/health-vectors 1",
//! docs/health.md section 7): one case's actual answer. Inputs are decoded
//! and results encoded with `health::codec`; a decode refusal is an answer
//! `{error, field}`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use super::host::{DocClass, HealthHost};
use crate::codec::{self as c2, Fields};
use crate::health::{self, codec, Health};
use crate::json::Value;
use crate::PolicyError;

/// The format string of a format-3 vector file.
pub const FORMAT: &str = "webhook-retry-policy/health-vectors 1";

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// Equal as JSON: numbers by value, object members in any order (the reference's rule).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && same(v, v2)))
        }
        (Value::Int(_) | Value::NegInt(_) | Value::Float(_), Value::Int(_) | Value::NegInt(_) | Value::Float(_)) => {
            a.as_f64() == b.as_f64() && (a.as_u64() == b.as_u64())
        }
        _ => a == b,
    }
}

/// Whether `actual` answers `expect`: [`same`], except that an expected
/// error without a `field` pins only the code (docs/health.md section 7; as
/// the format-2 vectors do for an op's inputs).
pub fn answers(actual: &Value, expect: &Value) -> bool {
    if let (Value::Object(a), Value::Object(e)) = (actual, expect) {
        let has = |m: &Vec<(String, Value)>, k: &str| m.iter().any(|(n, _)| n == k);
        if has(e, "error") && !has(e, "field") {
            let code_only: Vec<(String, Value)> = a.iter().filter(|(k, _)| k != "field").cloned().collect();
            return same(&Value::Object(code_only), expect);
        }
    }
    same(actual, expect)
}

/// A decode refusal or the policy's: `{error, field}`; a host failure: `Err`.
type Out = Result<Value, Result<PolicyError, String>>;

fn section(f: &Fields, key: &str) -> Result<Option<Health>, PolicyError> {
    codec::section(f.req(key).unwrap_or(&Value::Null)).map_err(|e| e.within(key))
}

fn need<T>(v: Option<T>, what: &str) -> Result<T, Result<PolicyError, String>> {
    v.ok_or_else(|| Err(format!("broken vector: {what}")))
}

fn class_to_value(c: &DocClass) -> Value {
    let words = c.health.map_or(Value::Null, |_| {
        Value::Array(c.hash_words.iter().map(|w| Value::String(format!("{w:016x}"))).collect())
    });
    obj(vec![
        ("name", c.name.as_str().into()),
        ("health", c.health.as_ref().map_or(Value::Null, codec::section_to_value)),
        ("hash_words", words),
        ("policy_hash", c.policy_hash.as_str().into()),
    ])
}

fn view(f: &Fields) -> Result<Option<health::HealthView>, PolicyError> {
    f.opt("view").map(|v| codec::view(v).map_err(|e| e.within("view"))).transpose()
}

fn calls<'a>(f: &Fields<'a>) -> Result<&'a Vec<Value>, Result<PolicyError, String>> {
    match f.req("calls").map_err(Ok)? {
        Value::Array(items) => Ok(items),
        _ => Err(Err("broken vector: calls is not a list".into())),
    }
}

pub(crate) fn run_op(host: &mut dyn HealthHost, op: &str, input: &Value) -> Out {
    let keys: &[&str] = match op {
        "parse_document" => &["document"],
        "apply" => &["section", "budget", "held", "calls"],
        "gate" => &["policy", "health", "event", "view", "pacer", "now_ms"],
        "after_probe" => &["policy", "health", "event", "granted", "view", "pacer", "now_ms"],
        "settle" => &["policy", "health", "state", "outcome", "now_ms", "reply"],
        "health_outcome" => &["outcome"],
        "pause_until" => &["health", "outcome", "now_ms"],
        "pace" => &["release", "pacer", "calls"],
        "normal_per_s" => &["budget", "now_ms", "current", "previous"],
        other => return Err(Err(format!("unknown op `{other}`"))),
    };
    let f = Fields::new(input, keys).map_err(Ok)?;
    match op {
        "parse_document" => {
            let classes = host.health_document(f.req("document").map_err(Ok)?)?;
            Ok(obj(vec![("classes", Value::Array(classes.iter().map(class_to_value).collect()))]))
        }
        "apply" => {
            let s = need(section(&f, "section").map_err(Ok)?, "a store case has a section")?;
            let budget = f.nested("budget", c2::budget).map_err(Ok)?;
            let mut held = f.nested("held", codec::held).map_err(Ok)?;
            let mut replies = Vec::new();
            for call in calls(&f)? {
                let c = Fields::new(call, &["now_ms", "request"]).map_err(Ok)?;
                let request = c.nested("request", codec::request).map_err(Ok)?;
                let (reply, next) = host.health_apply(&request, &s, &budget, c.u64("now_ms").map_err(Ok)?, &held)?;
                replies.push(codec::reply_to_value(&reply));
                held = next;
            }
            Ok(obj(vec![("replies", Value::Array(replies)), ("held", codec::held_to_value(&held))]))
        }
        "gate" | "after_probe" => {
            let policy = f.nested("policy", c2::policy).map_err(Ok)?;
            let h = section(&f, "health").map_err(Ok)?;
            let event = f.nested("event", codec::gate_event).map_err(Ok)?;
            let pacer = f.nested("pacer", codec::pacer).map_err(Ok)?;
            let now_ms = f.u64("now_ms").map_err(Ok)?;
            let v = view(&f).map_err(Ok)?;
            let probe = if op == "after_probe" {
                need(h.as_ref(), "after_probe has a section")?;
                need(v.as_ref(), "after_probe has the reply's view")?;
                Some(f.bool("granted").map_err(Ok)?)
            } else {
                None
            };
            let (d, p) = host.health_gate(&policy, h.as_ref(), &event, probe, v.as_ref(), &pacer, now_ms)?;
            Ok(obj(vec![("decision", codec::gate_decision_to_value(&d)), ("pacer", codec::pacer_to_value(&p))]))
        }
        "settle" => {
            let s = host.health_settle(
                &f.nested("policy", c2::policy).map_err(Ok)?,
                section(&f, "health").map_err(Ok)?.as_ref(),
                &f.nested("state", c2::state).map_err(Ok)?,
                &f.nested("outcome", c2::outcome).map_err(Ok)?,
                f.u64("now_ms").map_err(Ok)?,
                &f.nested("reply", c2::store_reply).map_err(Ok)?,
            )?;
            Ok(codec::settlement_to_value(&s))
        }
        "health_outcome" => {
            let o = host.health_outcome(&f.nested("outcome", c2::outcome).map_err(Ok)?)?;
            Ok(obj(vec![("outcome", o.as_str().into())]))
        }
        "pause_until" => {
            let h = need(section(&f, "health").map_err(Ok)?, "pause_until has a section")?;
            let o = f.nested("outcome", c2::outcome).map_err(Ok)?;
            let until = host.pause_until(&h, &o, f.u64("now_ms").map_err(Ok)?)?;
            Ok(obj(vec![("pause_until_ms", until.into())]))
        }
        "pace" => {
            let release = f.nested("release", codec::release).map_err(Ok)?;
            let mut pacer = f.nested("pacer", codec::pacer).map_err(Ok)?;
            let mut results = Vec::new();
            for now in calls(&f)? {
                let (r, next) = host.pace(&release, &pacer, c2::as_u64(now).map_err(Ok)?)?;
                results.push(codec::pace_to_value(&r));
                pacer = next;
            }
            Ok(obj(vec![("results", Value::Array(results)), ("pacer", codec::pacer_to_value(&pacer))]))
        }
        _ => {
            let budget = f.nested("budget", c2::budget).map_err(Ok)?;
            let (n, c, p) =
                (f.u64("now_ms").map_err(Ok)?, f.u64("current").map_err(Ok)?, f.u64("previous").map_err(Ok)?);
            Ok(obj(vec![("normal_per_s", Value::Float(host.normal_per_s(&budget, n, c, p)?))]))
        }
    }
}

/// One case's actual result, in the `expect` shape (a refusal as `{error, field}`).
pub fn run_case(host: &mut dyn HealthHost, op: &str, input: &Value) -> Result<Value, String> {
    match run_op(host, op, input) {
        Ok(v) => Ok(v),
        Err(Ok(e)) => Ok(codec::error_to_value(&e)),
        Err(Err(msg)) => Err(msg),
    }
}
