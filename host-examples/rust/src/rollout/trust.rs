//! The signature (docs/rollout.md, "The signature" and "Trust"): Ed25519
//! (RFC 8032, pure) from `ed25519-dalek` over
//! `webhook-retry-policy artifact v1\n<sha256 hex>`, the signature in
//! standard base64 with padding, keys named by the first 16 hex digits of
//! sha256 of the raw public key. Keys are read from PEM: SubjectPublicKeyInfo
//! blocks (`openssl pkey -pubout`) for replicas, a PKCS#8 block (`openssl
//! genpkey -algorithm ed25519`) for the publisher.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey};
use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier as _, VerifyingKey};
use sha2::{Digest, Sha256};

use super::RolloutError;

/// The first line of the signed message, its `\n` included.
pub const SIGNED_MESSAGE_PREFIX: &str = "webhook-retry-policy artifact v1\n";
/// The largest trust file read (1 MiB).
pub const MAX_TRUST_FILE_BYTES: usize = 1024 * 1024;
/// The length of a signature in base64 (64 bytes, padded).
pub const SIGNATURE_B64_LEN: usize = 88;

/// The message signed for an artifact whose sha256 is `artifact_sha256_hex`.
pub fn signed_message(artifact_sha256_hex: &str) -> Vec<u8> {
    format!("{SIGNED_MESSAGE_PREFIX}{artifact_sha256_hex}").into_bytes()
}

/// A public key's id: the first 16 lowercase hex digits of sha256 of its 32 raw bytes.
pub fn key_id(key: &VerifyingKey) -> String {
    let digest = Sha256::digest(key.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The PEM blocks of `text` as (label, DER); text outside blocks is ignored.
fn pem_blocks(text: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
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
#[derive(Clone, Debug)]
pub struct TrustedKeys {
    keys: Vec<(String, VerifyingKey)>,
}

impl TrustedKeys {
    /// Read a trust file's text: one or more `PUBLIC KEY` blocks, each an
    /// Ed25519 SubjectPublicKeyInfo; text between blocks is ignored. No
    /// block, a block of another kind (a private key, a certificate) or a
    /// key that is not Ed25519 is `rollout_trust_invalid`.
    pub fn parse(pem_text: &str) -> Result<TrustedKeys, RolloutError> {
        let bad = RolloutError::TrustInvalid;
        let mut keys = Vec::new();
        for (label, der) in pem_blocks(pem_text).map_err(bad)? {
            if label != "PUBLIC KEY" {
                return Err(bad(format!("a `{label}` block is not a PUBLIC KEY block")));
            }
            let key = VerifyingKey::from_public_key_der(&der)
                .map_err(|e| bad(format!("a PUBLIC KEY block is not an Ed25519 public key: {e}")))?;
            let id = key_id(&key);
            // The same key twice is one key.
            if !keys.iter().any(|(k, _)| *k == id) {
                keys.push((id, key));
            }
        }
        if keys.is_empty() {
            return Err(bad("no -----BEGIN PUBLIC KEY----- block".into()));
        }
        Ok(TrustedKeys { keys })
    }

    /// Read a trust file (`--trust-key`): a regular file of at most
    /// [`MAX_TRUST_FILE_BYTES`], opened without blocking (a fifo, a device or
    /// a directory is refused unread), then [`TrustedKeys::parse`]. Every
    /// refusal is `rollout_trust_invalid`.
    pub fn read_file(path: &std::path::Path) -> Result<TrustedKeys, RolloutError> {
        use crate::artifact::read::{read_regular, Unread};
        let bytes = read_regular(path, MAX_TRUST_FILE_BYTES).map_err(|e| {
            RolloutError::TrustInvalid(match e {
                Unread::Unreadable(why) => format!("cannot read it: {why}"),
                Unread::TooLarge(_) => format!("more than {MAX_TRUST_FILE_BYTES} bytes"),
            })
        })?;
        let text = String::from_utf8(bytes).map_err(|_| RolloutError::TrustInvalid("not UTF-8 text".into()))?;
        Self::parse(&text)
    }

    /// The trusted keys' ids, in file order.
    pub fn key_ids(&self) -> Vec<&str> {
        self.keys.iter().map(|(id, _)| id.as_str()).collect()
    }

    /// Check an artifact's signature: `key_id` must name a trusted key
    /// (`rollout_key_unknown`), `signature_b64` must be 88 characters of
    /// standard padded base64 of 64 bytes that verify with that key over
    /// [`signed_message`] (`rollout_signature_invalid`).
    pub fn verify(&self, key_id: &str, signature_b64: &str, artifact_sha256_hex: &str) -> Result<(), RolloutError> {
        let key = self.keys.iter().find(|(id, _)| id == key_id).map(|(_, k)| k).ok_or_else(|| {
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
        key.verify(&signed_message(artifact_sha256_hex), &Signature::from_bytes(&bytes))
            .map_err(|_| bad("the signature does not verify with the trusted key over the artifact's sha256"))
    }
}

/// The publisher's key: a PKCS#8 PEM Ed25519 private key.
pub struct PrivateKey(SigningKey);

impl PrivateKey {
    /// Read a `PRIVATE KEY` block (`openssl genpkey -algorithm ed25519`);
    /// anything else is `rollout_key_invalid`.
    pub fn parse(pem_text: &str) -> Result<PrivateKey, RolloutError> {
        let bad = RolloutError::KeyInvalid;
        let blocks = pem_blocks(pem_text).map_err(bad)?;
        let der = match blocks.as_slice() {
            [(label, der)] if label == "PRIVATE KEY" => der,
            _ => return Err(bad("expected one -----BEGIN PRIVATE KEY----- block (PKCS#8 Ed25519)".into())),
        };
        SigningKey::from_pkcs8_der(der)
            .map(PrivateKey)
            .map_err(|e| bad(format!("the PRIVATE KEY block is not a PKCS#8 Ed25519 key: {e}")))
    }

    /// Its public key's id.
    pub fn key_id(&self) -> String {
        key_id(&self.0.verifying_key())
    }

    /// Its public key as a trust file holds it (SubjectPublicKeyInfo PEM,
    /// as `openssl pkey -pubout` writes).
    pub fn public_key_pem(&self) -> String {
        // The SubjectPublicKeyInfo of an Ed25519 key: this DER prefix (RFC 8410), then the 32 bytes.
        const SPKI_PREFIX: [u8; 12] = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];
        let mut der = SPKI_PREFIX.to_vec();
        der.extend_from_slice(self.0.verifying_key().as_bytes());
        format!("-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n", STANDARD.encode(der))
    }

    /// The signature of an artifact by its sha256, in standard base64 (88 characters).
    pub fn sign(&self, artifact_sha256_hex: &str) -> String {
        STANDARD.encode(self.0.sign(&signed_message(artifact_sha256_hex)).to_bytes())
    }
}

impl std::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PrivateKey(key_id {})", self.key_id())
    }
}

#[cfg(test)]
#[path = "tests_trust.rs"]
mod tests;
