//! Format 3's expectations (docs/health.md section 7): the reference
//! runner's rules (policy-core/tests/health_vectors.rs), decoding and
//! encoding through `policy_core::health::codec` exactly as it does, so a
//! generated case expects what a hand-written one in tests/vectors/format3-*
//! would. The reference lives in a test file, hence this port; keep the two
//! in step.
//!
//! A refusal is `{error, field}`. An `invalid_input` is a generator bug
//! (a shape the runners would call a broken vector) unless it is one of the
//! value checks a host's call can hit ([`VALUE_CHECKS`]).

use retry_policy_core::codec::{self as c2, Fields};
use retry_policy_core::health::{self, codec};
use retry_policy_core::json::Value;
use retry_policy_core::{ErrorCode, PolicyError};

/// `invalid_input` fields a well-formed case can be refused with.
const VALUE_CHECKS: [&str; 4] = ["tokens", "normal_per_s", "multiple", "floor_per_s"];

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
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
            ("policy_hash", format!("{:016x}", health::policy_hash(policy, h.as_ref())).as_str().into()),
        ]));
    }
    Ok(obj(vec![("classes", Value::Array(classes))]))
}

fn section(f: &Fields, key: &str) -> Result<Option<health::Health>, PolicyError> {
    codec::section(f.req(key).unwrap_or(&Value::Null)).map_err(|e| e.within(key))
}

fn needs(h: Option<health::Health>, op: &str) -> Result<health::Health, PolicyError> {
    h.ok_or_else(|| PolicyError::new(ErrorCode::InvalidInput, "health", &format!("{op} needs a section")))
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

fn run(op: &str, input: &Value) -> Result<Value, PolicyError> {
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
        other => return Err(PolicyError::new(ErrorCode::InvalidInput, "op", &format!("unknown format-3 op `{other}`"))),
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
            let n = health::normal_per_s(&budget, f.u64("now_ms")?, f.u64("current")?, f.u64("previous")?);
            Ok(obj(vec![("normal_per_s", Value::Float(n))]))
        }
    }
}

/// The case's `expect`, or why the case is broken.
pub fn expect(op: &str, input: &Value) -> Result<Value, String> {
    match run(op, input) {
        Ok(v) => Ok(v),
        Err(e) if e.code == ErrorCode::InvalidInput && !VALUE_CHECKS.iter().any(|k| e.field.ends_with(k)) => {
            Err(format!("generator produced a broken vector: {e}"))
        }
        // A document's refusal pins its path (docs/health.md section 1); any
        // other op's pins only the code, as the format-2 vectors do: where a
        // refused input's path starts (`policy.`, `state.`, the decoder's or
        // the policy's) is each host's reading, not the contract.
        Err(e) if op == "parse_document" => Ok(codec::error_to_value(&e)),
        Err(e) => Ok(Value::Object(vec![("error".into(), e.code.as_str().into())])),
    }
}
