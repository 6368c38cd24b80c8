//! Why a rollout step refused (docs/rollout.md): one variant per code the
//! protocol defines; the artifact's own refusals (`artifact_too_large`,
//! `artifact_sha256_mismatch`, the host's load checks) carry their code.

use alloc::string::String;
use core::fmt;

/// A refusal of the rollout protocol, or an input the follower cannot take.
/// [`RolloutError::code`] is the document's code; the message says what was
/// expected and what was found.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// `artifact_too_large`: the stored artifact is over the 4 MiB cap.
    TooLarge(String),
    /// `artifact_sha256_mismatch`: the fetched bytes are not the artifact the record names.
    Sha256Mismatch(String),
    /// The host's load checks refused the artifact: its code (docs/artifact.md) and message.
    Load { code: String, message: String },
    /// `rollout_input_invalid`: a follower input (or its state text) that the protocol
    /// cannot take: not JSON, an unknown op, a missing field, a reply to a call not made.
    InputInvalid(String),
}

impl RolloutError {
    /// The code of docs/rollout.md (or docs/artifact.md).
    pub fn code(&self) -> &str {
        match self {
            RolloutError::RecordInvalid(_) => "rollout_record_invalid",
            RolloutError::TrustInvalid(_) => "rollout_trust_invalid",
            RolloutError::KeyUnknown(_) => "rollout_key_unknown",
            RolloutError::SignatureInvalid(_) => "rollout_signature_invalid",
            RolloutError::ArtifactMissing(_) => "rollout_artifact_missing",
            RolloutError::TooLarge(_) => "artifact_too_large",
            RolloutError::Sha256Mismatch(_) => "artifact_sha256_mismatch",
            RolloutError::Load { code, .. } => code,
            RolloutError::InputInvalid(_) => "rollout_input_invalid",
        }
    }

    /// The message alone, without the code.
    pub fn message(&self) -> &str {
        match self {
            RolloutError::RecordInvalid(m)
            | RolloutError::TrustInvalid(m)
            | RolloutError::KeyUnknown(m)
            | RolloutError::SignatureInvalid(m)
            | RolloutError::ArtifactMissing(m)
            | RolloutError::TooLarge(m)
            | RolloutError::Sha256Mismatch(m)
            | RolloutError::InputInvalid(m) => m,
            RolloutError::Load { message, .. } => message,
        }
    }
}

impl fmt::Display for RolloutError {
    /// `<code>: <message>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for RolloutError {}
