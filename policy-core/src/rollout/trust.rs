//! The signature (docs/rollout.md, "The signature" and "Trust"): Ed25519
//! (RFC 8032, pure) from `ed25519-dalek` over
//! `webhook-retry-policy artifact v1\n<sha256 hex>`, the signature in
//! standard base64 with padding, keys named by the first 16 hex digits of
//! sha256 of the raw public key, read from PEM SubjectPublicKeyInfo blocks
//! (`openssl pkey -pubout`).
//!
//! The SubjectPublicKeyInfo of an Ed25519 key has exactly one DER encoding
//! (RFC 8410: the algorithm's parameters are absent), 12 fixed bytes then
//! the 32-byte key, so it is compared, not parsed: that keeps a DER parser
//! (the `pkcs8`/`der`/`spki` crates) out of the component for 44 bytes.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Verifier as _, VerifyingKey};
use sha2::{Digest, Sha256};

use super::record::hex;
use super::RolloutError;

/// The first line of the signed message, its `\n` included.
pub const SIGNED_MESSAGE_PREFIX: &str = "webhook-retry-policy artifact v1\n";
/// The largest trust file a host reads (1 MiB); larger ones are refused unread.
pub const MAX_TRUST_FILE_BYTES: usize = 1024 * 1024;
/// The length of a signature in base64 (64 bytes, padded).
pub const SIGNATURE_B64_LEN: usize = 88;
/// The DER of an Ed25519 SubjectPublicKeyInfo before its 32 key bytes (RFC 8410).
pub const SPKI_PREFIX: [u8; 12] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];

/// The message signed for an artifact whose sha256 is `artifact_sha256_hex`.
pub fn signed_message(artifact_sha256_hex: &str) -> Vec<u8> {
    format!("{SIGNED_MESSAGE_PREFIX}{artifact_sha256_hex}").into_bytes()
}

/// A public key's id: the first 16 lowercase hex digits of sha256 of its 32 raw bytes.
pub fn key_id(raw_key: &[u8; 32]) -> String {
    hex(&Sha256::digest(raw_key)[..8])
}

/// The PEM blocks of `text` as (label, DER); text outside blocks is ignored.
pub fn pem_blocks(text: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        let Some(label) = line.strip_prefix("-----BEGIN ").and_then(|l| l.strip_suffix("-----")) else { continue };
        let end = format!("-----END {label}-----");
        let mut body = String::new();
        loop {
            match lines.next() {
                None => return Err(format!("the `{label}` block has no END line")),
                Some(l) if l == end => break,
                Some(l) => body.push_str(l),
            }
        }
        let der = STANDARD.decode(&body).map_err(|e| format!("the `{label}` block is not base64: {e}"))?;
        blocks.push((label.to_string(), der));
    }
    Ok(blocks)
}

/// The public keys a replica trusts (its `--trust-key` file), by key id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustedKeys {
    keys: Vec<(String, [u8; 32])>,
}

impl TrustedKeys {
    /// Read a trust file's text: one or more `PUBLIC KEY` blocks, each an
    /// Ed25519 SubjectPublicKeyInfo; text between blocks is ignored. No
    /// block, a block of another kind (a private key, a certificate) or a
    /// key that is not Ed25519 is `rollout_trust_invalid`.
    pub fn parse(pem_text: &str) -> Result<TrustedKeys, RolloutError> {
        let bad = RolloutError::TrustInvalid;
        let mut keys: Vec<(String, [u8; 32])> = Vec::new();
        for (label, der) in pem_blocks(pem_text).map_err(bad)? {
            if label != "PUBLIC KEY" {
                return Err(bad(format!("a `{label}` block is not a PUBLIC KEY block")));
            }
            let raw: Option<[u8; 32]> = der.strip_prefix(&SPKI_PREFIX[..]).and_then(|k| k.try_into().ok());
            let raw = raw
                .filter(|k| VerifyingKey::from_bytes(k).is_ok())
                .ok_or_else(|| bad("a PUBLIC KEY block is not an Ed25519 public key (RFC 8410)".to_string()))?;
            let id = key_id(&raw);
            // The same key twice is one key.
            if !keys.iter().any(|(k, _)| *k == id) {
                keys.push((id, raw));
            }
        }
        if keys.is_empty() {
            return Err(bad("no -----BEGIN PUBLIC KEY----- block".to_string()));
        }
        Ok(TrustedKeys { keys })
    }

    /// Keys already checked (the follower's state): (key id, 64 hex digits of the raw key).
    pub(crate) fn from_raw(keys: Vec<(String, [u8; 32])>) -> TrustedKeys {
        TrustedKeys { keys }
    }

    /// The trusted keys: (key id, raw key), in file order.
    pub fn keys(&self) -> &[(String, [u8; 32])] {
        &self.keys
    }

    /// Check an artifact's signature: `key_id` must name a trusted key
    /// (`rollout_key_unknown`), `signature_b64` must be 88 characters of
    /// standard padded base64 of 64 bytes that verify with that key over
    /// [`signed_message`] (`rollout_signature_invalid`).
    pub fn verify(&self, key_id: &str, signature_b64: &str, artifact_sha256_hex: &str) -> Result<(), RolloutError> {
        let raw = self.keys.iter().find(|(id, _)| id == key_id).map(|(_, k)| k).ok_or_else(|| {
            let shown: String = key_id.chars().filter(|c| !c.is_control()).take(32).collect();
            RolloutError::KeyUnknown(format!("key_id {shown:?} is not the id of a trusted key"))
        })?;
        let bad = |why: &str| RolloutError::SignatureInvalid(why.to_string());
        if signature_b64.len() != SIGNATURE_B64_LEN {
            return Err(bad("the signature is not 88 characters of base64"));
        }
        let bytes = STANDARD.decode(signature_b64).map_err(|_| bad("the signature is not standard base64"))?;
        let bytes: [u8; 64] = bytes.try_into().map_err(|_| bad("the signature is not 64 bytes"))?;
        // Canonical: re-encoding gives the same text (no non-zero padding bits).
        if STANDARD.encode(bytes) != signature_b64 {
            return Err(bad("the signature is not canonical base64"));
        }
        let key = VerifyingKey::from_bytes(raw).map_err(|_| bad("the trusted key is not an Ed25519 point"))?;
        key.verify(&signed_message(artifact_sha256_hex), &Signature::from_bytes(&bytes))
            .map_err(|_| bad("the signature does not verify with the trusted key over the artifact's sha256"))
    }
}
