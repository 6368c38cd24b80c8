//! An artifact swapped in (`--watch-artifact-ms`, docs/engine.md section
//! 11): new code is a new engine. The old engine drains (nothing new
//! starts; what is in flight finishes), then its `snapshot` — every event
//! it holds, as journal lines — is resumed by an engine opened on the new
//! artifact, and the run goes on there: events keep the policy they were
//! admitted under; with `document_from_artifact` the new artifact's
//! embedded document is current for new ones. `/metrics` shows the new
//! artifact at once.

use serde_json::json;

use super::io::log;
use super::{document_version, instantiate, open_engine, refusal_text, Driver};
use crate::artifact_reload::with_document_version;
use retry_policy_host::Swapped;

impl Driver {
    /// `--watch-policy`: a changed policy file becomes the current document
    /// (the engine's `swap`) when the component loads it and it has every
    /// class the run's events need; else the current one stays. Either way
    /// one log line and `webhook_policy_reloads_total{result}`.
    pub(super) fn reload(&mut self, text: Result<String, String>, now: u64) -> Result<(), String> {
        let checked = text.and_then(|t| {
            let doc = self.inst.load_document(&t).map_err(|e| e.to_string())?;
            crate::artifact_reload::has_classes(&doc, self.needed.iter().map(String::as_str))
                .map_err(|e| e.to_string())?;
            Ok(t)
        });
        let refused = match checked {
            Ok(t) => {
                let errors = self.feed(vec![json!({"op": "swap", "now_ms": now, "document": t.clone()})])?;
                if errors.is_empty() {
                    self.document = t;
                    None
                } else {
                    Some(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
                }
            }
            Err(e) => Some(e),
        };
        self.metrics.policy_reload(refused.is_none());
        match refused {
            None => {
                let version = document_version(&self.document);
                if let Some([sha, abi, _]) = self.metrics.policy_info() {
                    let info = retry_policy_host::ArtifactInfo { sha256: sha, abi, ..self.artifact.info() };
                    self.metrics.set_policy_info(&info, &version);
                }
                log(&format!("policy document reloaded: version {version}"));
            }
            Some(e) => log(&format!("policy document refused, the current one is kept: {e}")),
        }
        Ok(())
    }

    /// A swap the watcher made: log it, show it, and say whether the old
    /// engine must now drain (not when it already drains for an earlier swap).
    pub(super) fn swapped(&mut self, sw: &Swapped) -> bool {
        if let (true, Some(d)) = (self.config.document_from_artifact, &sw.new.document_json) {
            self.document = d.clone();
            self.metrics.policy_reload(true);
        }
        let version = document_version(&self.document);
        log(&Swapped { new: with_document_version(&sw.new, &version), ..sw.clone() }.line());
        self.metrics.set_policy_info(&sw.new, &version);
        let draining = self.swap_to.is_some();
        self.swap_to = Some(self.artifact.current());
        self.generation = self.artifact.generation();
        !draining
    }

    /// The old engine has drained: its snapshot into a new engine on the
    /// new artifact (on any failure there, into a new engine of the old
    /// instance, so nothing is lost).
    pub(super) fn migrate(&mut self) -> Result<(), String> {
        let Some(engine) = self.swap_to.take() else { return Ok(()) };
        let now = self.now();
        self.feed(vec![json!({"op": "snapshot", "now_ms": now})])?;
        let snapshot = self.snapshot.take().ok_or("the drained engine gave no snapshot")?;
        let old = self.handle;
        let (memory, journal) = (self.redis.is_none(), self.journal.is_some());
        let next = instantiate(&engine).and_then(|mut inst| {
            let handle = open_engine(&mut inst, &self.document, &self.config, memory, journal)?;
            Ok((inst, handle))
        });
        match next {
            Ok((inst, handle)) => {
                let _ = self.inst.engine_close(old);
                self.inst = inst;
                self.handle = handle;
            }
            Err(e) => {
                log(&format!("the new artifact's engine cannot start ({e}): going on with the old artifact"));
                self.handle = open_engine(&mut self.inst, &self.document, &self.config, memory, journal)?;
                let _ = self.inst.engine_close(old);
            }
        }
        self.drained = false;
        let out = self
            .cross(|inst, h| inst.engine_resume(h, now, snapshot.as_bytes()))
            .map_err(|e| format!("policy artifact: {e}"))?;
        // The snapshot itself is not appended (the journal holds those
        // events already); what the new engine then writes is.
        self.migrating = true;
        let acted = out.map_err(|e| format!("snapshot: {}", refusal_text(&e))).and_then(|a| self.act(&a));
        self.migrating = false;
        match acted?.first() {
            Some(e) => Err(format!("the new engine refused the old one's snapshot: {e}")),
            None => Ok(()),
        }
    }
}
