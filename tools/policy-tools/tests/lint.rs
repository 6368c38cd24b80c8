//! The lint rules, on the native engine.

mod common;

use common::{one_class, root, run, temp};
use policy_tools::commands::lint;

const B: &str = r#""backoff":{"base_ms":2000,"factor":2,"cap_ms":300000,"jitter":"none"}"#;

fn rules(out: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(out).unwrap();
    v["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap().to_string()).collect()
}

#[test]
fn an_unjittered_class_that_fits_its_window_is_clean() {
    let p = temp("clean.json", &one_class(&format!(r#"{{"window_ms":900000,{B}}}"#)));
    let (code, out) = run(lint, &[&p]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("0 errors, 0 warnings, 0 infos"), "{out}");
}

#[test]
fn the_hard_cap_finding_carries_the_numbers_and_the_way_out() {
    let p = format!("{}/scenarios/design-note.toml", root());
    let (code, out) = run(lint, &[&p, "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["field"], "classes.provisioning.hard_cap");
    assert_eq!(f["numbers"]["max_attempts"], 16);
    assert_eq!(f["numbers"]["expected_span_ms"], 1_305_000);
    assert_eq!(f["numbers"]["max_attempts_at_hard_cap_100"], 55);
}

#[test]
fn a_window_shorter_than_the_first_retry_gets_no_retry_at_all() {
    let p = temp("short.json", &one_class(&format!(r#"{{"window_ms":1000,{B}}}"#)));
    let (code, out) = run(lint, &[&p, "--format", "json"]);
    assert_eq!(code, 1);
    assert!(rules(&out).contains(&"first_retry_misses_window".to_string()), "{out}");
}

#[test]
fn a_cap_past_the_window_and_a_budget_window_past_the_class_are_warned() {
    let body = r#"{"window_ms":60000,"backoff":{"base_ms":1000,"factor":2,"cap_ms":120000,"jitter":"none"},"budget":{"window_ms":600000}}"#;
    let (code, out) = run(lint, &[&temp("cap.json", &one_class(body)), "--format", "json"]);
    assert_eq!(code, 0, "warnings only");
    let r = rules(&out);
    assert!(
        r.contains(&"cap_longer_than_window".into()) && r.contains(&"budget_window_longer_than_class".into()),
        "{out}"
    );
}

#[test]
fn fixed_windows_are_flagged_for_the_sawtooth() {
    let body = format!(r#"{{"window_ms":900000,{B},"budget":{{"sliding":false}}}}"#);
    let (_, out) = run(lint, &[&temp("fixed.json", &one_class(&body)), "--format", "json"]);
    assert_eq!(rules(&out), vec!["fixed_window_sawtooth"]);
}

#[test]
fn a_sample_floor_below_one_over_the_ratio_lets_no_retry_through_at_the_floor() {
    let body = format!(r#"{{"window_ms":900000,{B},"budget":{{"min_sample":3}}}}"#);
    let (_, out) = run(lint, &[&temp("floor.json", &one_class(&body)), "--format", "json"]);
    assert_eq!(rules(&out), vec!["min_sample_no_retry_at_floor"], "{out}");
}

#[test]
fn min_sample_is_judged_against_the_expected_rate_too_low_and_too_high() {
    let body = format!(r#"{{"window_ms":900000,{B},"budget":{{"min_sample":5}}}}"#);
    let p = temp("rate.json", &one_class(&body));
    // 0.1/s = 6 attempts a minute >= 5: 10% of 7 allows no retry.
    let (code, out) = run(lint, &[&p, "--rate", "ep_quiet=0.1/s"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("min_sample_too_low") && out.contains("endpoint ep_quiet at 0.1/s"), "{out}");
    // Default floor 50 at 0.01/s: even 13 attempts per event never reach it.
    let body = format!(r#"{{"window_ms":900000,{B}}}"#);
    let (code, out) = run(lint, &[&temp("rate2.json", &one_class(&body)), "--rate", "c=0.01"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("min_sample_too_high") && out.contains("never engages"), "{out}");
}

#[test]
fn every_bad_class_is_reported_and_the_good_ones_still_linted() {
    let doc = format!(
        r#"{{"classes":{{"a":{{"window_ms":900000,"retries":3,{B}}},"b":{{"window_ms":900000,"max_attempts":8,{B}}},"ok":{{"window_ms":900000,{B},"budget":{{"sliding":false}}}}}}}}"#
    );
    let (code, out) = run(lint, &[&temp("bad.json", &doc), "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fields: Vec<&str> = v["findings"].as_array().unwrap().iter().map(|f| f["field"].as_str().unwrap()).collect();
    assert_eq!(fields, vec!["classes.a.retries", "classes.b.max_attempts", "classes.ok.budget.sliding"], "{out}");
    assert_eq!(rules(&out)[0], "unknown_key");
}

#[test]
fn duplicate_classes_are_findings_in_json_and_toml_and_garbage_is_unreadable() {
    let dup = format!(r#"{{"classes":{{"a":{{"window_ms":900000,{B}}},"a":{{"window_ms":1}}}}}}"#);
    let (code, out) = run(lint, &[&temp("dup.json", &dup)]);
    assert_eq!(code, 1);
    assert!(out.contains("duplicate_key") && out.contains("duplicate key `a`"), "{out}");
    let (code, out) = run(lint, &[&temp("dup.toml", "[classes.a]\nwindow_ms = 1\n[classes.a]\nwindow_ms = 2\n")]);
    assert_eq!(code, 1);
    assert!(out.contains("classes.a") && out.contains("duplicate_key"), "{out}");
    let (code, out) = run(lint, &[&temp("junk.json", "{not json")]);
    assert_eq!(code, 2, "{out}");
}
