use super::*;
use retry_policy_core::OutcomeClass;

const TABLE: &str = include_str!("../../../../fleet/transport-kinds.json");

fn table() -> Vec<(String, String)> {
    let doc: serde_json::Value = serde_json::from_str(TABLE).expect("fleet/transport-kinds.json is JSON");
    doc["kinds"]
        .as_array()
        .expect("a kinds array")
        .iter()
        .map(|k| {
            let name = k["kind"].as_str().expect("a kind").to_string();
            (name, k["class"].as_str().expect("a class").to_string())
        })
        .collect()
}

#[test]
fn the_constants_are_exactly_the_kinds_and_classes_of_fleet_transport_kinds_json() {
    let mine: Vec<(String, String)> = ALL.iter().map(|(k, c)| (k.to_string(), c.as_str().to_string())).collect();
    assert_eq!(mine, table(), "src/transport_kind.rs and fleet/transport-kinds.json differ");
}

#[test]
fn the_policys_classify_error_gives_every_kind_the_tables_class() {
    let mut policy = crate::tests::engine()
        .instantiate(retry_policy_core::SystemClock, retry_policy_core::InMemoryStore::new())
        .expect("an instance of the artifact");
    for (kind, class) in table() {
        let got = policy.classify_error(&kind).expect("classify_error answers");
        let want = if class == "retryable" { OutcomeClass::Retryable } else { OutcomeClass::Terminal };
        assert_eq!(got, want, "classify_error({kind:?})");
    }
}
