//! Runs tests/vectors/format3-*.json (docs/health.md section 7)
//! against the `health` module. Unknown fields in a file, a case or an
//! input are refused; every failing case is printed by name.

use std::path::PathBuf;

use retry_policy_core::codec::{self as c2, Fields};
use retry_policy_core::health::{self, codec};
use retry_policy_core::json::{self, Value};
use retry_policy_core::PolicyError;

const SUITES: [&str; 5] = ["format3-documents", "format3-store", "format3-gate", "format3-settle", "format3-pacer"];

fn path(suite: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors").join(format!("{suite}.json"))
}

/// Equal as JSON: numbers by value (the parser reads `0.0` as the integer 0).
fn same(a: &Value, b: &Value) -> bool {
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

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
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

fn apply(f: &Fields) -> Result<Value, PolicyError> {
    let section = section(f, "section")?.expect("a store case has a section");
    let budget = f.nested("budget", c2::budget)?;
    let mut held = f.nested("held", codec::held)?;
    let Value::Array(calls) = f.req("calls")? else { panic!("calls is a list") };
    let mut replies = Vec::new();
    for call in calls {
        let c = Fields::new(call, &["now_ms", "request"])?;
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
        let h = h.expect("after_probe has a section");
        let v = view(f)?.expect("after_probe has the reply's view");
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
    let Value::Array(calls) = f.req("calls")? else { panic!("calls is a list") };
    let mut results = Vec::new();
    for now in calls {
        let (r, next) = health::pace(&pacer, &release, c2::as_u64(now)?);
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
        other => panic!("unknown op `{other}`"),
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
            let h = section(&f, "health")?.expect("pause_until has a section");
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

/// Runs one file; returns (cases run, names of the failing ones).
fn run_suite(suite: &str) -> (usize, Vec<String>) {
    let text = std::fs::read_to_string(path(suite)).unwrap_or_else(|e| panic!("{suite}: {e}"));
    let file = json::parse(&text).unwrap_or_else(|e| panic!("{suite}: {e}"));
    let header = Fields::new(&file, &["format", "suite", "spec", "regenerate", "cases"]).expect("header fields");
    assert_eq!(header.str("format").unwrap(), "webhook-retry-policy/health-vectors 1");
    assert_eq!(header.str("suite").unwrap(), suite);
    let Value::Array(cases) = header.req("cases").unwrap() else { panic!("{suite}: cases is a list") };
    let mut failed = Vec::new();
    for case in cases {
        let c = Fields::new(case, &["name", "op", "input", "expect"]).expect("case fields");
        let name = c.str("name").unwrap();
        let got = run(c.str("op").unwrap(), c.req("input").unwrap()).unwrap_or_else(|e| codec::error_to_value(&e));
        let want = c.req("expect").unwrap();
        if !same(&got, want) {
            eprintln!("FAIL {suite}: {name}\n  got:    {got:?}\n  expect: {want:?}");
            failed.push(format!("{suite}: {name}"));
        }
    }
    (cases.len(), failed)
}

#[test]
fn every_format3_vector_passes_and_each_file_has_cases() {
    let mut failed = Vec::new();
    for suite in SUITES {
        let (n, f) = run_suite(suite);
        eprintln!("{suite}: {n} cases, {} failed", f.len());
        assert!(n >= 5, "{suite} has only {n} cases");
        failed.extend(f);
    }
    assert!(failed.is_empty(), "failing vectors:\n{}", failed.join("\n"));
}

#[test]
fn the_runner_refuses_an_unknown_input_field() {
    let input = json::parse(r#"{"outcome": {"status": 200}, "extra": 1}"#).unwrap();
    assert_eq!(run("health_outcome", &input).unwrap_err().field, "extra");
}

#[test]
fn the_runner_tells_a_wrong_expectation_apart() {
    let got = json::parse(r#"{"a": 1, "b": [0.5, 0]}"#).unwrap();
    assert!(same(&got, &json::parse(r#"{"b": [0.5, 0.0], "a": 1.0}"#).unwrap()));
    assert!(!same(&got, &json::parse(r#"{"a": 1, "b": [0.5, 1]}"#).unwrap()));
    assert!(!same(&got, &json::parse(r#"{"a": 1}"#).unwrap()));
}
