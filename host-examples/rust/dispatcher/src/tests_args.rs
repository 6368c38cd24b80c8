use super::*;

fn one(name: &str, value: &str) -> Flags {
    Flags::from_parts(vec![(name.to_string(), value.to_string())], vec![])
}

#[test]
fn values_and_switches_are_read_back() {
    let f = Flags::from_parts(vec![("events".into(), "10".into())], vec!["quiet".into()]);
    assert_eq!(f.get::<u64>("events", "a number").unwrap(), Some(10));
    assert!(f.has("quiet"));
    assert_eq!(f.required("target").unwrap_err(), "--target is required");
}

#[test]
fn bad_numbers_are_named() {
    let f = one("events", "ten");
    assert_eq!(f.get::<u64>("events", "a whole number").unwrap_err(), "--events must be a whole number, not `ten`");
}

#[test]
fn positive_ms_refuses_zero_negatives_and_words() {
    let ms = |v: &str| one("every", v).positive_ms("every");
    assert_eq!(ms("50").unwrap(), Some(50));
    assert_eq!(ms("0").unwrap_err(), "--every must be at least 1, not `0`");
    for bad in ["-5", "soon", "1.5"] {
        let e = ms(bad).unwrap_err();
        assert!(e.starts_with("--every must be a whole number of milliseconds"), "{bad}: {e}");
    }
    assert_eq!(Flags::default().positive_ms("every").unwrap(), None);
}

#[test]
fn host_port_is_host_colon_port_with_loopback_for_an_empty_host() {
    let hp = |v: &str| one("addr", v).host_port("addr");
    assert_eq!(hp("127.0.0.1:0").unwrap().as_deref(), Some("127.0.0.1:0"));
    assert_eq!(hp(":9100").unwrap().as_deref(), Some("127.0.0.1:9100"));
    assert_eq!(hp("[::1]:65535").unwrap().as_deref(), Some("[::1]:65535"));
    assert_eq!(hp("localhost:8080").unwrap().as_deref(), Some("localhost:8080"));
    for bad in ["", "9100", "host:", "host:x", "host:+1", "host:-1", "host:65536", "::1:80", "[]:80", "[::1:80"] {
        let e = hp(bad).unwrap_err();
        assert!(e.starts_with("--addr must be HOST:PORT"), "{bad}: {e}");
    }
    assert_eq!(Flags::default().host_port("addr").unwrap(), None);
}
