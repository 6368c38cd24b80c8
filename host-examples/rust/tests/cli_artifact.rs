//! `retry-policy bundle`, `inspect`, `--help` and `--version`, and the
//! artifact the CLI runs (`--component`, `RETRY_POLICY_ARTIFACT`), as a user runs them.

use std::path::PathBuf;
use std::process::Command;

fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_retry-policy"));
    cmd.args(args).current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    cmd.env_remove("RETRY_POLICY_ARTIFACT").env_remove("RETRY_POLICY_ARTIFACT_SHA256");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rp-cli-artifact-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn help_and_version_work_without_any_artifact() {
    let nowhere = [("RETRY_POLICY_ARTIFACT", "/nonexistent/retry_policy.wasm")];
    let (code, out, _) = run(&["--help"], &nowhere);
    assert_eq!(code, 0);
    assert!(
        out.contains("Usage: retry-policy <COMMAND>") && out.contains("bundle") && out.contains("inspect"),
        "{out}"
    );
    let (code, out, _) = run(&["plan", "--help"], &nowhere);
    assert_eq!((code, out.contains("Usage: retry-policy plan")), (0, true), "{out}");
    let (code, out, _) = run(&["--version"], &nowhere);
    assert_eq!(code, 0);
    assert!(out.starts_with("retry-policy ") && out.contains("webhook:retry-policy@1.0.0, abi 5"), "{out}");
    // A command that needs the artifact says why it could not have it: unreadable input, exit 2.
    let (code, _, err) = run(&["plan", "--window", "15m", "--base", "2s", "--factor", "2", "--cap", "5m"], &nowhere);
    assert_eq!(code, 2);
    assert!(err.contains("artifact_unreadable") && err.contains("/nonexistent/retry_policy.wasm"), "{err}");
}

#[test]
fn bundle_embeds_a_toml_document_as_json_and_inspect_shows_it_with_policy_hashes() {
    let dir = scratch("bundle");
    let out = dir.join("bundle.wasm");
    // The shipped example lints clean: bundled without --allow-lint-errors, and without a warning.
    let (code, stdout, err) =
        run(&["bundle", "--policy", "host-examples/policy.toml", "-o", out.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("sha256 ") && err.is_empty(), "{stdout}{err}");

    let (code, json, err) = run(&["inspect", out.to_str().unwrap(), "--format", "json"], &[]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["wit_package"], "webhook:retry-policy@1.0.0");
    assert_eq!(v["abi_version"], 5);
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(v["size_bytes"], bytes.len());
    assert!(v["build"]["source_digest"].as_str().unwrap().starts_with("sha256:"));
    let classes: Vec<&str> =
        v["document"]["classes"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(classes.len(), 3, "{json}");
    for c in ["notification", "provisioning", "ledger"] {
        assert!(classes.contains(&c), "{json}");
    }
    assert!(v["document"]["classes"][0]["policy_hash"].as_str().unwrap().len() >= 16, "{json}");
    assert_eq!(v["document"]["lint"]["errors"], 0);

    // The same hashes as `admit` of the TOML file on the shipped artifact.
    let (_, admit, _) =
        run(&["admit", "--policy", "host-examples/policy.toml", "--class", "ledger", "--now-ms", "0"], &[]);
    let ledger = v["document"]["classes"].as_array().unwrap().iter().find(|c| c["name"] == "ledger").unwrap();
    assert!(admit.contains(&format!("policy_hash={}", ledger["policy_hash"].as_str().unwrap())), "{admit}");

    // The bundle runs: `plan` and `admit` take its embedded document.
    let (code, plan, err) = run(&["plan", "--component", out.to_str().unwrap()], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(plan.contains("notification:") && plan.contains("ledger:"), "{plan}");
    let (code, _, err) =
        run(&["admit", "--class", "ledger", "--now-ms", "0"], &[("RETRY_POLICY_ARTIFACT", out.to_str().unwrap())]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bundle_refuses_a_document_with_lint_errors_unless_allowed_and_says_which() {
    let dir = scratch("lint-errors");
    let out = dir.join("design-note.wasm");
    // The design note's hard_cap 16 cuts its 2 h and 24 h schedules: two lint errors.
    let args = ["bundle", "--policy", "scenarios/design-note.toml", "-o", out.to_str().unwrap()];
    let (code, _, err) = run(&args, &[]);
    assert_eq!(code, 1, "a finding is exit 1: {err}");
    assert!(err.contains("hard_cap_cuts_schedule classes.ledger.hard_cap") && !out.exists(), "{err}");
    let (code, stdout, err) = run(&[&args[..], &["--allow-lint-errors", "yes"]].concat(), &[]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("sha256 ") && err.contains("bundled with 2 lint error(s)"), "{stdout}{err}");
    let (code, _, err) = run(&[&args[..], &["--allow-lint-errors", "maybe"]].concat(), &[]);
    assert_eq!(code, 2, "a malformed flag is a usage error: {err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn inspect_of_the_shipped_artifact_shows_its_provenance_and_no_document() {
    let (code, text, err) = run(&["inspect", "dist/retry_policy.wasm"], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("wit package  webhook:retry-policy@1.0.0 (abi 5)"), "{text}");
    assert!(text.contains("build        policy-core ") && text.contains("source sha256:"), "{text}");
    assert!(text.contains("document     (none embedded)"), "{text}");
}

#[test]
fn bundle_refuses_a_document_the_component_refuses_and_writes_nothing() {
    let dir = scratch("refuse");
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"version":"x","classes":{"a":{"window_ms":1000,"backoff":{"base_ms":0,"factor":2.0,"cap_ms":10}}}}"#,
    )
    .unwrap();
    let out = dir.join("never.wasm");
    let (code, _, err) = run(&["bundle", "--policy", bad.to_str().unwrap(), "-o", out.to_str().unwrap()], &[]);
    assert_eq!(code, 1);
    assert!(err.contains("invalid_backoff") && err.contains("base_ms"), "{err}");
    assert!(!out.exists());
    let (code, _, err) = run(&["inspect", bad.to_str().unwrap()], &[]);
    assert_eq!(code, 1, "a refused artifact is exit 1");
    assert!(err.contains("artifact_invalid"), "{err}");
    let (code, _, err) = run(&["inspect", dir.join("missing.wasm").to_str().unwrap()], &[]);
    assert_eq!(code, 2, "a file that cannot be read is exit 2");
    assert!(err.contains("artifact_unreadable"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_conformance_runner_runs_the_artifact_the_environment_names() {
    let out = Command::new(env!("CARGO_BIN_EXE_conformance"))
        .args(["--host", "wasmtime", "tests/vectors"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .env("RETRY_POLICY_ARTIFACT", "/nonexistent/mutant.wasm")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success());
    assert!(stderr.contains("artifact_unreadable") && stderr.contains("/nonexistent/mutant.wasm"), "{stderr}");
    assert!(stdout.contains("wasmtime: 0 passed, 1 failed"), "{stdout}");
}
