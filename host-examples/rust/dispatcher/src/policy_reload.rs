//! Policy documents reloaded without a restart, on the host library's
//! [`retry_policy_host::Policies`]: an explicit call
//! ([`crate::Dispatcher::reload_policy`]) or a file watch
//! ([`crate::Dispatcher::watch_policy`]). A new document is validated by
//! the component, and for every class the dispatcher's events need, before
//! the swap; a bad one keeps the old document and the error says why (the
//! watch logs it and counts `webhook_policy_reloads_total{result="refused"}`).
//! New events are admitted under the current document; an event in flight
//! is decided under the policy its persisted `policy_hash` names, with the
//! schedule it was admitted under.

use std::path::PathBuf;
use std::sync::Weak;
use std::time::Duration;

use retry_policy_core::{ErrorCode, PolicyError};
use retry_policy_host::{document_classes, poll_file, PolicyDocument};

use crate::shared::{instance, Shared};

/// `Ok` when `doc` defines every class of `needed`, else `unknown_event_class`
/// naming the first missing one and what there is.
pub(crate) fn has_classes<'a>(
    doc: &PolicyDocument,
    mut needed: impl Iterator<Item = &'a str>,
) -> Result<(), PolicyError> {
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

impl Shared {
    pub(crate) fn reload_policy(&self, text: &str) -> Result<String, String> {
        let result = self.try_reload(text);
        self.metrics.policy_reload(result.is_ok());
        if let Ok(version) = &result {
            self.metrics.set_policy_info(&self.artifact.info(), version);
        }
        result
    }

    fn try_reload(&self, text: &str) -> Result<String, String> {
        let mut inst = instance(&self.artifact.current()).map_err(|e| e.to_string())?;
        let needed = || self.needed_classes.iter().map(String::as_str);
        let loaded = self
            .policies
            .reload_checked(&mut inst, text, |doc| has_classes(doc, needed()))
            .map_err(|e| format!("policy document refused, the current one is kept: {e}"))?;
        Ok(loaded.version.clone())
    }
}

/// Reload `path` when it changes (the host library's [`poll_file`]), while
/// the dispatcher lives.
pub(crate) fn watch(shared: Weak<Shared>, path: PathBuf, interval: Duration) {
    let shown = path.display().to_string();
    let polled = poll_file(path, interval, {
        let shown = shown.clone();
        move |tick| {
            let Some(s) = shared.upgrade() else { return false };
            let result = match tick {
                None => return true,
                Some(read) => {
                    read.map_err(|e| format!("policy {shown}: {}", e.kind())).and_then(|t| s.reload_policy(&t))
                }
            };
            match result {
                Ok(v) => eprintln!("dispatcher: policy {shown} reloaded: version {v}"),
                Err(e) => eprintln!("dispatcher: policy {shown}: {e}"),
            }
            true
        }
    });
    if let Err(e) = polled {
        eprintln!("dispatcher: cannot watch the policy {shown}: {e}");
    }
}
