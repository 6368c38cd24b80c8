use super::*;

const KEY: &str =
    "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w=\n-----END PUBLIC KEY-----\n";

#[test]
fn a_trust_file_that_is_not_a_regular_file_or_too_large_or_not_utf8_is_refused_unread() {
    let dir = std::env::temp_dir().join(format!("rp-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a path we own; a fifo that nobody writes would block a plain open.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let big = dir.join("big.pem");
    std::fs::write(&big, format!("{KEY}{}", " ".repeat(MAX_TRUST_FILE_BYTES))).unwrap();
    let latin1 = dir.join("latin1.pem");
    std::fs::write(&latin1, b"# caf\xe9\n").unwrap();
    for path in [dir.clone(), fifo, big, latin1, dir.join("missing.pem")] {
        let e = read_trust_file(&path).unwrap_err();
        assert_eq!(e.code(), "rollout_trust_invalid", "{}: {e}", path.display());
    }
    let good = dir.join("good.pem");
    std::fs::write(&good, KEY).unwrap();
    assert_eq!(read_trust_file(&good).unwrap(), KEY, "the text as read, for the component to parse");
    let _ = std::fs::remove_dir_all(&dir);
}
