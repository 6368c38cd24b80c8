use super::*;

#[test]
fn urls_that_are_not_redis_urls_are_refused_without_echoing_them() {
    for bad in ["http://:pw@x", "localhost:6379", "redis://:pw@h:port", "redis://:pw@h:1/x", "rediss://:pw@h#insecure"]
    {
        let e = RedisPool::new(bad, false, Duration::from_millis(10), &TrustRoots::only(vec![])).err();
        let text = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("Redis URL") && !text.contains("pw"), "{bad}: {text}");
    }
}

#[test]
fn user_password_host_port_db_and_tls_come_from_the_url() {
    let (info, tls) = connection_info("rediss://fleet:s3cret@10.0.0.5:6380/2").unwrap();
    assert!(tls);
    assert_eq!(info.redis.username.as_deref(), Some("fleet"));
    assert_eq!(info.redis.password.as_deref(), Some("s3cret"));
    assert_eq!(info.redis.db, 2);
    assert_eq!(info.addr.to_string(), "10.0.0.5:6380");
    let (info, tls) = connection_info("redis://:pw@localhost").unwrap();
    assert!(!tls);
    assert_eq!((info.redis.username, info.redis.password.as_deref()), (None, Some("pw")));
    assert_eq!(info.addr.to_string(), "localhost:6379");
}

#[test]
fn the_roots_reach_the_crate_as_pem_it_parses_back() {
    use rustls::pki_types::pem::PemObject;
    let certs = vec![rustls::pki_types::CertificateDer::from([0x30u8, 0x03, 0x02, 0x01, 0x01].repeat(40))];
    let pem = TrustRoots::only(certs.clone()).pem();
    let back: Vec<_> = rustls::pki_types::CertificateDer::pem_slice_iter(&pem).collect::<Result<_, _>>().unwrap();
    assert_eq!(back, certs);
}
