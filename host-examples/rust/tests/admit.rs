//! `PolicyInstance::admit` runs on the compiled handle (admit-compiled)
//! and answers exactly as 0.2's `admit` of the whole document
//! (`admit_document`): the same admission for every class of documents
//! built from the vectors' policies, the same error for what it refuses.

use retry_policy_core::{FakeClock, InMemoryStore};
use retry_policy_host::{HostError, PolicyDocument, PolicyEngine, PolicyInstance};
use serde_json::{json, Value};

fn instance() -> PolicyInstance {
    PolicyEngine::load_default().unwrap().instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap()
}

fn vectors(file: &str) -> Vec<Value> {
    let path = format!("{}/../../tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["cases"].as_array().unwrap().clone()
}

/// Every policy the step vectors carry (valid or not), in file order.
fn vector_policies() -> Vec<Value> {
    let mut out = Vec::new();
    for file in ["step.json", "random-step.json", "decide.json", "random-decide.json"] {
        for case in vectors(file) {
            if let Some(p) = case["input"].get("policy") {
                if !out.contains(p) {
                    out.push(p.clone());
                }
            }
        }
    }
    out
}

/// The outcome of an admit, comparable (a trap is a test failure).
fn answer(r: Result<retry_policy_host::Admission, HostError>) -> Result<String, String> {
    match r {
        Ok(a) => Ok(format!("{a:?}")),
        Err(HostError::Policy(e)) => Err(format!("{:?} {} {}", e.code, e.field, e.message)),
        Err(e) => panic!("not a policy answer: {e}"),
    }
}

fn both(
    inst: &mut PolicyInstance,
    doc: &PolicyDocument,
    class: &str,
    now_ms: u64,
) -> (Result<String, String>, Result<String, String>) {
    (answer(inst.admit(doc, class, now_ms)), answer(inst.admit_document(doc, class, now_ms)))
}

#[test]
fn admit_answers_as_the_whole_document_admit_for_every_class_of_documents_from_the_vectors() {
    let mut inst = instance();
    let policies = vector_policies();
    assert!(policies.len() > 20, "the vectors carry policies");
    let (mut admitted, mut refused) = (0, 0);
    for (n, chunk) in policies.chunks(4).enumerate() {
        let classes: serde_json::Map<String, Value> =
            chunk.iter().enumerate().map(|(i, p)| (format!("c{i}"), p.clone())).collect();
        let text = json!({ "version": format!("v{n}"), "classes": classes }).to_string();
        let Ok(doc) = inst.load_document(&text) else { continue };
        for i in 0..chunk.len() {
            for now_ms in [0, 1_799_126_466_327, u64::MAX - 5] {
                let (new, old) = both(&mut inst, &doc, &format!("c{i}"), now_ms);
                assert_eq!(new, old, "document {n} class c{i} at {now_ms}");
                if new.is_ok() {
                    admitted += 1
                } else {
                    refused += 1
                }
            }
        }
    }
    assert!(admitted > 60, "{admitted} admitted, {refused} refused");
}

#[test]
fn an_unknown_class_an_invalid_class_or_a_duplicate_name_answer_as_before() {
    let mut inst = instance();
    let text = std::fs::read_to_string(format!("{}/../policy.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let doc = inst.load_document(&text).unwrap();

    let (new, old) = both(&mut inst, &doc, "billing", 7);
    assert!(new.as_ref().unwrap_err().starts_with("UnknownEventClass class"), "{new:?}");
    assert_eq!(new, old);

    // A hand-built document with one invalid class: 0.2 refuses every admit.
    let mut bad = doc.clone();
    bad.classes[2].policy.budget.ratio = 0.0;
    for class in ["notification", "ledger", "billing"] {
        let (new, old) = both(&mut inst, &bad, class, 7);
        assert!(new.is_err(), "{class}: {new:?}");
        assert_eq!(new, old, "{class}");
    }

    // Two classes of one name: the first is admitted.
    let mut twice = doc.clone();
    let mut second = twice.classes[2].clone();
    second.name = twice.classes[0].name.clone();
    twice.classes.push(second);
    let (new, old) = both(&mut inst, &twice, "notification", 7);
    assert!(new.is_ok());
    assert_eq!(new, old);
}

#[test]
fn admit_compiles_each_class_policy_once_per_instance() {
    let mut inst = instance();
    let text = std::fs::read_to_string(format!("{}/../policy.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let doc = inst.load_document(&text).unwrap();
    assert_eq!(inst.step_policies_compiled(), 0);
    for i in 0..300u64 {
        let class = ["notification", "provisioning", "ledger"][(i % 3) as usize];
        assert_eq!(inst.admit(&doc, class, i).unwrap().class, class);
    }
    assert_eq!(inst.step_policies_compiled(), 3, "one handle per class policy");
}
