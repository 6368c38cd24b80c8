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

use std::path::{Path, PathBuf};
use std::sync::Weak;
use std::time::{Duration, SystemTime};

use retry_policy_core::Policy;
use retry_policy_host::document_classes;

use crate::dispatcher::{instance, Shared};
use crate::store::EventRecord;

/// `Ok` when `class` is one of `classes`, else an error naming what there is.
pub(crate) fn has_class(classes: &[String], class: &str) -> Result<(), String> {
    if classes.iter().any(|c| c == class) {
        return Ok(());
    }
    let mut known: Vec<&str> = classes.iter().map(String::as_str).collect();
    known.sort_unstable();
    Err(format!("policy document has no event class `{class}` (it has: {})", known.join(", ")))
}

impl Shared {
    /// The policy `rec` was admitted under (by its hash); for an event
    /// admitted by another process under a document never loaded here, its
    /// class in the current document (its schedule is persisted with it).
    pub(crate) fn policy_of(&self, rec: &EventRecord) -> Option<Policy> {
        self.policies.by_hash(&rec.policy_hash).or_else(|| {
            let current = self.policies.current();
            document_classes(&current.document).into_iter().find(|(c, _)| *c == rec.class).map(|(_, p)| p)
        })
    }

    pub(crate) fn reload_policy(&self, text: &str) -> Result<String, String> {
        let result = self.try_reload(text);
        self.metrics.policy_reload(result.is_ok());
        result
    }

    fn try_reload(&self, text: &str) -> Result<String, String> {
        let mut inst = instance(&self.engine)?;
        let refused = |e: String| format!("policy document refused, the current one is kept: {e}");
        let doc = inst.load_document(text).map_err(|e| refused(e.to_string()))?;
        let classes: Vec<String> = document_classes(&doc).into_iter().map(|(c, _)| c).collect();
        for c in &self.needed_classes {
            has_class(&classes, c).map_err(refused)?;
        }
        let loaded = self.policies.reload(&mut inst, text).map_err(|e| refused(e.to_string()))?;
        Ok(loaded.version.clone())
    }
}

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()))
}

/// Poll `path`'s modification time and length; reload on a change, while
/// the dispatcher lives. (Polling: no file-notification dependency, one
/// `stat` per interval.)
pub(crate) fn watch(shared: Weak<Shared>, path: PathBuf, interval: Duration) {
    let mut seen = stamp(&path);
    let shown = path.display().to_string();
    let spawned = std::thread::Builder::new().name("policy-watch".into()).spawn(move || loop {
        std::thread::sleep(interval);
        let Some(s) = shared.upgrade() else { return };
        let now = stamp(&path);
        if now == seen {
            continue;
        }
        seen = now;
        let result = std::fs::read_to_string(&path)
            .map_err(|e| format!("policy {}: {}", path.display(), e.kind()))
            .and_then(|text| s.reload_policy(&text));
        match result {
            Ok(v) => eprintln!("dispatcher: policy {} reloaded: version {v}", path.display()),
            Err(e) => eprintln!("dispatcher: policy {}: {e}", path.display()),
        }
    });
    if let Err(e) = spawned {
        eprintln!("dispatcher: cannot watch the policy {shown}: {e}");
    }
}
