//! The `retry-policy` CLI, run as a user would.

use std::process::Command;

fn cli(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn the_notification_plan_has_13_attempts_the_last_expected_at_855_s() {
    let (ok, out, _) =
        cli(&["plan", "--window", "15m", "--base", "2s", "--factor", "2", "--cap", "5m", "--jitter", "full"]);
    assert!(ok);
    assert!(out.contains("13 attempts, expected span 855000 ms"), "{out}");
    let last = out.lines().find(|l| l.trim_start().starts_with("13 ")).unwrap();
    assert!(last.contains("855000") && last.contains("1710000"), "{last}");
    assert!(!out.contains("WARNING"));
}

#[test]
fn a_24_hour_window_cut_by_hard_cap_16_is_flagged_loudly() {
    let (ok, out, _) =
        cli(&["plan", "--window", "24h", "--base", "2s", "--factor", "2", "--cap", "5m", "--hard-cap", "16"]);
    assert!(ok);
    assert!(out.contains("limited by hard_cap") && out.contains("WARNING: hard_cap 16 ended this schedule"), "{out}");
}

#[test]
fn every_class_of_a_policy_document_is_planned_json_or_toml() {
    for doc in ["host-examples/policy.json", "host-examples/policy.toml"] {
        let (ok, out, err) = cli(&["plan", "--policy", doc]);
        assert!(ok, "{err}");
        for class in ["notification:", "provisioning:", "ledger:"] {
            assert!(out.contains(class), "{doc}: {out}");
        }
    }
}

#[test]
fn a_bad_document_gets_an_error_naming_the_field() {
    let dir = std::env::temp_dir().join(format!("retry-policy-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"classes":{"ledger":{"window_ms":86400000,"backoff":{"base_ms":2000,"factor":0.5,"cap_ms":300000}}}}"#,
    )
    .unwrap();
    let (ok, _, err) = cli(&["plan", "--policy", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(err.contains("invalid_backoff") && err.contains("classes.ledger.backoff.factor"), "{err}");
    let (ok, _, err) = cli(&["plan", "--window", "15x", "--base", "2s", "--factor", "2", "--cap", "5m"]);
    assert!(!ok && err.contains("unknown unit"), "{err}");
}
