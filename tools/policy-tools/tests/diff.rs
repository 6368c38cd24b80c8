//! `diff` on the native engine.

mod common;

use common::{root, run};
use policy_tools::commands::diff;

#[test]
fn raising_the_hard_cap_shows_the_new_attempts_and_that_the_window_now_limits() {
    let r = root();
    let (code, out) =
        run(diff, &[&format!("{r}/scenarios/design-note.toml"), &format!("{r}/host-examples/policy.toml")]);
    assert_eq!(code, 1);
    assert!(out.contains("notification: unchanged"), "{out}");
    assert!(out.contains("provisioning: changed"), "{out}");
    assert!(out.contains("max_attempts     16 -> 55") && out.contains("limited_by       hard_cap -> window"), "{out}");
    // The example's ledger fills its 24 h (hard_cap 60, cap 1 h); its budget,
    // written out, is the design note's default one: no budget line.
    assert!(out.contains("ledger: changed") && out.contains("max_attempts     16 -> 58"), "{out}");
    assert!(!out.contains("budget "), "explicit defaults are the defaults: {out}");
}

#[test]
fn a_budget_change_is_shown_with_old_and_new_settings() {
    let old = common::temp(
        "old.json",
        &common::one_class(r#"{"window_ms":900000,"backoff":{"base_ms":2000,"factor":2,"cap_ms":300000}}"#),
    );
    let new = common::temp(
        "new.json",
        &common::one_class(
            r#"{"window_ms":900000,"backoff":{"base_ms":2000,"factor":2,"cap_ms":300000},"budget":{"ratio":0.2,"sliding":false}}"#,
        ),
    );
    let (code, out) = run(diff, &[&old, &new]);
    assert_eq!(code, 1);
    assert!(
        out.contains("budget           0.1 over 1m00s min_sample 50 sliding -> 0.2 over 1m00s min_sample 50 fixed"),
        "{out}"
    );
}

#[test]
fn a_document_diffed_with_itself_changes_nothing() {
    let p = format!("{}/host-examples/policy.json", root());
    let (code, out) = run(diff, &[&p, &p, "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.as_array().unwrap().iter().all(|c| c["status"] == "unchanged"));
}
