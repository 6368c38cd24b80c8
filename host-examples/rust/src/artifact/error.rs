//! Why an artifact was refused: one variant per code of `docs/artifact.md`.

use std::fmt;

use retry_policy_core::PolicyError;

/// An artifact refused at one of the load steps (`docs/artifact.md`,
/// "Loading: checks before first use"). [`ArtifactError::code`] is the
/// contract's code; the message names what was expected and what was found.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum ArtifactError {
    /// `artifact_unreadable`: the path cannot be read.
    Unreadable { path: String, reason: String },
    /// `artifact_pin_invalid`: the pin (the caller's or
    /// `RETRY_POLICY_ARTIFACT_SHA256`) is not 64 hex digits.
    PinInvalid { pin: String },
    /// `artifact_too_large`: more than [`super::MAX_ARTIFACT_BYTES`];
    /// `size` is `None` when the read stopped at the cap.
    TooLarge { source: String, size: Option<u64> },
    /// `artifact_sha256_mismatch`: the pin does not match.
    Sha256Mismatch { expected: String, found: String },
    /// `artifact_invalid`: not a component, truncated, a duplicate custom
    /// section, no main module, or the runtime's own refusal.
    Invalid { reason: String, offset: Option<usize> },
    /// `artifact_abi_mismatch`: another WIT package version or ABI.
    /// `found_package` is read from the export names (`unknown` if none).
    AbiMismatch { found_package: String, found_abi: Option<u32> },
    /// `artifact_self_test_failed`: a known answer differed, or the call trapped.
    SelfTestFailed { call: String, expected: String, got: String },
    /// `artifact_document_invalid`: the embedded document does not load.
    DocumentInvalid(PolicyError),
}

impl ArtifactError {
    /// The contract's code.
    pub fn code(&self) -> &'static str {
        match self {
            ArtifactError::PinInvalid { .. } => "artifact_pin_invalid",
            ArtifactError::Unreadable { .. } => "artifact_unreadable",
            ArtifactError::TooLarge { .. } => "artifact_too_large",
            ArtifactError::Sha256Mismatch { .. } => "artifact_sha256_mismatch",
            ArtifactError::Invalid { .. } => "artifact_invalid",
            ArtifactError::AbiMismatch { .. } => "artifact_abi_mismatch",
            ArtifactError::SelfTestFailed { .. } => "artifact_self_test_failed",
            ArtifactError::DocumentInvalid(_) => "artifact_document_invalid",
        }
    }

    pub(crate) fn invalid(reason: impl Into<String>, offset: Option<usize>) -> Self {
        ArtifactError::Invalid { reason: reason.into(), offset }
    }
}

impl fmt::Display for ArtifactError {
    /// `<code>: <message>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl ArtifactError {
    /// What was expected and what was found, without the code.
    pub fn message(&self) -> String {
        match self {
            ArtifactError::PinInvalid { pin } => {
                let shown: String = pin.chars().take(80).collect();
                format!("the pin {shown:?} is not a sha256: expected 64 hex digits (either case)")
            }
            ArtifactError::Unreadable { path, reason } => format!("cannot read {path}: {reason}"),
            ArtifactError::TooLarge { source, size } => {
                let max = super::MAX_ARTIFACT_BYTES;
                match size {
                    Some(n) => format!("{source} is {n} bytes; an artifact is at most {max} bytes (4 MiB)"),
                    None => format!("{source} has more than {max} bytes; an artifact is at most {max} bytes (4 MiB)"),
                }
            }
            ArtifactError::Sha256Mismatch { expected, found } => {
                format!("expected sha256 {expected}, the artifact's is {found}")
            }
            ArtifactError::Invalid { reason, offset: Some(at) } => format!("{reason} (at byte offset {at})"),
            ArtifactError::Invalid { reason, offset: None } => reason.clone(),
            ArtifactError::AbiMismatch { found_package, found_abi } => {
                let abi = found_abi.map_or_else(|| "unknown".to_string(), |n| n.to_string());
                let (package, version) = (super::WIT_PACKAGE, super::ABI_VERSION);
                format!("artifact implements {found_package} (abi {abi}); this host speaks {package} (abi {version})")
            }
            ArtifactError::SelfTestFailed { call, expected, got } => {
                format!("self-test {call}: expected {expected}, got {got}")
            }
            ArtifactError::DocumentInvalid(e) => format!("the embedded policy document does not load: {e}"),
        }
    }
}

impl std::error::Error for ArtifactError {}
