use super::*;

#[test]
fn a_failed_dns_lookup_is_a_connect_error_as_in_every_host() {
    let lookup = io::Error::other("failed to lookup address information: Name or service not known");
    let e = lookup_failed(ureq::Error::Io(lookup));
    assert!(matches!(e, ureq::Error::HostNotFound), "{e:?}");
    assert_eq!(crate::http_client::error_kind(&e), "connect_error");
    // A resolve timeout stays what it was (connect_error too, by its own rule).
    let t = lookup_failed(ureq::Error::Timeout(ureq::Timeout::Resolve));
    assert_eq!(crate::http_client::error_kind(&t), "connect_error");
}

fn why(s: &str) -> Option<&'static str> {
    retry_policy_core::destination::refusal(s.parse().expect("an address"))
}

/// Every case of tests/vectors-destination/destinations.json.
#[test]
fn every_destination_vector_is_judged_as_the_table_says() {
    let text = include_str!("../../../../tests/vectors-destination/destinations.json");
    let doc: serde_json::Value = serde_json::from_str(text).expect("vectors are JSON");
    let top = doc.as_object().expect("an object");
    for k in top.keys() {
        assert!(k == "table" || k == "cases", "unknown top-level field {k}");
    }
    let cases = doc["cases"].as_array().expect("cases");
    assert!(!cases.is_empty());
    for case in cases {
        let obj = case.as_object().expect("a case is an object");
        let name = obj.get("name").and_then(|v| v.as_str()).expect("a case has a name");
        for k in obj.keys() {
            assert!(["name", "address", "expect", "reason"].contains(&k.as_str()), "{name}: unknown field {k}");
        }
        let address = obj["address"].as_str().expect("address");
        let want = match obj["expect"].as_str() {
            Some("allowed") => None,
            Some("refused") => {
                Some(obj.get("reason").and_then(|v| v.as_str()).expect("a refused case names its reason"))
            }
            other => panic!("{name}: expect is {other:?}"),
        };
        assert_eq!(why(address), want, "case {name:?} ({address})");
    }
}

#[test]
fn a_refusal_is_recognised_after_travelling_as_an_io_error() {
    let e = io::Error::new(io::ErrorKind::PermissionDenied, Refused { why: "loopback" });
    assert!(is_refused(&e));
    assert!(!is_refused(&io::Error::from(io::ErrorKind::PermissionDenied)));
}
