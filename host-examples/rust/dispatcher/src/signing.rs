//! Standard Webhooks signatures (<https://www.standardwebhooks.com>), sender
//! and receiver side.
//!
//! * Headers: `webhook-id` (the event id, the same on every retry),
//!   `webhook-timestamp` (Unix seconds of this attempt) and
//!   `webhook-signature`: `v1,` + base64(HMAC-SHA256(key, "id.timestamp.body"))
//!   per secret, space-separated — during a rotation both the old and the
//!   new secret sign, so receivers on either one accept.
//! * Secrets are `whsec_` + base64 of the key. A [`Secret`] never prints
//!   its bytes (`Debug` is redacted), and no error here quotes one.
//! * [`verify`]: the receiver side, with a tolerance window on the
//!   timestamp and the `hmac` crate's constant-time `verify_slice`.
//! * [`Signer`]: the dispatcher's per-endpoint secrets from a
//!   [`SecretSource`], cached; [`Signer::refresh`] reloads one endpoint's
//!   secrets (the policy's `refresh_credentials`, after a 401/403).

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// Largest accepted `webhook-signature` header (many rotated secrets are still far below).
const MAX_SIGNATURE_HEADER: usize = 4096;

/// One signing key. Its bytes never appear in `Debug` output or errors.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Vec<u8>);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret(<{} bytes, redacted>)", self.0.len())
    }
}

impl Secret {
    /// `whsec_<base64>` (the prefix is optional); the error never quotes the value.
    pub fn parse(s: &str) -> Result<Secret, String> {
        let b64 = s.trim().strip_prefix("whsec_").unwrap_or(s.trim());
        let key = STANDARD.decode(b64).map_err(|_| "a signing secret is not whsec_ + base64".to_string())?;
        if key.is_empty() {
            return Err("a signing secret is empty".into());
        }
        Ok(Secret(key))
    }

    pub fn from_bytes(key: Vec<u8>) -> Secret {
        Secret(key)
    }

    /// `v1,<base64 signature>` of one message.
    pub fn sign(&self, msg_id: &str, timestamp_s: u64, body: &[u8]) -> String {
        format!("v1,{}", STANDARD.encode(self.keyed(msg_id, timestamp_s, body).finalize().into_bytes()))
    }

    /// The HMAC state after `"id.timestamp.body"`, ready to finalize or verify.
    fn keyed(&self, msg_id: &str, timestamp_s: u64, body: &[u8]) -> HmacSha256 {
        hmac_sha256(&self.0, &[format!("{msg_id}.{timestamp_s}.").as_bytes(), body])
    }
}

/// HMAC-SHA256 (RFC 2104, the `hmac` crate) over the concatenated `parts`.
fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> HmacSha256 {
    // HMAC takes a key of any length (a long one is hashed first): this never fails.
    let mut mac =
        <HmacSha256 as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    for p in parts {
        mac.update(p);
    }
    mac
}

/// The `webhook-signature` value: one `v1,` signature per secret, space-separated.
pub fn signature_header(secrets: &[Secret], msg_id: &str, timestamp_s: u64, body: &[u8]) -> String {
    secrets.iter().map(|s| s.sign(msg_id, timestamp_s, body)).collect::<Vec<_>>().join(" ")
}

/// Why a webhook was not accepted (no variant carries a secret or a signature).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    MissingHeader(&'static str),
    BadTimestamp,
    TooOld,
    TooNew,
    NoMatchingSignature,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyError::MissingHeader(h) => write!(f, "missing header {h}"),
            VerifyError::BadTimestamp => write!(f, "webhook-timestamp is not Unix seconds"),
            VerifyError::TooOld => write!(f, "webhook-timestamp is older than the tolerance"),
            VerifyError::TooNew => write!(f, "webhook-timestamp is further ahead than the tolerance"),
            VerifyError::NoMatchingSignature => write!(f, "no v1 signature matches"),
        }
    }
}

