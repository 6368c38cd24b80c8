//! `retry-policy bundle` of a format-3 document (read by the component's
//! `load-health-document`, linted with the health rules) and `inspect`
//! showing which classes have `health`, as a user runs them.

use std::path::PathBuf;
use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_retry-policy"));
    cmd.args(args).current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    cmd.env_remove("RETRY_POLICY_ARTIFACT").env_remove("RETRY_POLICY_ARTIFACT_SHA256");
    let out = cmd.output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rp-cli-artifact-health-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One class `x` (15 min window) with the given `health` section JSON.
fn health_doc(health: &str) -> String {
    format!(
        r#"{{"version":"h","classes":{{"x":{{"window_ms":900000,
  "backoff":{{"base_ms":2000,"factor":2.0,"cap_ms":300000}},"health":{health}}}}}}}"#
    )
}

#[test]
fn bundle_takes_a_format_3_document_and_inspect_names_its_health_classes() {
    let dir = scratch("design-note");
    let out = dir.join("bundle.wasm");
    let out_s = out.to_str().unwrap();
    let policy = "scenarios/policies/design-note-health.toml";
    // Its 2 h and 24 h classes are cut by their hard cap: bundled when asked.
    let (code, _, err) = run(&["bundle", "--policy", policy, "-o", out_s, "--allow-lint-errors", "yes"]);
    assert_eq!(code, 0, "{err}");
    let (code, json, err) = run(&["inspect", out_s, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["document"]["version"], "design-note");
    assert_eq!(v["document"]["health_classes"], serde_json::json!(["notification", "provisioning", "ledger"]));
    let (code, text, err) = run(&["inspect", out_s]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("health       notification, provisioning, ledger\n"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn inspect_of_a_format_2_bundle_shows_no_health_classes() {
    let dir = scratch("format-2");
    let out = dir.join("bundle.wasm");
    let out_s = out.to_str().unwrap();
    let (code, _, err) =
        run(&["bundle", "--policy", "host-examples/policy.toml", "-o", out_s, "--allow-lint-errors", "yes"]);
    assert_eq!(code, 0, "{err}");
    let (_, json, _) = run(&["inspect", out_s, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["document"]["health_classes"], serde_json::json!([]), "{json}");
    let (_, text, _) = run(&["inspect", out_s]);
    assert!(text.contains("health       (none: format 2)\n"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bundle_refuses_an_invalid_health_section_naming_its_field_and_writes_nothing() {
    let dir = scratch("invalid");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, health_doc(r#"{"cache_ms":0}"#)).unwrap();
    let out = dir.join("never.wasm");
    let (code, _, err) = run(&["bundle", "--policy", bad.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("classes.x.health.cache_ms"), "{err}");
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bundle_lints_the_health_rules_and_refuses_a_health_lint_error_unless_allowed() {
    let dir = scratch("lint");
    let doc = dir.join("cooldown.json");
    // A cooldown as long as the window: `health_cooldown_outlives_window`, an error.
    let circuit = r#"{"circuit":{"failure_ratio":0.5,"min_sample":20,"cooldown_ms":900000,"cooldown_max_ms":900000,"probes":1,"probe_interval_ms":1000}}"#;
    std::fs::write(&doc, health_doc(circuit)).unwrap();
    let out = dir.join("bundle.wasm");
    let args = ["bundle", "--policy", doc.to_str().unwrap(), "-o", out.to_str().unwrap()];
    let (code, _, err) = run(&args);
    assert_eq!(code, 1);
    assert!(err.contains("health_cooldown_outlives_window classes.x.health.circuit.cooldown_ms"), "{err}");
    assert!(!out.exists());
    let (code, _, err) = run(&[&args[..], &["--allow-lint-errors", "yes"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("bundled with 1 lint error(s)"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
