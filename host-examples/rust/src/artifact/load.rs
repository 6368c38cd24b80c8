//! Loading an artifact: the six checks of `docs/artifact.md`, in order,
//! the first failure refusing it with its code. The ABI and self-test run
//! through wasmtime's component API and this crate's normal call path.

use std::path::Path;
use std::sync::Arc;

use retry_policy_core::{Backoff, FakeClock, InMemoryStore, Jitter, LimitedBy, OutcomeClass};
use wasmtime::component::Component;

use super::container::{self, sha256_hex};
use super::read::{check_size, pin, read_file};
use super::{
    ArtifactError, ArtifactInfo, ArtifactSource, BuildInfo, ABI_VERSION, ARTIFACT_ENV, EMBEDDED, POLICY_INTERFACE,
    WIT_PACKAGE,
};
use crate::{HostError, PolicyEngine, PolicyInstance};

/// Which artifact to load.
#[derive(Clone, Copy, Debug)]
pub enum ArtifactRef<'a> {
    /// A component file.
    Path(&'a Path),
    /// A component's bytes.
    Bytes(&'a [u8]),
    /// `RETRY_POLICY_ARTIFACT` when set and not empty (set but unreadable
    /// is an error, never a fallback), else the copy shipped in this crate.
    Default,
}

impl PolicyEngine {
    /// Load and check an artifact. `expected_sha256` pins it (64 hex
    /// digits, either case); `None` or `""` takes
    /// `RETRY_POLICY_ARTIFACT_SHA256` when set and not empty.
    pub fn load(artifact: ArtifactRef<'_>, expected_sha256: Option<&str>) -> Result<Self, ArtifactError> {
        let pin = pin(expected_sha256)?;
        let from_file =
            |p: &Path| Self::check_bytes(&read_file(p)?, ArtifactSource::Path(p.to_path_buf()), pin.as_deref());
        match artifact {
            ArtifactRef::Path(p) => from_file(p),
            ArtifactRef::Bytes(b) => Self::check_bytes(b, ArtifactSource::Bytes, pin.as_deref()),
            ArtifactRef::Default => match env_path() {
                Some(p) => from_file(Path::new(&p)),
                None => Self::check_bytes(EMBEDDED, ArtifactSource::Embedded, pin.as_deref()),
            },
        }
    }

    /// [`PolicyEngine::load`] of `RETRY_POLICY_ARTIFACT`, else the embedded copy.
    pub fn load_default() -> Result<Self, ArtifactError> {
        Self::load(ArtifactRef::Default, None)
    }

    /// [`PolicyEngine::load`] of a component file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ArtifactError> {
        Self::load(ArtifactRef::Path(path.as_ref()), None)
    }

    /// [`PolicyEngine::load`] of a component's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ArtifactError> {
        Self::load(ArtifactRef::Bytes(bytes), None)
    }

    /// The checks on bytes already read; `pin` is [`pin`]'s (lower case).
    pub(crate) fn check_bytes(bytes: &[u8], source: ArtifactSource, pin: Option<&str>) -> Result<Self, ArtifactError> {
        check_size(bytes, &source.to_string())?;
        let sha256 = sha256_hex(bytes);
        if let Some(expected) = pin {
            if expected != sha256 {
                return Err(ArtifactError::Sha256Mismatch { expected: expected.to_string(), found: sha256 });
            }
        }
        let sections = container::parse(bytes)?;
        let build = sections.build.map(build_info).transpose()?;
        let engine = Self::wasmtime_engine().map_err(|e| ArtifactError::invalid(e.to_string(), None))?;
        let component = Component::new(&engine, bytes)
            .map_err(|e| ArtifactError::invalid(format!("wasmtime refused the component: {e:#}"), None))?;
        if !sections.exports.iter().any(|e| e == POLICY_INTERFACE) {
            return Err(ArtifactError::AbiMismatch { found_package: package_of(&sections.exports), found_abi: None });
        }
        let mut this = Self::link(engine, component).map_err(|_| ArtifactError::AbiMismatch {
            found_package: format!("{} with other types", package_of(&sections.exports)),
            found_abi: None,
        })?;
        let mut inst = this
            .instantiate(FakeClock::new(0), InMemoryStore::new())
            .map_err(|e| ArtifactError::invalid(format!("cannot instantiate it: {e}"), None))?;
        let abi = inst.abi_version().map_err(|e| trapped("abi-version()", &ABI_VERSION.to_string(), e))?;
        if abi != ABI_VERSION {
            return Err(ArtifactError::AbiMismatch { found_package: WIT_PACKAGE.into(), found_abi: Some(abi) });
        }
        self_test(&mut inst)?;
        let document_json = match sections.document {
            None => None,
            Some(d) => Some(String::from_utf8(d.to_vec()).map_err(|_| {
                ArtifactError::DocumentInvalid(retry_policy_core::PolicyError::new(
                    retry_policy_core::ErrorCode::InvalidDocument,
                    "",
                    "the document section is not UTF-8",
                ))
            })?),
        };
        // Step 6: the artifact's own `load-health-document` (format 2 or 3);
        // a format-2 document's view is `load-document`'s, exactly as before.
        let health = match &document_json {
            None => None,
            Some(text) => {
                Some(inst.load_health_document(text).map_err(|e| embedded_refused("load-health-document", e))?)
            }
        };
        let document = match (&health, &document_json) {
            (Some(h), _) if !h.health_classes().is_empty() => Some(h.policy_document()),
            (_, Some(text)) => Some(inst.load_document(text).map_err(|e| embedded_refused("load-document", e))?),
            _ => None,
        };
        this.info = Arc::new(ArtifactInfo {
            sha256,
            abi: WIT_PACKAGE.into(),
            abi_version: abi,
            size_bytes: bytes.len(),
            source,
            document_version: document.as_ref().map(|d| d.version.clone()),
            document_json,
            health_classes: health.as_ref().map(|h| h.health_classes()).unwrap_or_default(),
            build,
        });
        this.document = document.map(Arc::new);
        this.health_document = health.map(Arc::new);
        Ok(this)
    }
}

