//! The publisher's key (docs/rollout.md, "The signature" and "The
//! commands"): Ed25519 signing from `ed25519-dalek` over the message the
//! component verifies ([`signed_message`]), the signature in standard
//! base64 with padding. Only `retry-policy publish` signs; replicas verify
//! inside the component, so the host holds no verifier.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::pkcs8::DecodePrivateKey;
use ed25519_dalek::{Signer as _, SigningKey};
use retry_policy_core::rollout::{key_id, pem_blocks, signed_message, SPKI_PREFIX};

use super::RolloutError;

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

    /// Its public key's id (the first 16 hex digits of sha256 of the raw key).
    pub fn key_id(&self) -> String {
        key_id(self.0.verifying_key().as_bytes())
    }

    /// Its public key as a trust file holds it (SubjectPublicKeyInfo PEM,
    /// as `openssl pkey -pubout` writes).
    pub fn public_key_pem(&self) -> String {
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
