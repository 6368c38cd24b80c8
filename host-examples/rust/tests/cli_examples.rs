//! Every policy document the repository ships passes its own `lint`, run
//! as a user runs it (`retry-policy lint FILE --format json`). A shipped
//! document is any tracked `*.json` / `*.toml` outside test folders with a
//! top-level `classes` table, so a new example is linted without being
//! listed here. Three documents keep lint errors on purpose, each listed
//! with exactly the errors it must have (a new one, or one fixed, fails).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Documents whose lint errors are their point, with those errors (rule, field).
const DELIBERATE: &[(&str, &[(&str, &str)])] = &[
    // The design note's policy, which the simulations reproduce: hard_cap 16
    // ends the 2 h and 24 h schedules after 21 min 45 s (its header says so).
    (
        "scenarios/design-note.toml",
        &[
            ("hard_cap_cuts_schedule", "classes.provisioning.hard_cap"),
            ("hard_cap_cuts_schedule", "classes.ledger.hard_cap"),
        ],
    ),
    (
        "scenarios/policies/design-note-health.toml",
        &[
            ("hard_cap_cuts_schedule", "classes.provisioning.hard_cap"),
            ("hard_cap_cuts_schedule", "classes.ledger.hard_cap"),
        ],
    ),
    // The storm demo's classes, compressed 1000x: the broken endpoint's first
    // dead letters are `max_attempts_exhausted` of these cut schedules, then
    // the budget trips (the story the demo tells, in seconds).
    (
        "host-examples/rust/dispatcher/demo-policy.json",
        &[
            ("hard_cap_cuts_schedule", "classes.provisioning.hard_cap"),
            ("hard_cap_cuts_schedule", "classes.ledger.hard_cap"),
        ],
    ),
];

fn is_test_path(path: &str) -> bool {
    path.split('/').any(|part| matches!(part, "tests" | "test" | "fuzz" | "vectors" | "fixtures" | "node_modules"))
}

/// The tracked policy documents: JSON or TOML with a top-level `classes` table.
fn shipped_documents() -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "--", "*.json", "*.toml"])
        .current_dir(ROOT)
        .output()
        .expect("git runs (the tests run in a checkout)");
    assert!(out.status.success(), "git ls-files: {}", String::from_utf8_lossy(&out.stderr));
    let mut docs = Vec::new();
    for path in String::from_utf8(out.stdout).expect("paths are UTF-8").lines() {
        if is_test_path(path) {
            continue;
        }
        let text = std::fs::read_to_string(Path::new(ROOT).join(path)).expect("a tracked file reads");
        let has_classes = if path.ends_with(".toml") {
            text.parse::<toml::Table>().is_ok_and(|t| t.get("classes").is_some_and(toml::Value::is_table))
        } else {
            serde_json::from_str::<serde_json::Value>(&text)
                .is_ok_and(|v| v.get("classes").is_some_and(|c| c.is_object()))
        };
        if has_classes {
            docs.push(path.to_string());
        }
    }
    docs
}

fn lint_errors(path: &str) -> (i32, BTreeSet<(String, String)>) {
    let out = Command::new(env!("CARGO_BIN_EXE_retry-policy"))
        .args(["lint", path, "--format", "json"])
        .current_dir(ROOT)
        .env_remove("RETRY_POLICY_ARTIFACT")
        .env_remove("RETRY_POLICY_ARTIFACT_SHA256")
        .output()
        .expect("retry-policy runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{path}: lint printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    let errors = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| (f["rule"].as_str().unwrap_or("").to_string(), f["field"].as_str().unwrap_or("").to_string()))
        .collect();
    (out.status.code().unwrap_or(-1), errors)
}

#[test]
fn every_shipped_policy_document_passes_its_own_lint_but_the_deliberate_ones_listed() {
    let docs = shipped_documents();
    for expected in ["host-examples/policy.json", "host-examples/policy.toml", "scenarios/design-note.toml"] {
        assert!(docs.iter().any(|d| d == expected), "{expected} is not found among {docs:?}");
    }
    let mut failures = Vec::new();
    for doc in &docs {
        let want: BTreeSet<(String, String)> = DELIBERATE
            .iter()
            .find(|(path, _)| path == doc)
            .map(|(_, errors)| errors.iter().map(|(r, f)| (r.to_string(), f.to_string())).collect())
            .unwrap_or_default();
        let (code, got) = lint_errors(doc);
        let want_code = if want.is_empty() { 0 } else { 1 };
        if got != want || code != want_code {
            failures.push(format!("{doc}: exit {code} (want {want_code}), errors {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for (path, _) in DELIBERATE {
        assert!(docs.iter().any(|d| d == path), "{path} is listed as deliberate but not shipped");
    }
}
