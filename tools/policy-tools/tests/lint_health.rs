//! The `health` lint rules (format 3), each firing and not firing, on the native engine.

mod common;

use common::{run, temp};
use policy_tools::commands::lint;

const CLASS: &str = r#""window_ms":900000,"backoff":{"base_ms":2000,"factor":2,"cap_ms":300000,"jitter":"none"}"#;

/// `(rule, field)` of every finding of a one-class document whose class
/// carries `class_health` (a JSON member, or "") and whose top level `top`.
fn findings(name: &str, class_health: &str, top: &str, flags: &[&str]) -> (u8, Vec<(String, String)>) {
    let member = if class_health.is_empty() { String::new() } else { format!(",\"health\":{class_health}") };
    let top = if top.is_empty() { String::new() } else { format!(",\"health\":{top}") };
    let doc = format!(r#"{{"classes":{{"c":{{{CLASS}{member}}}}}{top}}}"#);
    let p = temp(name, &doc);
    let mut args = vec![p.as_str(), "--format", "json"];
    args.extend_from_slice(flags);
    let (code, out) = run(lint, &args);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = v["findings"].as_array().unwrap();
    (code, f.iter().map(|f| (f["rule"].as_str().unwrap().into(), f["field"].as_str().unwrap().into())).collect())
}

fn rules(f: &[(String, String)]) -> Vec<&str> {
    f.iter().map(|(r, _)| r.as_str()).collect()
}

#[test]
fn a_default_section_in_a_class_is_clean() {
    let (code, f) = findings("h-clean.json", "{}", "", &["--rate", "c=1/s"]);
    assert_eq!(code, 0);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn a_pause_cap_as_long_as_the_window_is_flagged_and_a_shorter_one_is_not() {
    let (_, f) = findings("h-pause.json", r#"{"pause":{"max_ms":900000}}"#, "", &[]);
    assert_eq!(f, vec![("health_pause_outlives_window".to_string(), "classes.c.health.pause.max_ms".to_string())]);
    let (_, f) = findings("h-pause-ok.json", r#"{"pause":{"max_ms":899999}}"#, "", &[]);
    assert!(f.is_empty(), "{f:?}");
    let (_, f) = findings("h-pause-off.json", r#"{"pause":{"max_ms":0}}"#, "", &[]);
    assert!(f.is_empty(), "pauses off: {f:?}");
}

#[test]
fn a_release_at_1x_cannot_drain_two_thirds_of_the_window_and_2x_can() {
    let (code, f) = findings("h-rel1.json", r#"{"release":{"multiple":1.0}}"#, "", &[]);
    assert_eq!(code, 0, "a warning");
    assert_eq!(rules(&f), vec!["health_release_cannot_drain"]);
    assert_eq!(f[0].1, "classes.c.health.release.multiple");
    let (_, f) = findings("h-rel2.json", r#"{"release":{"multiple":2.0}}"#, "", &[]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn at_a_quiet_rate_the_release_floor_drains_what_the_multiple_alone_would_not() {
    // 1x of 0.1/s is 0.1/s, but the floor releases 1/s: 10x.
    let (_, f) = findings("h-floor.json", r#"{"release":{"multiple":1.0}}"#, "", &["--rate", "c=0.1/s"]);
    assert!(!rules(&f).contains(&"health_release_cannot_drain"), "{f:?}");
    let (_, f) = findings("h-floor2.json", r#"{"release":{"multiple":1.0}}"#, "", &["--rate", "c=5/s"]);
    assert_eq!(rules(&f), vec!["health_release_cannot_drain"]);
}

#[test]
fn a_circuit_sample_above_the_budgets_is_flagged_and_equal_is_not() {
    let (_, f) = findings("h-cs.json", r#"{"circuit":{"min_sample":51}}"#, "", &[]);
    assert_eq!(rules(&f), vec!["health_circuit_sample_above_budget"]);
    assert_eq!(f[0].1, "classes.c.health.circuit.min_sample");
    let (_, f) = findings("h-cs-ok.json", r#"{"circuit":{"min_sample":50}}"#, "", &[]);
    assert!(f.is_empty(), "{f:?}");
    let (_, f) = findings("h-cs-null.json", r#"{"circuit":null}"#, "", &[]);
    assert!(f.is_empty(), "no circuit: {f:?}");
}

#[test]
fn a_cooldown_that_outlives_the_window_is_an_error_and_a_cap_that_does_a_warning() {
    let (code, f) = findings("h-cd.json", r#"{"circuit":{"cooldown_ms":900000,"cooldown_max_ms":900000}}"#, "", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        f,
        vec![("health_cooldown_outlives_window".to_string(), "classes.c.health.circuit.cooldown_ms".to_string())]
    );
    let (code, f) = findings("h-cdm.json", r#"{"circuit":{"cooldown_max_ms":900000}}"#, "", &[]);
    assert_eq!(code, 0);
    assert_eq!(
        f,
        vec![("health_cooldown_outlives_window".to_string(), "classes.c.health.circuit.cooldown_max_ms".to_string())]
    );
    let (_, f) = findings("h-cdm-ok.json", r#"{"circuit":{"cooldown_max_ms":899999}}"#, "", &[]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn budget_refusals_that_are_dropped_again_are_flagged() {
    let (_, f) = findings("h-drop.json", r#"{"hold_budget_refusals":false}"#, "", &[]);
    assert_eq!(rules(&f), vec!["health_drops_budget_refusals"]);
    let (_, f) = findings("h-hold.json", r#"{"hold_budget_refusals":true}"#, "", &[]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn a_class_opting_out_of_the_documents_section_is_noted_and_without_one_it_is_not() {
    let (_, f) = findings("h-out.json", "null", "{}", &[]);
    assert_eq!(f, vec![("health_class_opts_out".to_string(), "classes.c.health".to_string())]);
    let (_, f) = findings("h-out-none.json", "null", "", &[]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn a_document_wide_section_is_judged_per_class_at_its_own_path() {
    let (_, f) = findings("h-top.json", "", r#"{"pause":{"max_ms":900000},"hold_budget_refusals":false}"#, &[]);
    let want = [
        "health_pause_outlives_window health.pause.max_ms",
        "health_drops_budget_refusals health.hold_budget_refusals",
    ];
    let got: Vec<String> = f.iter().map(|(r, p)| format!("{r} {p}")).collect();
    assert_eq!(got, want);
    // A class's own section replaces it whole: nothing of the top level's is judged for it.
    let (_, f) = findings("h-top-own.json", "{}", r#"{"pause":{"max_ms":900000}}"#, &[]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn a_written_cache_ms_is_noted_as_changing_no_decision_and_the_default_is_not() {
    let (code, f) = findings("h-cache.json", r#"{"cache_ms":60000}"#, "", &[]);
    assert_eq!(code, 0);
    assert_eq!(f, vec![("health_cache_ms_has_no_effect".to_string(), "classes.c.health.cache_ms".to_string())]);
    let (_, f) = findings("h-cache-none.json", "{}", "", &[]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn a_bad_section_is_the_engines_refusal_at_its_path_in_a_class_and_at_the_top() {
    let (code, f) = findings("h-bad.json", r#"{"circuit":{"failure_ratio":2}}"#, "", &[]);
    assert_eq!(code, 1);
    assert_eq!(f, vec![("invalid_document".to_string(), "classes.c.health.circuit.failure_ratio".to_string())]);
    let (code, f) = findings("h-bad-top.json", "", r#"{"cache_ms":0}"#, &[]);
    assert_eq!(code, 1);
    assert_eq!(f[0], ("invalid_document".to_string(), "health.cache_ms".to_string()), "{f:?}");
    let (code, f) = findings("h-unknown.json", r#"{"caches_ms":1}"#, "", &[]);
    assert_eq!(code, 1);
    assert_eq!(f[0].0, "unknown_key", "{f:?}");
    assert!(f[0].1.starts_with("classes.c.health"), "{f:?}");
}

#[test]
fn a_floor_whose_hundredfold_cannot_release_a_fast_classs_outage_once_arrivals_stop_is_flagged() {
    // 200/s held through 10 minutes of a 15-minute window need 133/s to
    // leave in time; the backlog's need is capped at 100 x floor_per_s (1/s).
    let (_, f) = findings("h-fl.json", "{}", "", &["--rate", "c=200/s"]);
    let hit = ("health_floor_cannot_drain_backlog".to_string(), "classes.c.health.release.floor_per_s".to_string());
    assert!(f.contains(&hit), "{f:?}");
    let (_, f) = findings("h-fl2.json", r#"{"release":{"floor_per_s":2.0}}"#, "", &["--rate", "c=200/s"]);
    assert!(!rules(&f).contains(&"health_floor_cannot_drain_backlog"), "{f:?}");
    let (_, f) = findings("h-fl3.json", "{}", "", &[]);
    assert!(!rules(&f).contains(&"health_floor_cannot_drain_backlog"), "no rate, no backlog to judge: {f:?}");
}
