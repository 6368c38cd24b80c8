//! `diff` on `health` sections (format 3), on the native engine.

mod common;

use common::{run, temp};
use policy_tools::commands::diff;

const CLASS: &str = r#""window_ms":900000,"backoff":{"base_ms":2000,"factor":2,"cap_ms":300000,"jitter":"none"}"#;

fn doc(name: &str, class_health: &str, top: &str) -> String {
    let member = if class_health.is_empty() { String::new() } else { format!(",\"health\":{class_health}") };
    let top = if top.is_empty() { String::new() } else { format!(",\"health\":{top}") };
    temp(name, &format!(r#"{{"classes":{{"c":{{{CLASS}{member}}}}}{top}}}"#))
}

fn json(old: &str, new: &str) -> (u8, serde_json::Value) {
    let (code, out) = run(diff, &[old, new, "--format", "json"]);
    (code, serde_json::from_str(&out).unwrap())
}

#[test]
fn an_omitted_field_and_its_default_written_out_are_no_change() {
    let a = doc("d-omit.json", "{}", "");
    let b = doc(
        "d-explicit.json",
        r#"{"cache_ms":1000,"release":{"multiple":3.0,"floor_per_s":1.0},"circuit":{"probes":1}}"#,
        "",
    );
    let (code, v) = json(&a, &b);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v[0]["status"], "unchanged");
    // The same section, document-wide instead of the class's own: no change either.
    let (code, v) = json(&a, &doc("d-top.json", "", "{}"));
    assert_eq!(code, 0, "{v}");
}

#[test]
fn each_changed_field_is_shown_with_what_it_does() {
    let a = doc("d-a.json", "{}", "");
    let b =
        doc("d-b.json", r#"{"release":{"multiple":1.5},"circuit":{"cooldown_ms":10000},"pause":{"max_ms":60000}}"#, "");
    let (code, v) = json(&a, &b);
    assert_eq!(code, 1);
    let changes = v[0]["changes"].as_array().unwrap();
    let fields: Vec<&str> = changes.iter().map(|c| c["field"].as_str().unwrap()).collect();
    assert_eq!(fields, ["health.pause.max_ms", "health.circuit.cooldown_ms", "health.release.multiple"]);
    let effect = |i: usize| changes[i]["effect"].as_str().unwrap();
    assert!(effect(0).contains("less held"), "{}", effect(0));
    assert!(effect(1).contains("more held, fewer probes"), "{}", effect(1));
    assert!(effect(2).contains("slower") && effect(2).contains("release rate"), "{}", effect(2));
    assert_eq!((changes[2]["old"].as_str(), changes[2]["new"].as_str()), (Some("3"), Some("1.5")));
}

#[test]
fn adding_a_section_lists_its_fields_and_says_events_are_held() {
    let (code, out) = run(diff, &[&doc("d-none.json", "", ""), &doc("d-some.json", "", "{}")]);
    assert_eq!(code, 1);
    assert!(out.contains("c: changed"), "{out}");
    // Fields are aligned on the longest (health.circuit.probe_interval_ms, 32).
    assert!(out.contains(&format!("  {:<32} none (format 2) -> section\n", "health")), "{out}");
    assert!(out.contains("=> events are held, not dropped"), "{out}");
    assert!(out.contains(&format!("  {:<32} - -> 1s\n", "health.cache_ms")), "{out}");
    let (_, out) = run(diff, &[&doc("d-some2.json", "", "{}"), &doc("d-optout.json", "null", "{}")]);
    assert!(
        out.contains(&format!("  {:<32} section -> none (format 2)", "health")) && out.contains("=> format 2"),
        "{out}"
    );
}

#[test]
fn dropping_the_circuit_is_one_change_that_says_no_probes() {
    let (_, v) = json(&doc("d-c.json", "{}", ""), &doc("d-nc.json", r#"{"circuit":null}"#, ""));
    let changes = v[0]["changes"].as_array().unwrap();
    assert_eq!(changes[0]["field"], "health.circuit");
    assert!(changes[0]["effect"].as_str().unwrap().contains("no probes"));
    assert!(changes
        .iter()
        .skip(1)
        .all(|c| c["field"].as_str().unwrap().starts_with("health.circuit.") && c["new"] == "-"));
}
