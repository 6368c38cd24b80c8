//! The reference runner of format 3's vectors (docs/health.md section 7):
//! one case's `op` and `input` decoded, run through this module's pure
//! functions and encoded with [`codec`], in the shapes of
//! `tests/vectors/format3-*.json`. policy-core's own vector test and the
//! cross-host differential's expectation writer both call [`run_case`], so
//! the reference is written once.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::{self as health, codec};
use crate::codec::{self as c2, Fields};
use crate::json::Value;
use crate::text::cat;
use crate::{ErrorCode, PolicyError};

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (String::from(k), v)).collect())
}

fn list(v: &Value, what: &str) -> Result<Vec<Value>, PolicyError> {
    match v {
        Value::Array(items) => Ok(items.clone()),
        _ => Err(PolicyError::new(ErrorCode::InvalidInput, what, "expected a list")),
    }
}

fn parse_document(f: &Fields) -> Result<Value, PolicyError> {
    let doc = health::parse_document(f.req("document")?.clone())?;
    let mut classes = Vec::new();
    for (name, h) in &doc.health {
        let policy = doc.document.class(name)?;
        classes.push(obj(vec![
            ("name", name.as_str().into()),
            ("health", h.as_ref().map_or(Value::Null, codec::section_to_value)),
            ("hash_words", h.as_ref().map_or(Value::Null, codec::hash_words_to_value)),
            ("policy_hash", crate::compiled::policy_hash_hex(policy, h.as_ref()).as_str().into()),
        ]));
    }
    Ok(obj(vec![("classes", Value::Array(classes))]))
}

fn section(f: &Fields, key: &str) -> Result<Option<health::Health>, PolicyError> {
    codec::section(f.req(key).unwrap_or(&Value::Null)).map_err(|e| e.within(key))
}

fn needs(h: Option<health::Health>, op: &str) -> Result<health::Health, PolicyError> {
    h.ok_or_else(|| PolicyError::new(ErrorCode::InvalidInput, "health", cat(&[op, " needs a section"])))
}

fn apply(f: &Fields) -> Result<Value, PolicyError> {
    let section = needs(section(f, "section")?, "apply")?;
    let budget = f.nested("budget", c2::budget)?;
    let mut held = f.nested("held", codec::held)?;
    let mut replies = Vec::new();
    for call in list(f.req("calls")?, "calls")? {
        let c = Fields::new(&call, &["now_ms", "request"])?;
        let request = c.nested("request", codec::request)?;
        let (reply, next) = health::apply(&request, &section, &budget, c.u64("now_ms")?, &held);
        replies.push(codec::reply_to_value(&reply));
        held = next;
    }
    Ok(obj(vec![("replies", Value::Array(replies)), ("held", codec::held_to_value(&held))]))
}

fn view(f: &Fields) -> Result<Option<health::HealthView>, PolicyError> {
    f.opt("view").map(|v| codec::view(v).map_err(|e| e.within("view"))).transpose()
}

fn gate(f: &Fields, probe: bool) -> Result<Value, PolicyError> {
    let policy = f.nested("policy", c2::policy)?;
    let h = section(f, "health")?;
    let event = f.nested("event", codec::gate_event)?;
    let pacer = f.nested("pacer", codec::pacer)?;
    let now_ms = f.u64("now_ms")?;
    let (d, p) = if probe {
        let h = needs(h, "after_probe")?;
        let v = view(f)?.ok_or_else(|| PolicyError::new(ErrorCode::InvalidInput, "view", "after_probe needs one"))?;
        health::after_probe(&policy, &h, &event, f.bool("granted")?, &v, &pacer, now_ms)?
    } else {
        health::gate(&policy, h.as_ref(), &event, view(f)?.as_ref(), &pacer, now_ms)?
    };
    Ok(obj(vec![("decision", codec::gate_decision_to_value(&d)), ("pacer", codec::pacer_to_value(&p))]))
}

fn settle(f: &Fields) -> Result<Value, PolicyError> {
    let s = health::settle(
        &f.nested("policy", c2::policy)?,
        section(f, "health")?.as_ref(),
        &f.nested("state", c2::state)?,
        &f.nested("outcome", c2::outcome)?,
        f.u64("now_ms")?,
        &f.nested("reply", c2::store_reply)?,
    )?;
    Ok(codec::settlement_to_value(&s))
}

fn settle_wake(f: &Fields) -> Result<Value, PolicyError> {
    let d = health::settle_wake(
        &f.nested("policy", c2::policy)?,
        &f.nested("wake", codec::wake)?,
        &f.nested("reply", c2::store_reply)?,
        f.u64("now_ms")?,
    )?;
    Ok(codec::wake_decision_to_value(&d))
}

fn pace(f: &Fields) -> Result<Value, PolicyError> {
    let release = f.nested("release", codec::release)?;
    let mut pacer = f.nested("pacer", codec::pacer)?;
    let mut results = Vec::new();
    for now in list(f.req("calls")?, "calls")? {
        let (r, next) = health::pace(&pacer, &release, c2::as_u64(&now)?);
        results.push(codec::pace_to_value(&r));
        pacer = next;
    }
    Ok(obj(vec![("results", Value::Array(results)), ("pacer", codec::pacer_to_value(&pacer))]))
}

/// One case of a format-3 vector file (`op`, `input`): its answer in the
/// vectors' shapes, or the refusal (shape errors of the input included, as
/// `invalid_input`).
pub fn run_case(op: &str, input: &Value) -> Result<Value, PolicyError> {
    let keys: &[&str] = match op {
        "parse_document" => &["document"],
        "apply" => &["section", "budget", "held", "calls"],
        "gate" => &["policy", "health", "event", "view", "pacer", "now_ms"],
        "after_probe" => &["policy", "health", "event", "granted", "view", "pacer", "now_ms"],
        "settle" => &["policy", "health", "state", "outcome", "now_ms", "reply"],
        "settle_wake" => &["policy", "wake", "reply", "now_ms"],
        "health_outcome" => &["outcome"],
        "pause_until" => &["health", "outcome", "now_ms"],
        "pace" => &["release", "pacer", "calls"],
        "normal_per_s" => &["budget", "now_ms", "current", "previous"],
        other => {
            return Err(PolicyError::new(ErrorCode::InvalidInput, "op", cat(&["unknown format-3 op `", other, "`"])))
        }
    };
    let f = Fields::new(input, keys)?;
    match op {
        "parse_document" => parse_document(&f),
        "apply" => apply(&f),
        "gate" => gate(&f, false),
        "after_probe" => gate(&f, true),
        "settle" => settle(&f),
        "settle_wake" => settle_wake(&f),
        "health_outcome" => {
            let o = health::health_outcome(&f.nested("outcome", c2::outcome)?)?;
            Ok(obj(vec![("outcome", o.as_str().into())]))
        }
        "pause_until" => {
            let h = needs(section(&f, "health")?, "pause_until")?;
            let until = health::pause_until_ms(&h, &f.nested("outcome", c2::outcome)?, f.u64("now_ms")?);
            Ok(obj(vec![("pause_until_ms", until.into())]))
        }
        "pace" => pace(&f),
        _ => {
            let budget = f.nested("budget", c2::budget)?;
            // A budget is validated as a policy's (`invalid_budget`), as the
            // component's `normal-per-s` judges it (draft 4).
            budget.validate().map_err(|e| e.within("budget"))?;
            let n = health::normal_per_s(&budget, f.u64("now_ms")?, f.u64("current")?, f.u64("previous")?);
            Ok(obj(vec![("normal_per_s", Value::Float(n))]))
        }
    }
}
