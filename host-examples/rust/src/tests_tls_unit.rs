use super::*;

fn temp(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("rpd-tls-{}-{name}", std::process::id()));
    std::fs::write(&p, text).expect("write a temp file");
    p
}

#[test]
fn a_missing_empty_or_non_pem_ca_file_is_an_error_naming_the_file() {
    let missing = std::env::temp_dir().join("rpd-tls-does-not-exist.pem");
    let e = TrustRoots::load(&TrustConfig { ca_file: Some(missing.clone()) }).unwrap_err();
    assert!(matches!(e, TrustError::Unreadable { .. }));
    assert!(e.to_string().contains(&missing.display().to_string()), "{e}");

    let empty = temp("empty.pem", "");
    let e = TrustRoots::load(&TrustConfig { ca_file: Some(empty.clone()) }).unwrap_err();
    assert!(matches!(e, TrustError::NoCertificate { .. }), "{e}");
    assert!(e.to_string().contains(&empty.display().to_string()), "{e}");

    let words = temp("words.pem", "just some words, no PEM here\n");
    let e = TrustRoots::load(&TrustConfig { ca_file: Some(words) }).unwrap_err();
    assert!(matches!(e, TrustError::NoCertificate { .. }), "{e}");

    let garbage = temp("garbage.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    let e = TrustRoots::load(&TrustConfig { ca_file: Some(garbage) }).unwrap_err();
    assert!(matches!(e, TrustError::NotPem { .. }), "{e}");
}

#[test]
fn no_ca_file_is_the_platform_store_alone() {
    let roots = TrustRoots::load(&TrustConfig::default()).expect("the platform store loads");
    assert_eq!(roots.extra(), 0);
    assert_eq!(roots.certificates().len(), platform_roots().len());
}
