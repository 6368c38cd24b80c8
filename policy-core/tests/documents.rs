use retry_policy_core::document::PolicyDocument;
use retry_policy_core::*;

const DOC: &str = r#"{
  "version": "2026-11-30",
  "classes": {
    "notification": { "window_ms": 900000, "backoff": { "base_ms": 2000, "factor": 2.0, "cap_ms": 300000 } },
    "ledger": { "window_ms": 86400000, "hard_cap": 16,
                "backoff": { "base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full" },
                "budget": { "ratio": 0.1, "window_ms": 60000, "min_sample": 50, "sliding": true } }
  }
}"#;

#[test]
fn admit_returns_the_schedule_the_event_is_admitted_under() {
    let doc = PolicyDocument::from_json(DOC).unwrap();
    let a = doc.admit("notification", 1_000).unwrap();
    assert_eq!((a.plan.max_attempts, a.first_attempted_at_ms, a.deadline_ms), (13, 1_000, 901_000));
    assert_eq!(a.policy_version, "2026-11-30");
    assert_eq!(a.policy_hash.len(), 16);
    assert_ne!(a.policy_hash, doc.admit("ledger", 1_000).unwrap().policy_hash);
}

#[test]
fn defaults_fill_hard_cap_jitter_and_budget() {
    let doc = PolicyDocument::from_json(DOC).unwrap();
    let p = doc.class("notification").unwrap();
    assert_eq!((p.hard_cap, p.backoff.jitter, p.budget), (16, Jitter::Full, Budget::default()));
}

#[test]
fn an_unknown_class_names_the_classes_that_exist() {
    let e = PolicyDocument::from_json(DOC).unwrap().admit("billing", 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::UnknownEventClass);
    assert!(e.message.contains("notification") && e.message.contains("ledger"), "{e}");
}

fn refused(doc: &str) -> PolicyError {
    PolicyDocument::from_json(doc).unwrap_err()
}

