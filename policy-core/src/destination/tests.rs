use alloc::string::String;

use super::*;
use crate::json::{parse, Value};

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or_else(|| panic!("{k} is a string"))
}

fn only(case: &Value, allowed: &[&str]) {
    let Value::Object(m) = case else { panic!("a case is an object") };
    for (k, _) in m {
        assert!(allowed.contains(&k.as_str()), "{}: unknown field {k}", s(case, "name"));
    }
}

#[test]
fn every_address_vector_is_judged_as_the_table_says() {
    let doc = parse(include_str!("../../../tests/vectors-destination/destinations.json")).expect("JSON");
    let Some(Value::Array(cases)) = doc.get("cases") else { panic!("cases") };
    assert!(cases.len() >= 50);
    for c in cases {
        only(c, &["name", "address", "expect", "reason"]);
        let want = match s(c, "expect") {
            "allowed" => None,
            "refused" => Some(s(c, "reason")),
            other => panic!("{}: expect {other}", s(c, "name")),
        };
        assert_eq!(refusal_of(s(c, "address")).expect("an address"), want, "case {:?}", s(c, "name"));
    }
}

#[test]
fn every_url_vector_is_read_as_docs_destinations_says() {
    let doc = parse(include_str!("../../../tests/vectors-destination/urls.json")).expect("JSON");
    let Some(Value::Array(cases)) = doc.get("cases") else { panic!("cases") };
    assert!(cases.len() >= 40);
    for c in cases {
        only(c, &["name", "url", "expect", "target", "code"]);
        let name = s(c, "name");
        let got = read_target(s(c, "url"));
        match s(c, "expect") {
            "target" => {
                let t = got.unwrap_or_else(|e| panic!("{name}: refused {e}"));
                let want = c.get("target").expect("target");
                only(want, &["scheme", "host", "port", "path", "address"]);
                assert_eq!(t.scheme, s(want, "scheme"), "{name}");
                assert_eq!(t.host, s(want, "host"), "{name}");
                assert_eq!(Some(t.port as u64), want.get("port").and_then(Value::as_u64), "{name}");
                assert_eq!(t.path, s(want, "path"), "{name}");
                assert_eq!(t.address.as_deref(), want.get("address").and_then(Value::as_str), "{name}");
            }
            "refused" => {
                let e = got.err().unwrap_or_else(|| panic!("{name}: read, not refused"));
                assert_eq!(e.code, s(c, "code"), "{name}: {e}");
            }
            other => panic!("{name}: expect {other}"),
        }
    }
}

#[test]
fn a_long_url_is_refused_before_it_is_read() {
    let long = String::from("https://example.com/") + &"a".repeat(9000);
    assert_eq!(read_target(&long).unwrap_err().code, "invalid_url");
}

#[test]
fn an_address_that_is_not_one_is_an_error_not_a_verdict() {
    assert_eq!(refusal_of("localhost").unwrap_err().code, "invalid_address");
    assert_eq!(refusal_of("127.1").unwrap_err().code, "invalid_address", "addresses are strict; URLs read shorthand");
}
