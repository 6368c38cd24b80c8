use super::*;

const A: &str = "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb";
const B: &str = "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d";

#[test]
fn a_record_reads_back_to_its_own_canonical_text() {
    let r =
        Record { epoch: 7, stable: A.into(), canary: Some(Canary { sha256: B.into(), percent: 25 }), previous: vec![] };
    assert_eq!(Record::parse(&r.canonical()).unwrap(), r);
    assert_eq!(desired(&r, "rust-a"), A, "bucket 39 is not below 25");
}

#[test]
fn the_same_record_with_a_space_is_refused() {
    let text = format!(r#"{{"v":1, "epoch":1,"stable":"{A}","canary":null,"previous":[]}}"#);
    assert_eq!(Record::parse(&text).unwrap_err().code(), "rollout_record_invalid");
}