#[test]
fn a_bad_document_is_refused_with_the_field_named() {
    let e =
        refused(r#"{"classes":{"n":{"window_ms":900000,"backoff":{"base_ms":2000,"factor":0.5,"cap_ms":300000}}}}"#);
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidBackoff, "classes.n.backoff.factor"));
    let e = refused(r#"{"classes":{"n":{"window_ms":"15m","backoff":{"base_ms":2000,"factor":2,"cap_ms":300000}}}}"#);
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidDocument, "classes.n.window_ms"));
    let e =
        refused(r#"{"classes":{"n":{"window_ms":1,"max_attempts":7,"backoff":{"base_ms":1,"factor":2,"cap_ms":1}}}}"#);
    assert_eq!(e.field, "classes.n.max_attempts");
    let e = refused(r#"{"classes":{"n":{"window_ms":1,"backof":{}}}}"#);
    assert_eq!(e.field, "classes.n.backof");
}

#[test]
fn malformed_json_is_refused_with_its_position() {
    let e = refused("{\n  \"classes\": {,}\n}");
    assert_eq!(e.code, ErrorCode::InvalidDocument);
    assert!(e.message.contains("line 2"), "{e}");
    assert!(refused(r#"{"classes":{}, "classes":{}}"#).message.contains("duplicate"));
    assert!(refused(&"[".repeat(100)).message.contains("deeply"));
}

#[test]
fn document_numbers_parse_to_the_same_doubles_as_serde_json() {
    for text in [
        "0.1",
        "2.0",
        "1.5",
        "0.05",
        "1.1",
        "3.14159",
        "1e3",
        "0.333333333333333",
        "123456.789e-3",
        "0.12345678901234567",
        "1.00000000000000011102230246251565404236316680908203125",
        "1.0000000000000002220446049250313080847263336181640625001",
        "2.2250738585072011e-308",
        "1e-400",
        "18446744073709551616",
        "-0.0",
    ] {
        let ours = retry_policy_core::json::parse(text).unwrap().as_f64().unwrap();
        let theirs: f64 = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs, "{text}");
        assert!(ours == 0.0 || ours.to_bits() == theirs.to_bits(), "{text}");
    }
}

#[test]
fn minus_zero_is_the_integer_zero_on_every_path() {
    let doc = |hard_cap: &str| {
        format!(
            r#"{{"classes":{{"n":{{"window_ms":900000,"hard_cap":{hard_cap},"backoff":{{"base_ms":2000,"factor":2.0,"cap_ms":300000}}}}}}}}"#
        )
    };
    for zero in ["-0", "0", "-0.0", "0e5"] {
        assert_eq!(refused(&doc(zero)).code, ErrorCode::InvalidHardCap, "{zero}");
    }
    assert_eq!(PolicyDocument::from_json(&doc("16.0")).unwrap().classes[0].1.hard_cap, 16);
}

#[cfg(feature = "toml")]
#[test]
fn toml_and_json_read_the_same_numbers_and_refuse_the_same_documents() {
    let toml = |factor: &str, hard_cap: &str| {
        PolicyDocument::from_toml(&format!(
            "[classes.n]\nwindow_ms = 900000\nhard_cap = {hard_cap}\n[classes.n.backoff]\nbase_ms = 2000\nfactor = {factor}\ncap_ms = 300000\n"
        ))
    };
    let json = |factor: &str, hard_cap: &str| {
        PolicyDocument::from_json(&format!(
            r#"{{"classes":{{"n":{{"window_ms":900000,"hard_cap":{hard_cap},"backoff":{{"base_ms":2000,"factor":{factor},"cap_ms":300000}}}}}}}}"#
        ))
    };
    for (factor, hard_cap) in [("1.2345678901234567", "16"), ("2.0", "-0"), ("0.5", "16"), ("2.0", "101")] {
        let (t, j) = (toml(factor, hard_cap), json(factor, hard_cap));
        assert_eq!(t.as_ref().map_err(|e| e.code), j.as_ref().map_err(|e| e.code), "{factor} {hard_cap}");
        if let (Ok(t), Ok(j)) = (t, j) {
            assert_eq!(t.classes[0].1.backoff.factor.to_bits(), j.classes[0].1.backoff.factor.to_bits());
        }
    }
}

#[cfg(feature = "toml")]
#[test]
fn toml_documents_read_like_json_ones() {
    let doc = PolicyDocument::from_toml(
        "version = \"t\"\n[classes.notification]\nwindow_ms = 900000\n[classes.notification.backoff]\nbase_ms = 2000\nfactor = 2.0\ncap_ms = 300000\n",
    )
    .unwrap();
    assert_eq!(doc.admit("notification", 0).unwrap().plan.max_attempts, 13);
}

#[test]
fn a_document_nested_deeper_than_32_is_refused_alike_as_json_text_toml_and_a_value() {
    // Finding F5 (docs/reliability.md): 40 dotted keys in TOML used to be
    // refused at an unknown field, while the same JSON text was refused as
    // too deep with an empty field.
    let keys: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
    let toml_text = format!("{} = 3\n", keys.join("."));
    let json_text = format!("{}3{}", keys.iter().map(|k| format!("{{\"{k}\":")).collect::<String>(), "}".repeat(40));
    let t = PolicyDocument::from_toml(&toml_text).unwrap_err();
    let j = PolicyDocument::from_json(&json_text).unwrap_err();
    assert_eq!((t.code, t.field.as_str()), (ErrorCode::InvalidDocument, ""));
    assert_eq!((j.code, j.field.as_str()), (ErrorCode::InvalidDocument, ""));
    assert!(t.message.contains("nested too deeply"), "{t}");
    assert!(j.message.contains("nested too deeply"), "{j}");
}

#[test]
fn a_value_at_depth_32_is_not_refused_for_depth_and_one_at_33_is() {
    let mut v = json::Value::Int(1);
    for _ in 0..31 {
        v = json::Value::Array(vec![v]);
    }
    let doc = json::Value::Object(vec![("classes".into(), v)]);
    let e = PolicyDocument::from_value(&doc).unwrap_err();
    assert_eq!(e.field, "classes", "refused for its classes, not its depth: {e}");
    let deeper = json::Value::Object(vec![(
        "classes".into(),
        json::Value::Array(vec![match doc {
            json::Value::Object(mut m) => m.remove(0).1,
            _ => unreachable!(),
        }]),
    )]);
    let e = PolicyDocument::from_value(&deeper).unwrap_err();
    assert_eq!((e.field.as_str(), e.message.contains("nested too deeply")), ("", true), "{e}");
}
