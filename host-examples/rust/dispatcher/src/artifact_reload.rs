//! The policy artifact swapped without a restart, on the host library's
//! [`LiveArtifact`]: an explicit call ([`crate::Dispatcher::swap_artifact`])
//! or a file watch ([`crate::Dispatcher::watch_artifact`]). Every load check
//! runs before the swap, plus, when the dispatcher takes its document from
//! the artifact, the classes its events need; a refused artifact keeps the
//! old one and the log says why. Each load, swap and refusal is one log line
//! (`docs/artifact.md`), and `webhook_policy_info` follows the swap.

use std::path::Path;
use std::sync::{Arc, Weak};
use std::time::Duration;

use retry_policy_host::{ArtifactError, ArtifactInfo, ArtifactRef, LiveArtifact, PolicyEngine, Swapped, WatchEvent};

use crate::policy_reload::has_classes;
use crate::shared::Shared;
use crate::worker::log;

/// The dispatcher's own check of a new artifact: with `from_artifact`, an
/// embedded document must define every class in `needed`.
pub(crate) fn check(engine: &PolicyEngine, from_artifact: bool, needed: &[String]) -> Result<(), ArtifactError> {
    match engine.document() {
        Some(doc) if from_artifact => {
            has_classes(doc, needed.iter().map(String::as_str)).map_err(ArtifactError::DocumentInvalid)
        }
        _ => Ok(()),
    }
}

/// After a swap: log it, update `webhook_policy_info`, and take the new
/// embedded document when the document follows the artifact.
fn swapped(s: &Shared, sw: &Swapped) {
    if let (true, Some(text)) = (s.config.document_from_artifact, &sw.new.document_json) {
        if let Err(e) = s.reload_policy(text) {
            log(&format!("policy artifact {}: its document: {e}", sw.new.sha256));
        }
    }
    let version = s.policies.current().version.clone();
    log(&Swapped { new: with_document_version(&sw.new, &version), ..sw.clone() }.line());
    s.metrics.set_policy_info(&sw.new, &version);
}

/// `info` as the log lines show it: `document_version` is the version of the
/// document the dispatcher runs (`--policy`'s, else the embedded one), as
/// `webhook_policy_info` shows it (docs/artifact.md), not only an embedded one's.
pub fn with_document_version(info: &ArtifactInfo, version: &str) -> ArtifactInfo {
    ArtifactInfo { document_version: Some(version.to_string()), ..info.clone() }
}

pub(crate) fn swap(s: &Shared, artifact: ArtifactRef<'_>) -> Result<ArtifactInfo, ArtifactError> {
    match s.artifact.swap_artifact(artifact, None) {
        Ok(sw) => {
            swapped(s, &sw);
            Ok(sw.new)
        }
        Err(e) => {
            let from = match artifact {
                ArtifactRef::Path(p) => format!("path={}", p.display()),
                ArtifactRef::Bytes(_) => "source=bytes".into(),
                ArtifactRef::Default => "source=default".into(),
            };
            log(&format!(
                "policy artifact refused {from} code={}: {}; keeping sha256={}",
                e.code(),
                e.message(),
                s.artifact.info().sha256
            ));
            Err(e)
        }
    }
}

/// Watch `path` (the library's poll of the file's sha256) while the
/// dispatcher lives.
pub(crate) fn watch(shared: &Arc<Shared>, path: &Path, interval: Duration) -> std::io::Result<()> {
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let live: &Arc<LiveArtifact> = &shared.artifact;
    live.watch_artifact(path, interval, move |event| {
        let Some(s) = weak.upgrade() else { return };
        match event {
            WatchEvent::Swapped(sw) => swapped(&s, sw),
            refused => log(&refused.line()),
        }
    })?;
    Ok(())
}
