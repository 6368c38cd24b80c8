//! Policy documents as TOML: `from_toml` never panics, an accepted document
//! admits every class, and a TOML document means what the same values
//! written as JSON text mean (same document, or the same code and field).
#![no_main]
use libfuzzer_sys::fuzz_target;
use retry_policy_core::document::PolicyDocument;
use retry_policy_core::json::Value;

fn finite(v: &Value) -> bool {
    match v {
        Value::Float(f) => f.is_finite(),
        Value::Array(items) => items.iter().all(finite),
        Value::Object(m) => m.iter().all(|(_, v)| finite(v)),
        _ => true,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let doc = PolicyDocument::from_toml(text);
    if let Ok(doc) = &doc {
        for (name, policy) in &doc.classes {
            policy.validate().expect("an accepted class validates");
            doc.admit(name, 0).expect("an accepted class admits");
        }
    }
    let Ok(value) = toml::from_str::<Value>(text) else { return };
    if !finite(&value) {
        return; // JSON text has no NaN or infinity to write them with.
    }
    let json_text = serde_json::to_string(&value).expect("a finite value serialises");
    let via_json = PolicyDocument::from_json(&json_text);
    match (&doc, &via_json) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "TOML and JSON read {text:?} differently"),
        // Nesting deeper than 32 is refused alike on both paths, with an
        // empty field (finding F5 in docs/reliability.md, fixed;
        // regressions/document_toml/deep-dotted-keys).
        (Err(a), Err(b)) => assert_eq!(
            (a.code, &a.field),
            (b.code, &b.field),
            "TOML and JSON refuse {text:?} differently: {a} vs {b} (JSON {json_text})"
        ),
        _ => panic!("TOML {text:?} -> {doc:?}, as JSON {json_text} -> {via_json:?}"),
    }
});