/// `RETRY_POLICY_ARTIFACT`, when set and not empty (empty means unset).
pub fn env_path() -> Option<std::ffi::OsString> {
    std::env::var_os(ARTIFACT_ENV).filter(|p| !p.is_empty())
}

/// The embedded document refused by `call`: its policy error, else the trap.
fn embedded_refused(call: &str, e: HostError) -> ArtifactError {
    match e {
        HostError::Policy(p) => ArtifactError::DocumentInvalid(p),
        other => trapped(&format!("{call}(<embedded document>)"), "a document", other),
    }
}

fn trapped(call: &str, expected: &str, e: HostError) -> ArtifactError {
    failed(call, expected, e.to_string())
}

fn failed(call: &str, expected: &str, got: String) -> ArtifactError {
    ArtifactError::SelfTestFailed { call: call.into(), expected: expected.into(), got }
}

/// `webhook:retry-policy/policy@1.0.0` -> `webhook:retry-policy@1.0.0`.
fn package_of(exports: &[String]) -> String {
    let Some(name) = exports.iter().find(|e| e.starts_with("webhook:retry-policy/")).or(exports.first()) else {
        return "unknown".into();
    };
    match (name.split_once('/'), name.split_once('@')) {
        (Some((pkg, _)), Some((_, version))) => format!("{pkg}@{version}"),
        (Some((pkg, _)), None) => pkg.to_string(),
        _ => name.clone(),
    }
}

fn build_info(bytes: &[u8]) -> Result<BuildInfo, ArtifactError> {
    let bad = |why: &str| ArtifactError::invalid(format!("the `{}` section {why}", container::BUILD_SECTION), None);
    let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|_| bad("is not JSON"))?;
    let field =
        |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string).ok_or_else(|| bad(&format!("lacks `{k}`")));
    Ok(BuildInfo {
        policy_core_version: field("policy_core_version")?,
        wit_package: field("wit_package")?,
        source_digest: field("source_digest")?,
    })
}

/// The known answers of `docs/artifact.md`, step 5.
fn self_test(inst: &mut PolicyInstance) -> Result<(), ArtifactError> {
    let backoff = Backoff { base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: Jitter::None };
    let call = "plan({base_ms: 1000, factor: 2.0, cap_ms: 4000, jitter: none}, 10000, 16)";
    let expected = "max_attempts 4, offsets_ms [0, 1000, 3000, 7000], limited_by window";
    let plan = inst.plan(&backoff, 10_000, 16).map_err(|e| trapped(call, expected, e))?;
    if (plan.max_attempts, plan.offsets_ms.as_slice(), plan.limited_by)
        != (4, &[0, 1000, 3000, 7000][..], LimitedBy::Window)
    {
        let (n, offsets, by) = (plan.max_attempts, &plan.offsets_ms, plan.limited_by.as_str());
        return Err(failed(call, expected, format!("max_attempts {n}, offsets_ms {offsets:?}, limited_by {by}")));
    }
    let class = inst.classify_status(200).map_err(|e| trapped("classify-status(200)", "success", e))?;
    if class != OutcomeClass::Success {
        return Err(failed("classify-status(200)", "success", class.as_str().to_string()));
    }
    let call = "parse-retry-after(\"120\", 0)";
    let ms = inst.parse_retry_after("120", 0).map_err(|e| trapped(call, "120000", e))?;
    if ms != Some(120_000) {
        return Err(failed(call, "120000", format!("{ms:?}")));
    }
    Ok(())
}
