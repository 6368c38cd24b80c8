//! The policy artifact swapped without a restart (`--watch-artifact-ms`),
//! on the host library's [`LiveArtifact`]: every load check runs before the
//! swap, plus, when the dispatcher takes its document from the artifact,
//! the classes its events need; a refused artifact keeps the old one and
//! the log says why (docs/artifact.md). The driver feeds a swapped-in
//! artifact's embedded document to the engine (`swap`) and moves
//! `webhook_policy_info`. [`has_classes`] is the check of every document
//! the dispatcher loads (`--policy`, `--watch-policy`, an embedded one).

use retry_policy_core::{ErrorCode, PolicyError};
use retry_policy_host::{document_classes, ArtifactError, ArtifactInfo, PolicyDocument, PolicyEngine};

/// `info` as the log lines show it: `document_version` is the version of the
/// document the dispatcher runs (`--policy`'s, else the embedded one), as
/// `webhook_policy_info` shows it (docs/artifact.md), not only an embedded one's.
pub fn with_document_version(info: &ArtifactInfo, version: &str) -> ArtifactInfo {
    ArtifactInfo { document_version: Some(version.to_string()), ..info.clone() }
}

/// A live artifact that refuses a swap the dispatcher could not run: with
/// `from_artifact`, an embedded document must define every class in `needed`.
pub fn live(engine: PolicyEngine, from_artifact: bool, needed: Vec<String>) -> retry_policy_host::LiveArtifact {
    retry_policy_host::LiveArtifact::with_check(
        engine,
        Box::new(move |e: &PolicyEngine| match e.document() {
            Some(doc) if from_artifact => {
                has_classes(doc, needed.iter().map(String::as_str)).map_err(ArtifactError::DocumentInvalid)
            }
            _ => Ok(()),
        }),
    )
}

/// `Ok` when `doc` defines every class of `needed`, else `unknown_event_class`
/// naming the first missing one and what there is.
pub fn has_classes<'a>(doc: &PolicyDocument, mut needed: impl Iterator<Item = &'a str>) -> Result<(), PolicyError> {
    let classes: Vec<String> = document_classes(doc).into_iter().map(|(c, _)| c).collect();
    let Some(missing) = needed.find(|n| !classes.iter().any(|c| c == n)) else { return Ok(()) };
    let mut known: Vec<&str> = classes.iter().map(String::as_str).collect();
    known.sort_unstable();
    Err(PolicyError::new(
        ErrorCode::UnknownEventClass,
        "classes",
        format!("policy document has no event class `{missing}` (it has: {})", known.join(", ")),
    ))
}