/// Receiver side: accept the webhook when its timestamp is within
/// `tolerance_s` of `now_s` and any `v1` signature in `signature` matches
/// any of `secrets` (compared in constant time).
pub fn verify(
    secrets: &[Secret],
    msg_id: Option<&str>,
    timestamp: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
    now_s: u64,
    tolerance_s: u64,
) -> Result<(), VerifyError> {
    let msg_id = msg_id.ok_or(VerifyError::MissingHeader("webhook-id"))?;
    let ts = timestamp.ok_or(VerifyError::MissingHeader("webhook-timestamp"))?;
    let signature = signature.ok_or(VerifyError::MissingHeader("webhook-signature"))?;
    let ts: u64 = ts.trim().parse().map_err(|_| VerifyError::BadTimestamp)?;
    if now_s.saturating_sub(ts) > tolerance_s {
        return Err(VerifyError::TooOld);
    }
    if ts.saturating_sub(now_s) > tolerance_s {
        return Err(VerifyError::TooNew);
    }
    if signature.len() > MAX_SIGNATURE_HEADER {
        return Err(VerifyError::NoMatchingSignature);
    }
    let expected: Vec<HmacSha256> = secrets.iter().map(|s| s.keyed(msg_id, ts, body)).collect();
    let mut ok = false;
    for given in signature.split(' ').filter_map(|p| p.strip_prefix("v1,")) {
        let Ok(given) = STANDARD.decode(given) else { continue };
        for e in &expected {
            // Constant-time compare inside the crate; every pair is checked.
            ok |= e.clone().verify_slice(&given).is_ok();
        }
    }
    if ok {
        Ok(())
    } else {
        Err(VerifyError::NoMatchingSignature)
    }
}

/// Where an endpoint's current secrets come from (a file, a vault...).
/// Errors must not quote secret material.
pub trait SecretSource: Send + Sync {
    fn load(&self, endpoint_id: &str) -> Result<Vec<Secret>, String>;
}

/// A JSON file `{"endpoint-id": "whsec_new whsec_old", ...}` (or a list of
/// secrets per endpoint), read again on every load: rotating a secret is
/// editing the file.
pub struct FileSecrets(pub std::path::PathBuf);

impl SecretSource for FileSecrets {
    fn load(&self, endpoint_id: &str) -> Result<Vec<Secret>, String> {
        let text = std::fs::read_to_string(&self.0)
            .map_err(|e| format!("signing secrets {}: {}", self.0.display(), e.kind()))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| format!("signing secrets {}: not JSON (line {})", self.0.display(), e.line()))?;
        let entry = v.get(endpoint_id).ok_or_else(|| format!("no signing secret for endpoint `{endpoint_id}`"))?;
        let words: Vec<&str> = match entry {
            serde_json::Value::String(s) => s.split_whitespace().collect(),
            serde_json::Value::Array(a) => a.iter().filter_map(serde_json::Value::as_str).collect(),
            _ => return Err(format!("signing secrets of `{endpoint_id}` must be a string or a list")),
        };
        let secrets = words.into_iter().map(Secret::parse).collect::<Result<Vec<_>, _>>()?;
        if secrets.is_empty() {
            return Err(format!("endpoint `{endpoint_id}` has no signing secret"));
        }
        Ok(secrets)
    }
}

/// The dispatcher's signer: per-endpoint secrets, loaded once and kept
/// until [`Signer::refresh`].
pub struct Signer {
    source: Box<dyn SecretSource>,
    cache: Mutex<HashMap<String, Vec<Secret>>>,
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Signer(<secrets redacted>)")
    }
}

impl Signer {
    pub fn new(source: Box<dyn SecretSource>) -> Self {
        Signer { source, cache: Mutex::default() }
    }

    /// The three headers for one attempt; an error (no secret) means the
    /// attempt is not sent unsigned.
    pub fn headers(&self, endpoint_id: &str, msg_id: &str, now_ms: u64, body: &[u8]) -> Result<[String; 3], String> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if !cache.contains_key(endpoint_id) {
            let loaded = self.source.load(endpoint_id)?;
            cache.insert(endpoint_id.to_string(), loaded);
        }
        let ts = now_ms / 1000;
        let sig = signature_header(&cache[endpoint_id], msg_id, ts, body);
        Ok([msg_id.to_string(), ts.to_string(), sig])
    }

    /// Reload one endpoint's secrets now (before the retry that follows a
    /// 401/403). On error the old secrets are dropped: the next attempt
    /// loads again.
    pub fn refresh(&self, endpoint_id: &str) -> Result<(), String> {
        let loaded = self.source.load(endpoint_id);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        match loaded {
            Ok(s) => {
                cache.insert(endpoint_id.to_string(), s);
                Ok(())
            }
            Err(e) => {
                cache.remove(endpoint_id);
                Err(e)
            }
        }
    }
}

#[cfg(test)]
#[path = "tests_signing.rs"]
mod tests;
