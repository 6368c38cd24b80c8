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

fn code(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into())
}

#[test]
fn lint_flags_the_2_hour_and_24_hour_design_note_classes_in_text_and_json() {
    let (exit, out) = code(&["lint", "scenarios/design-note.toml"]);
    assert_eq!(exit, 1, "{out}");
    assert!(out.contains("classes.provisioning.hard_cap") && out.contains("classes.ledger.hard_cap"), "{out}");
    assert!(!out.contains("classes.notification.hard_cap"), "{out}");
    let (exit, out) = code(&["lint", "scenarios/design-note.toml", "--format", "json"]);
    assert_eq!(exit, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["errors"], 2);
    assert!(v["findings"].as_array().unwrap().iter().any(|f| f["rule"] == "hard_cap_cuts_schedule"
        && f["field"] == "classes.ledger.hard_cap"
        && f["numbers"]["expected_span_ms"] == 1_305_000));
}

#[test]
fn lint_exits_0_when_clean_1_on_errors_and_2_when_unreadable() {
    let dir = std::env::temp_dir().join(format!("retry-policy-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let clean = dir.join("clean.toml");
    std::fs::write(&clean, "[classes.n]\nwindow_ms = 900_000\nbackoff = { base_ms = 2_000, factor = 2.0, cap_ms = 300_000, jitter = \"none\" }\n").unwrap();
    assert_eq!(code(&["lint", clean.to_str().unwrap()]).0, 0);
    let unknown = dir.join("unknown.json");
    std::fs::write(
        &unknown,
        r#"{"classes":{"n":{"window_ms":900000,"tries":3,"backoff":{"base_ms":2000,"factor":2,"cap_ms":300000}}}}"#,
    )
    .unwrap();
    let (exit, out) = code(&["lint", unknown.to_str().unwrap(), "--format", "json"]);
    assert_eq!(exit, 1);
    assert!(out.contains("\"unknown_key\"") && out.contains("classes.n.tries"), "{out}");
    let junk = dir.join("junk.toml");
    std::fs::write(&junk, "[[[").unwrap();
    assert_eq!(code(&["lint", junk.to_str().unwrap()]).0, 2);
    assert_eq!(code(&["lint", "no/such/file.json"]).0, 2);
}

#[test]
fn lint_judges_min_sample_against_a_given_rate() {
    let (_, out) = code(&["lint", "host-examples/policy.toml", "--rate", "ep_quiet=0.5/s"]);
    assert!(out.contains("min_sample_too_high") && out.contains("endpoint ep_quiet at 0.5/s"), "{out}");
}

#[test]
fn simulate_is_reproducible_with_a_seed() {
    let args = [
        "simulate",
        "--policy",
        "scenarios/design-note.toml",
        "--scenario",
        "scenarios/patterns.toml",
        "--format",
        "json",
    ];
    let (a, b) = (code(&[&args[..], &["--seed", "7"]].concat()), code(&[&args[..], &["--seed", "7"]].concat()));
    assert_eq!(a.0, 0);
    assert_eq!(a.1, b.1);
    assert_ne!(a.1, code(&[&args[..], &["--seed", "8"]].concat()).1);
}

#[test]
fn the_flip_scenario_ends_with_a_flood_of_retry_budget_exhausted_after_a_few_max_attempts_exhausted() {
    let (exit, out) =
        code(&["simulate", "--policy", "scenarios/design-note.toml", "--scenario", "scenarios/flip.toml"]);
    assert_eq!(exit, 0, "{out}");
    let order = out.lines().find(|l| l.contains("ep_broken stop order:")).unwrap();
    let letters = order.rsplit(' ').next().unwrap();
    let before = letters.find('B').unwrap();
    assert!(letters[..before].contains('M') && before < 30, "{order}");
    assert!(letters[before..].chars().filter(|c| *c == 'B').count() > 45, "{order}");
}

#[test]
fn the_component_simulates_exactly_what_policy_core_does() {
    let (exit, out) = code(&[
        "simulate",
        "--policy",
        "scenarios/design-note.toml",
        "--scenario",
        "scenarios/patterns.toml",
        "--format",
        "json",
    ]);
    assert_eq!(exit, 0);
    let mut cli: serde_json::Value = serde_json::from_str(&out).unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut native = policy_tools::native::NativeEngine;
    let doc = policy_tools::source::load(&mut native, &format!("{root}/scenarios/design-note.toml")).unwrap();
    let sc = policy_tools::sim::Scenario::read(&format!("{root}/scenarios/patterns.toml")).unwrap();
    let sim = policy_tools::sim::simulate(&mut native, &doc.document, &sc, None).unwrap();
    let mut mine = policy_tools::sim::output::json(&sim, 60, true);
    for v in [&mut cli, &mut mine] {
        v["runs"][0]["engine_calls"] = 0.into();
    }
    assert_eq!(cli, mine);
}

#[test]
fn simulate_out_writes_the_series_and_the_three_charts() {
    let dir = std::env::temp_dir().join(format!("retry-policy-sim-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let (exit, out) = code(&[
        "simulate",
        "--policy",
        "scenarios/design-note.toml",
        "--scenario",
        "scenarios/sawtooth.toml",
        "--out",
        d,
    ]);
    assert_eq!(exit, 0, "{out}");
    for f in ["schedule.svg", "share.svg", "stops-fixed.svg", "stops-sliding.svg"] {
        let svg = std::fs::read_to_string(dir.join(f)).unwrap();
        assert!(svg.starts_with("<svg"), "{f}");
    }
    assert!(std::fs::read_to_string(dir.join("series-fixed.csv")).unwrap().starts_with("t_s,attempts"));
    assert!(out.contains("fixed") && out.contains("sliding") && out.contains("wrote "), "{out}");
}

#[test]
fn diff_shows_what_changes_for_events_admitted_after_the_change() {
    let (exit, out) = code(&["diff", "scenarios/design-note.toml", "host-examples/policy.toml"]);
    assert_eq!(exit, 1, "{out}");
    assert!(out.contains("provisioning: changed") && out.contains("max_attempts     16 -> 55"), "{out}");
    assert!(out.contains("limited_by       hard_cap -> window"), "{out}");
    let (exit, _) = code(&["diff", "host-examples/policy.json", "host-examples/policy.toml"]);
    assert_eq!(exit, 0, "the JSON and TOML examples are the same policy");
}

fn exit_and_stderr(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env_remove("RETRY_POLICY_ARTIFACT")
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn every_usage_error_and_unreadable_input_exits_2() {
    let plan =
        |extra: &[&'static str]| [&["plan", "--window", "15m", "--base", "2s", "--cap", "5m"][..], extra].concat();
    let cases: Vec<Vec<&str>> = vec![
        vec!["frob"],
        vec!["inspect"],
        vec!["lint"],
        vec!["plan", "--window", "15m", "--factor", "2", "--cap", "5m"],
        plan(&["--factor", "two"]),
        plan(&["--factor", "2", "--hard-cap", "-1"]),
        plan(&["--factor", "2", "--window", "-5m"]),
        plan(&["--factor", "2", "--policy", "host-examples/policy.json"]),
        vec!["plan", "--policy", "no/such/policy.json"],
        vec!["admit", "--policy", "host-examples/policy.json"],
        vec!["admit", "--policy", "host-examples/policy.json", "--class", "ledger", "--now-ms", "soon"],
        vec!["diff", "host-examples/policy.json", "no/such/policy.json"],
        vec!["inspect", "no/such/artifact.wasm"],
        vec!["inspect", "dist/retry_policy.wasm", "--format", "yaml"],
    ];
    for args in &cases {
        let (exit, err) = exit_and_stderr(args);
        assert_eq!(exit, 2, "{args:?}: {err}");
        assert!(!err.is_empty(), "{args:?}: no reason on stderr");
    }
}

#[test]
fn a_negative_number_is_a_value_that_reaches_the_component_and_its_typed_refusal_exits_1() {
    let (exit, err) = exit_and_stderr(&[
        "plan", "--window", "15m", "--base", "2s", "--factor", "-2", "--cap", "5m", "--jitter", "full",
    ]);
    assert_eq!(exit, 1, "{err}");
    assert!(err.contains("invalid_backoff") && err.contains("backoff.factor"), "{err}");
    let (exit, err) = exit_and_stderr(&["admit", "--policy", "host-examples/policy.json", "--class", "billing"]);
    assert_eq!(exit, 1, "{err}");
    assert!(err.contains("unknown_event_class"), "{err}");
}

#[test]
fn a_refused_document_exits_1_in_plan_admit_and_diff_alike() {
    let dir = std::env::temp_dir().join(format!("retry-policy-cli-refused-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"version":"x","classes":{"a":{"window_ms":1000,"backoff":{"base_ms":0,"factor":2.0,"cap_ms":10}}}}"#,
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    for args in [
        &["plan", "--policy", bad][..],
        &["admit", "--policy", bad, "--class", "a"],
        &["diff", "host-examples/policy.json", bad],
        &["simulate", "--policy", bad, "--scenario", "scenarios/flip.toml"],
    ] {
        let (exit, err) = exit_and_stderr(args);
        assert_eq!(exit, 1, "{args:?}: {err}");
        assert!(err.contains("invalid_backoff") && err.contains(bad), "{args:?}: {err}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn plan_and_admit_take_a_format_3_document_that_lint_takes() {
    let doc = "scenarios/policies/design-note-health.toml";
    let (ok, out, err) = cli(&["plan", "--policy", doc]);
    assert!(ok, "{err}");
    assert!(out.contains("notification:") && out.contains("ledger:"), "{out}");
    let (ok, with_health, err) = cli(&["admit", "--policy", doc, "--class", "ledger", "--now-ms", "0"]);
    assert!(ok, "{err}");
    assert!(with_health.contains("policy_version=design-note"), "{with_health}");
    // The same class without its section: another policy_hash (the compiled admission covers the section).
    let (ok, without, err) =
        cli(&["admit", "--policy", "scenarios/design-note.toml", "--class", "ledger", "--now-ms", "0"]);
    assert!(ok, "{err}");
    let hash = |s: &str| s.split("policy_hash=").nth(1).and_then(|h| h.split_whitespace().next()).map(str::to_string);
    assert!(hash(&with_health).is_some() && hash(&with_health) != hash(&without), "{with_health}\n{without}");
}

#[test]
fn the_help_states_the_exit_code_rule() {
    let (ok, out, _) = cli(&["--help"]);
    assert!(ok);
    assert!(
        out.contains("Exit status: 0 done")
            && out.contains("1 a finding or a refusal")
            && out.contains("2 a usage error"),
        "{out}"
    );
}
