//! The journal's file I/O, and nothing else (docs/journal.md): the engine
//! writes every line (`journal` actions) and reads them back (`resume`);
//! this file opens `--store FILE` as its one writer ([`JournalLock`]),
//! hands its bytes to the engine, appends the engine's lines, syncs them
//! (one `fsync` per batch: group commit), cuts a torn tail when the
//! engine says so (`journal_truncate`) and replaces the file with the
//! engine's compacted text (`journal_compact`: `<journal>.compact`, fsync,
//! rename, fsync the directory; a leftover `.compact` is deleted at open).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::journal_error::JournalError;
use crate::journal_lock::{with_suffix, JournalLock};

/// An open journal: locked, appended to.
pub struct JournalFile {
    path: PathBuf,
    file: File,
    /// Lines appended since the last [`JournalFile::sync`].
    unsynced: bool,
    _lock: JournalLock,
}

impl JournalFile {
    /// Lock `path` (created with mode 0600 if missing: pending records hold
    /// the full target URL) and read its bytes for the engine's `resume`.
    pub fn open(path: &Path, now_ms: u64) -> Result<(JournalFile, Vec<u8>), JournalError> {
        let lock = JournalLock::acquire(path, now_ms)?;
        let io = |e: std::io::Error| JournalError::io(path, e);
        match std::fs::remove_file(with_suffix(path, ".compact")) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e)),
            _ => {}
        }
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        Ok((JournalFile { path: path.to_path_buf(), file, unsynced: false, _lock: lock }, bytes))
    }

    /// One of the engine's journal actions (`journal`, `journal_truncate`,
    /// `journal_compact`) done; any other action is not this file's.
    pub fn apply(&mut self, action: &serde_json::Value) -> Result<(), JournalError> {
        let text = |k: &str| action[k].as_str().unwrap_or_default();
        match action["action"].as_str() {
            Some("journal") => self.append(text("line")),
            Some("journal_truncate") => self.truncate(action["keep_bytes"].as_u64().unwrap_or(0)),
            Some("journal_compact") => self.compact(text("journal")),
            _ => Ok(()),
        }
    }

    /// Append one line as the engine wrote it (buffered by the OS until [`JournalFile::sync`]).
    pub fn append(&mut self, line: &str) -> Result<(), JournalError> {
        self.unsynced = true;
        self.file.write_all(line.as_bytes()).map_err(|e| JournalError::io(&self.path, e))
    }

    /// Make every appended line durable (nothing to do when none was).
    pub fn sync(&mut self) -> Result<(), JournalError> {
        if std::mem::take(&mut self.unsynced) {
            self.file.sync_data().map_err(|e| JournalError::io(&self.path, e))?;
        }
        Ok(())
    }

    /// Cut the file back to its first `keep_bytes` (a torn last line), durably.
    pub fn truncate(&mut self, keep_bytes: u64) -> Result<(), JournalError> {
        let io = |e: std::io::Error| JournalError::io(&self.path, e);
        self.file.set_len(keep_bytes).map_err(io)?;
        self.file.sync_all().map_err(io)
    }

    /// Replace the journal with `text` (the engine's compacted journal)
    /// durably; later lines are appended to the new file.
    pub fn compact(&mut self, text: &str) -> Result<(), JournalError> {
        let io = |e: std::io::Error| JournalError::io(&self.path, e);
        let tmp = with_suffix(&self.path, ".compact");
        let mut f = OpenOptions::new().create(true).truncate(true).write(true).mode(0o600).open(&tmp).map_err(io)?;
        f.write_all(text.as_bytes()).and_then(|()| f.sync_all()).map_err(io)?;
        std::fs::rename(&tmp, &self.path).map_err(io)?;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
        }
        self.file = OpenOptions::new().append(true).open(&self.path).map_err(io)?;
        self.unsynced = false;
        Ok(())
    }
}

/// Another run's journal, read only (`--resume FILE`).
pub fn read(path: &Path) -> Result<Vec<u8>, JournalError> {
    std::fs::read(path).map_err(|e| JournalError::io(path, e))
}
