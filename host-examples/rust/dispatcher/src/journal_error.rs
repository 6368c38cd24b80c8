//! The journal file's errors (docs/journal.md, "Errors"): the host's own
//! (the lock's holder, the path and OS error). Errors of the lines
//! themselves (`journal_unsupported`, `journal_corrupt`,
//! `journal_record_invalid`) are the engine's, from its `resume`.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JournalError {
    /// Another live writer holds `<journal>.lock` (`journal_locked`).
    Locked { holder: String },
    /// The file system refused (`journal_io`).
    Io { path: String, error: String },
}

impl JournalError {
    /// The spec's error code.
    pub fn code(&self) -> &'static str {
        match self {
            JournalError::Locked { .. } => "journal_locked",
            JournalError::Io { .. } => "journal_io",
        }
    }

    pub(crate) fn io(path: &std::path::Path, e: impl fmt::Display) -> JournalError {
        JournalError::Io { path: path.display().to_string(), error: e.to_string() }
    }
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.code();
        match self {
            JournalError::Locked { holder } => write!(f, "{code}: the journal is held by {holder}"),
            JournalError::Io { path, error } => write!(f, "{code}: {path}: {error}"),
        }
    }
}

impl std::error::Error for JournalError {}

impl From<JournalError> for String {
    fn from(e: JournalError) -> String {
        e.to_string()
    }
}
