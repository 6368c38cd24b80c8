use super::*;

fn one(name: &str, value: &str) -> Flags {
    Flags::from_parts(vec![(name.to_string(), value.to_string())], vec![])
}

#[test]
fn values_and_switches_are_read_back() {
    let f = Flags::from_parts(vec![("events".into(), "10".into())], vec!["quiet".into()]);
    assert_eq!(f.get::<u64>("events", "a number").unwrap(), Some(10));
    assert!(f.has("quiet"));
}

#[test]
fn bad_numbers_are_named() {
    let f = one("events", "ten");
    assert_eq!(f.get::<u64>("events", "a whole number").unwrap_err(), "--events must be a whole number, not `ten`");
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
