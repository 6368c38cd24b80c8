//! Why a rollout step refused (docs/rollout.md): one variant per code the
//! protocol defines, plus the artifact's own load refusals.

use std::fmt;

use crate::ArtifactError;

/// A refusal of the rollout protocol. [`RolloutError::code`] is the
/// document's code; the message says what was expected and what was found.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum RolloutError {
    /// `rollout_record_invalid`: the record text breaks a rule of "The rollout record".
    RecordInvalid(String),
    /// `rollout_trust_invalid`: the trust file holds no Ed25519 public key, or a block that is not one.
    TrustInvalid(String),
    /// `rollout_key_unknown`: the artifact's `key_id` is not the id of a trusted key.
    KeyUnknown(String),
    /// `rollout_signature_invalid`: not 88 characters of base64 of 64 bytes, or it does not verify.
    SignatureInvalid(String),
    /// `rollout_artifact_missing`: the record names an artifact whose hash is absent or incomplete.
    ArtifactMissing(String),
    /// `rollout_key_invalid`: the publisher's private key is not a PKCS#8 PEM Ed25519 key.
    KeyInvalid(String),
    /// The artifact's own refusal (`artifact_too_large`, `artifact_sha256_mismatch`, the load checks).
    Artifact(ArtifactError),
}

impl RolloutError {
    /// The code of docs/rollout.md (or docs/artifact.md for [`RolloutError::Artifact`]).
    pub fn code(&self) -> &'static str {
        match self {
            RolloutError::RecordInvalid(_) => "rollout_record_invalid",
            RolloutError::TrustInvalid(_) => "rollout_trust_invalid",
            RolloutError::KeyUnknown(_) => "rollout_key_unknown",
            RolloutError::SignatureInvalid(_) => "rollout_signature_invalid",
            RolloutError::ArtifactMissing(_) => "rollout_artifact_missing",
            RolloutError::KeyInvalid(_) => "rollout_key_invalid",
            RolloutError::Artifact(a) => a.code(),
        }
    }

    /// The message alone, without the code.
    pub fn message(&self) -> String {
        match self {
            RolloutError::RecordInvalid(m)
            | RolloutError::TrustInvalid(m)
            | RolloutError::KeyUnknown(m)
            | RolloutError::SignatureInvalid(m)
            | RolloutError::ArtifactMissing(m)
            | RolloutError::KeyInvalid(m) => m.clone(),
            RolloutError::Artifact(a) => a.message(),
        }
    }
}

impl fmt::Display for RolloutError {
    /// `<code>: <message>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for RolloutError {}

impl From<ArtifactError> for RolloutError {
    fn from(e: ArtifactError) -> Self {
        RolloutError::Artifact(e)
    }
}
