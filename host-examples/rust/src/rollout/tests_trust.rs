use super::*;

const KEY: &str =
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w=\n-----END PUBLIC KEY-----\n";

#[test]
fn the_same_key_twice_is_one_key() {
    let keys = TrustedKeys::parse(&format!("{KEY}# again\n{KEY}")).unwrap();
    assert_eq!(keys.key_ids(), ["34750f98bd59fcfc"]);
}

#[test]
fn a_trust_file_that_is_not_a_regular_file_or_too_large_is_refused_unread() {
    let dir = std::env::temp_dir().join(format!("rp-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a path we own; a fifo that nobody writes would block a plain open.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let big = dir.join("big.pem");
    std::fs::write(&big, format!("{KEY}{}", " ".repeat(MAX_TRUST_FILE_BYTES))).unwrap();
    for path in [dir.clone(), fifo, big, dir.join("missing.pem")] {
        let e = TrustedKeys::read_file(&path).unwrap_err();
        assert_eq!(e.code(), "rollout_trust_invalid", "{}: {e}", path.display());
    }
    let good = dir.join("good.pem");
    std::fs::write(&good, KEY).unwrap();
    assert_eq!(TrustedKeys::read_file(&good).unwrap().key_ids(), ["34750f98bd59fcfc"]);
    let _ = std::fs::remove_dir_all(&dir);
}
