//! Policy documents as JSON text: `json::parse` and `PolicyDocument::from_json`
//! never panic; an accepted document admits every class; and the text
//! parser reads every value exactly as serde_json (float_roundtrip) does —
//! the serde path the npm package and the CLI use — except where the
//! contract says otherwise (depth > 32 refused here; magnitudes beyond the
//! doubles are infinite here where serde_json refuses them).
#![no_main]
use libfuzzer_sys::fuzz_target;
use retry_policy_core::document::PolicyDocument;
use retry_policy_core::json::{self, Value};

/// Equal values, counting `NegInt(n)` and `Float(n as f64)` alike (a
/// negative integer below i64::MIN is a double on one path, and every
/// decoder reads both the same way).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::NegInt(n), Value::Float(f)) | (Value::Float(f), Value::NegInt(n)) => *n as f64 == *f,
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
        }
        _ => a == b,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let ours = json::parse(text);
    let theirs: Result<Value, _> = serde_json::from_str(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert!(same(a, b), "json.rs and serde_json read {text:?} differently: {a:?} vs {b:?}"),
        (Ok(_), Err(e)) => assert!(
            e.to_string().contains("out of range"),
            "json.rs accepts what serde_json refuses: {text:?}: {e}"
        ),
        (Err(e), Ok(_)) => assert!(
            e.message.contains("nested too deeply"),
            "json.rs refuses what serde_json accepts: {text:?}: {e}"
        ),
        (Err(_), Err(_)) => {}
    }
    match PolicyDocument::from_json(text) {
        Ok(doc) => {
            assert!(!doc.classes.is_empty());
            for (name, policy) in &doc.classes {
                policy.validate().expect("an accepted class validates");
                doc.admit(name, 1_700_000_000_000).expect("an accepted class admits");
            }
            // The same value through the serde path is the same document.
            if let Ok(v) = &theirs {
                assert_eq!(PolicyDocument::from_value(v).as_ref(), Ok(&doc));
            }
        }
        Err(e) => {
            assert!(!e.message.is_empty());
            if let (Ok(v), Ok(_)) = (&theirs, &ours) {
                let via_serde = PolicyDocument::from_value(v).expect_err("refused as text");
                assert_eq!((via_serde.code, &via_serde.field), (e.code, &e.field));
            }
        }
    }
});
