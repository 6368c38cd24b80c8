//! The journal's errors (docs/journal.md, "Errors"): one variant per code of
//! the spec, each naming what the operator needs (the line, the field, the
//! lock's holder, the path and OS error).

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JournalError {
    /// No header, or `v` other than 1 (`journal_unsupported`).
    Unsupported { line: usize, why: String },
    /// A bad line before the last one (`journal_corrupt`).
    Corrupt { line: usize, why: String },
    /// A complete record that breaks the record table, or whose `policy`
    /// does not hash to its `policy_hash` (`journal_record_invalid`).
    RecordInvalid { line: usize, field: String, why: String },
    /// Another live writer holds `<journal>.lock` (`journal_locked`).
    Locked { holder: String },
    /// The file system refused (`journal_io`).
    Io { path: String, error: String },
}

impl JournalError {
    /// The spec's error code.
    pub fn code(&self) -> &'static str {
        match self {
            JournalError::Unsupported { .. } => "journal_unsupported",
            JournalError::Corrupt { .. } => "journal_corrupt",
            JournalError::RecordInvalid { .. } => "journal_record_invalid",
            JournalError::Locked { .. } => "journal_locked",
            JournalError::Io { .. } => "journal_io",
        }
    }

    /// The 1-based line the error is about, when it is about one.
    pub fn line(&self) -> Option<usize> {
        match self {
            JournalError::Unsupported { line, .. }
            | JournalError::Corrupt { line, .. }
            | JournalError::RecordInvalid { line, .. } => Some(*line),
            _ => None,
        }
    }

    pub(crate) fn io(path: &std::path::Path, e: impl fmt::Display) -> JournalError {
        JournalError::Io { path: path.display().to_string(), error: e.to_string() }
    }

    pub(crate) fn invalid(line: usize, field: &str, why: impl Into<String>) -> JournalError {
        JournalError::RecordInvalid { line, field: field.to_string(), why: why.into() }
    }
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = self.code();
        match self {
            JournalError::Unsupported { line, why } | JournalError::Corrupt { line, why } => {
                write!(f, "{code}: line {line}: {why}")
            }
            JournalError::RecordInvalid { line, field, why } => write!(f, "{code}: line {line}: `{field}`: {why}"),
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
