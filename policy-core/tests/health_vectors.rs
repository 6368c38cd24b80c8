//! Runs tests/vectors/format3-*.json (docs/health.md section 7)
//! against the `health` module through its reference runner
//! (`health::vectors::run_case`, also the differential's expectation writer). Unknown fields in a file, a case or an
//! input are refused; every failing case is printed by name.

use std::path::PathBuf;

use retry_policy_core::codec::Fields;
use retry_policy_core::health::codec;
use retry_policy_core::health::vectors::run_case;
use retry_policy_core::json::{self, Value};
// The comparison every host's runner uses (docs/health.md section 7: an
// expected error without a `field` pins only the code).
use retry_policy_core::vectors::{answers, same};

const SUITES: [&str; 5] = ["format3-documents", "format3-store", "format3-gate", "format3-settle", "format3-pacer"];

fn path(suite: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors").join(format!("{suite}.json"))
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
        let got = run_case(c.str("op").unwrap(), c.req("input").unwrap()).unwrap_or_else(|e| codec::error_to_value(&e));
        let want = c.req("expect").unwrap();
        if !answers(&got, want) {
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
    assert_eq!(run_case("health_outcome", &input).unwrap_err().field, "extra");
}

#[test]
fn an_expected_error_without_a_field_pins_only_the_code() {
    let got = json::parse(r#"{"error": "invalid_budget", "field": "budget.window_ms"}"#).unwrap();
    assert!(answers(&got, &json::parse(r#"{"error": "invalid_budget"}"#).unwrap()));
    assert!(!answers(&got, &json::parse(r#"{"error": "invalid_input"}"#).unwrap()));
    assert!(!answers(&got, &json::parse(r#"{"error": "invalid_budget", "field": "window_ms"}"#).unwrap()));
}

#[test]
fn the_runner_tells_a_wrong_expectation_apart() {
    let got = json::parse(r#"{"a": 1, "b": [0.5, 0]}"#).unwrap();
    assert!(same(&got, &json::parse(r#"{"b": [0.5, 0.0], "a": 1.0}"#).unwrap()));
    assert!(!same(&got, &json::parse(r#"{"a": 1, "b": [0.5, 1]}"#).unwrap()));
    assert!(!same(&got, &json::parse(r#"{"a": 1}"#).unwrap()));
}
