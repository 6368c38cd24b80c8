//! The policy artifact (`docs/artifact.md`): one component file, found at
//! run time (bytes or a path the caller passes, else `RETRY_POLICY_ARTIFACT`,
//! else the copy shipped in this crate), checked before first use, and
//! swappable without a restart.
//!
//! * [`container`]: the top-level sections, with `wasmparser`; `bundle`'s
//!   document section, with `wasm-encoder`.
//! * [`read`]: the pin's form and the file's bytes, bounded ([`read_file`]).
//! * [`load`]: the checks (read, pin, parse, ABI, self-test, document) and
//!   [`crate::PolicyEngine`]'s constructors.
//! * [`swap`]: [`LiveArtifact`] (`swap_artifact`, `watch_artifact`).

pub mod container;
mod error;
mod load;
pub(crate) mod read;
pub mod swap;

use std::fmt;
use std::path::PathBuf;

pub use error::ArtifactError;
pub use load::{env_path, ArtifactRef};
pub use read::{read_file, MAX_ARTIFACT_BYTES};
pub use swap::{LiveArtifact, LiveInstance, Swapped, WatchEvent};

/// The WIT package this host speaks.
pub const WIT_PACKAGE: &str = "webhook:retry-policy@1.0.0";
/// The interface the artifact must export.
pub const POLICY_INTERFACE: &str = "webhook:retry-policy/policy@1.0.0";
/// What `abi-version()` must return.
pub const ABI_VERSION: u32 = 5;
/// The artifact's path, honoured by the library default, the CLI, the
/// conformance runner and the dispatcher.
pub const ARTIFACT_ENV: &str = "RETRY_POLICY_ARTIFACT";
/// The sha256 pin when the caller gives none.
pub const ARTIFACT_SHA256_ENV: &str = "RETRY_POLICY_ARTIFACT_SHA256";

/// The copy shipped inside this crate (`scripts/build-component` writes it,
/// byte-identical to `dist/retry_policy.wasm`; a test fails when it is stale).
pub static EMBEDDED: &[u8] = include_bytes!("../../artifact/retry_policy.wasm");

/// Where a loaded artifact came from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ArtifactSource {
    /// A file (the caller's path, or `RETRY_POLICY_ARTIFACT`).
    Path(PathBuf),
    /// The copy shipped in this crate.
    Embedded,
    /// Bytes the caller passed.
    #[default]
    Bytes,
    /// The fleet's published artifact, fetched from Redis (docs/rollout.md).
    Redis,
}

impl fmt::Display for ArtifactSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArtifactSource::Path(p) => write!(f, "{}", p.display()),
            ArtifactSource::Embedded => f.write_str("embedded"),
            ArtifactSource::Bytes => f.write_str("bytes"),
            ArtifactSource::Redis => f.write_str("redis"),
        }
    }
}

/// Build provenance (`webhook-retry-policy:build`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildInfo {
    pub policy_core_version: String,
    pub wit_package: String,
    /// `sha256:<64 hex>` over the sources of the build.
    pub source_digest: String,
}

/// What a loaded artifact is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArtifactInfo {
    /// Lowercase hex sha256 of the whole file.
    pub sha256: String,
    /// The WIT package it implements (`webhook:retry-policy@1.0.0`).
    pub abi: String,
    /// What its `abi-version()` returned.
    pub abi_version: u32,
    pub size_bytes: usize,
    pub source: ArtifactSource,
    /// The embedded document's `version`, when it carries one.
    pub document_version: Option<String>,
    /// The embedded document's JSON text, when it carries one.
    pub document_json: Option<String>,
    /// The embedded document's classes that have a `health` section (format
    /// 3, their own or the document's), in document order; empty for a
    /// format-2 document or none.
    pub health_classes: Vec<String>,
    /// Build provenance, when the file carries it.
    pub build: Option<BuildInfo>,
}

impl ArtifactInfo {
    /// The log line of `docs/artifact.md` ("policy artifact loaded ...").
    pub fn loaded_line(&self) -> String {
        format!(
            "policy artifact loaded sha256={} abi={} document_version={} source={}",
            self.sha256,
            self.abi,
            self.document_version.as_deref().unwrap_or(""),
            self.source
        )
    }
}
