//! docs/destinations.md through the component: every case of
//! tests/vectors-destination (URLs read, addresses judged) answered by the
//! artifact as policy-core answers it natively.

use retry_policy_core::destination::{read_target, refusal_of};
use retry_policy_core::{FakeClock, InMemoryStore};
use retry_policy_host::PolicyEngine;
use serde_json::Value;

fn cases(file: &str) -> Vec<Value> {
    let path = format!("{}/../../tests/vectors-destination/{file}", env!("CARGO_MANIFEST_DIR"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

#[test]
fn every_url_case_is_read_by_the_component_as_natively_and_as_the_vector_says() {
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap();
    let cases = cases("urls.json");
    assert!(cases.len() >= 40);
    for c in &cases {
        let (name, url) = (c["name"].as_str().unwrap(), c["url"].as_str().unwrap());
        let got = inst.read_target(url).unwrap();
        let native = read_target(url);
        match c["expect"].as_str().unwrap() {
            "target" => {
                let t = got.unwrap_or_else(|e| panic!("{name}: {e}"));
                let want = &c["target"];
                assert_eq!(t.scheme, want["scheme"].as_str().unwrap(), "{name}");
                assert_eq!(t.host, want["host"].as_str().unwrap(), "{name}");
                assert_eq!(u64::from(t.port), want["port"].as_u64().unwrap(), "{name}");
                assert_eq!(t.path, want["path"].as_str().unwrap(), "{name}");
                assert_eq!(t.address.as_deref(), want["address"].as_str(), "{name}");
                assert_eq!(native.unwrap().host, t.host, "{name}");
            }
            _ => {
                let e = got.expect_err(name);
                let code = c["code"].as_str().unwrap();
                assert!(e.starts_with(&format!("{code}: ")), "{name}: {e}");
                assert_eq!(native.unwrap_err().code, code, "{name}");
            }
        }
    }
}

#[test]
fn every_address_case_is_judged_by_the_component_as_the_table_says() {
    let engine = PolicyEngine::load_default().unwrap();
    let mut inst = engine.instantiate(FakeClock::new(0), InMemoryStore::new()).unwrap();
    for c in &cases("destinations.json") {
        let (name, address) = (c["name"].as_str().unwrap(), c["address"].as_str().unwrap());
        let want = if c["expect"] == "refused" { c["reason"].as_str() } else { None };
        let got = inst.destination_refusal(address).unwrap().unwrap();
        assert_eq!(got.as_deref(), want, "{name}");
        assert_eq!(refusal_of(address).unwrap(), want, "{name}");
    }
    assert!(inst.destination_refusal("not an address").unwrap().unwrap_err().starts_with("invalid_address: "));
}
