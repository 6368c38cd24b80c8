//! Signing vectors. Sources:
//! * Standard Webhooks: the reference Rust library's `test_sign` and its
//!   multi-signature cases, standard-webhooks/standard-webhooks
//!   `libraries/rust/src/lib.rs` (secret `whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD`,
//!   id `msg_27UH4WbU6Z5A5EzD8u03UvzRbpk`, timestamp 1649367553).
//! * HMAC-SHA256 itself: RFC 4231 test cases 1, 2 and 6.

use super::*;

const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
const MSG_ID: &str = "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk";
const TS: u64 = 1649367553;
const BODY: &[u8] = br#"{"email":"test@example.com","username":"test_user"}"#;
const EXPECTED: &str = "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=";

/// The HMAC of the concatenated `parts`, in hex.
fn hmac_hex(key: &[u8], parts: &[&[u8]]) -> String {
    hmac_sha256(key, parts).finalize().into_bytes().iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn hmac_sha256_matches_rfc_4231() {
    assert_eq!(
        hmac_hex(&[0x0b; 20], &[b"Hi There"]),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
    );
    assert_eq!(
        hmac_hex(b"Jefe", &[b"what do ya want ", b"for nothing?"]),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
    assert_eq!(
        hmac_hex(&[0xaa; 131], &[b"Test Using Larger Than Block-Size Key - Hash Key First"]),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
    );
}

#[test]
fn the_standard_webhooks_vector_signs_and_verifies() {
    let s = Secret::parse(SECRET).unwrap();
    assert_eq!(s.sign(MSG_ID, TS, BODY), EXPECTED);
    assert_eq!(verify(&[s], Some(MSG_ID), Some("1649367553"), Some(EXPECTED), BODY, TS + 10, 300), Ok(()));
}

#[test]
fn a_rotation_signs_with_every_secret_and_either_one_verifies() {
    let old = Secret::parse(SECRET).unwrap();
    let new = Secret::from_bytes(b"the new key".to_vec());
    let header = signature_header(&[new.clone(), old.clone()], MSG_ID, TS, BODY);
    assert_eq!(header.split(' ').count(), 2);
    assert!(header.ends_with(EXPECTED));
    for receiver in [old, new] {
        assert_eq!(verify(&[receiver], Some(MSG_ID), Some("1649367553"), Some(&header), BODY, TS, 300), Ok(()));
    }
}

#[test]
fn the_reference_librarys_multi_signature_header_verifies_only_with_the_right_one() {
    let s = Secret::parse(SECRET).unwrap();
    let others = "v1,tFtCZ5RDCPxzWQRWXWPgrCgE2frDBe9gjpbWQxnVfsQ= v1,Mm7xgUVICxZfQ3bgf0h0Dof65L/IFx+PnZvnDWPCX6Q=";
    let with = format!("{others} {EXPECTED} v1,9DfC1c3eeOrXB6w/5dIDydLNQaEyww5KalE5jLBZucE=");
    let v = |sig: &str| verify(std::slice::from_ref(&s), Some(MSG_ID), Some("1649367553"), Some(sig), BODY, TS, 300);
    assert_eq!(v(&with), Ok(()));
    assert_eq!(v(others), Err(VerifyError::NoMatchingSignature));
    assert_eq!(v("v1,R3PTzyfHASBKHH98a7yexTwaJ4yNIcGhFQc1yuN+BPU="), Err(VerifyError::NoMatchingSignature));
    assert_eq!(v(&EXPECTED.replace("v1,", "v2,")), Err(VerifyError::NoMatchingSignature));
    assert_eq!(v("v1,not base64!!"), Err(VerifyError::NoMatchingSignature));
}

#[test]
fn timestamps_outside_the_tolerance_and_missing_headers_are_refused() {
    let s = [Secret::parse(SECRET).unwrap()];
    let v = |ts: &str, now: u64| verify(&s, Some(MSG_ID), Some(ts), Some(EXPECTED), BODY, now, 300);
    assert_eq!(v("1649367553", TS + 301), Err(VerifyError::TooOld));
    assert_eq!(v("1649367553", TS - 301), Err(VerifyError::TooNew));
    assert_eq!(v("soon", TS), Err(VerifyError::BadTimestamp));
    assert_eq!(
        verify(&s, None, Some("1"), Some(EXPECTED), BODY, TS, 300),
        Err(VerifyError::MissingHeader("webhook-id"))
    );
    assert_eq!(verify(&s, Some(MSG_ID), Some("1649367553"), None, BODY, TS, 300).unwrap_err().to_string(), {
        "missing header webhook-signature"
    });
    // A tampered body fails.
    assert!(verify(&s, Some(MSG_ID), Some("1649367553"), Some(EXPECTED), b"{}", TS, 300).is_err());
}

#[test]
fn secrets_never_print_and_bad_ones_are_not_quoted() {
    let s = Secret::parse(SECRET).unwrap();
    assert!(!format!("{s:?}").contains("C2FV"));
    let e = Secret::parse("whsec_%%%secret-material%%%").unwrap_err();
    assert!(!e.contains("secret-material"), "{e}");
}

struct Rotating(Mutex<u32>);

impl SecretSource for Rotating {
    fn load(&self, _endpoint: &str) -> Result<Vec<Secret>, String> {
        let mut n = self.0.lock().unwrap();
        *n += 1;
        Ok(vec![Secret::from_bytes(format!("key-{n}").into_bytes())])
    }
}

#[test]
fn the_signer_caches_secrets_until_a_refresh_reloads_them() {
    let signer = Signer::new(Box::new(Rotating(Mutex::new(0))));
    let [id, ts, sig1] = signer.headers("ep", "evt-1", 1_700_000_000_123, b"{}").unwrap();
    assert_eq!((id.as_str(), ts.as_str()), ("evt-1", "1700000000"));
    let [_, _, again] = signer.headers("ep", "evt-1", 1_700_000_000_123, b"{}").unwrap();
    assert_eq!(sig1, again, "cached: the source is not read again");
    signer.refresh("ep").unwrap();
    let [_, _, sig2] = signer.headers("ep", "evt-1", 1_700_000_000_123, b"{}").unwrap();
    assert_ne!(sig1, sig2);
    let key2 = [Secret::from_bytes(b"key-2".to_vec())];
    assert_eq!(verify(&key2, Some("evt-1"), Some("1700000000"), Some(&sig2), b"{}", 1_700_000_000, 300), Ok(()));
}

#[test]
fn a_secrets_file_with_a_rotation_is_read_and_its_errors_quote_no_secret() {
    let dir = std::env::temp_dir().join(format!("rpd-secrets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("secrets.json");
    std::fs::write(&path, format!(r#"{{"ep": "{SECRET} whsec_bmV3", "bad": "whsec_!!topsecret!!"}}"#)).unwrap();
    let f = FileSecrets(path.clone());
    assert_eq!(f.load("ep").unwrap().len(), 2);
    let e = f.load("bad").unwrap_err();
    assert!(!e.contains("topsecret"), "{e}");
    assert!(f.load("nobody").unwrap_err().contains("no signing secret"));
    let _ = std::fs::remove_dir_all(dir);
}
