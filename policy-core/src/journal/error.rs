//! The journal's errors (docs/journal.md, "Errors"): a code of the spec,
//! the 1-based line it is about, the field it names (a dotted path such as
//! `policy.backoff.factor`, empty when the whole line is at fault) and a
//! sentence for the operator.

use alloc::string::String;
use core::fmt;

/// The spec's error codes. [`recover`](super::recover) gives the first
/// three; `journal_locked` and `journal_io` are the file's, reported by the
/// host that holds it, spelled here so every host spells them alike.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JournalErrorCode {
    /// No header, a header of another format, or a `v` other than 1 or 2.
    Unsupported,
    /// A line before the last that fails its CRC or is not JSON.
    Corrupt,
    /// A complete record that breaks the record table (the field named), or
    /// a `policy` that does not hash to its `policy_hash`.
    RecordInvalid,
    /// Another live writer holds `<journal>.lock`.
    Locked,
    /// The file system refused.
    Io,
}

impl JournalErrorCode {
    /// The snake_case code every host reports.
    pub const fn as_str(self) -> &'static str {
        match self {
            JournalErrorCode::Unsupported => "journal_unsupported",
            JournalErrorCode::Corrupt => "journal_corrupt",
            JournalErrorCode::RecordInvalid => "journal_record_invalid",
            JournalErrorCode::Locked => "journal_locked",
            JournalErrorCode::Io => "journal_io",
        }
    }
}

impl fmt::Display for JournalErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a journal was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JournalError {
    pub code: JournalErrorCode,
    /// 1-based line number (0: not about a line).
    pub line: u64,
    /// The record field at fault, as a dotted path (empty: the whole line).
    pub field: String,
    pub message: String,
}

impl JournalError {
    pub(crate) fn new(code: JournalErrorCode, line: u64, field: &str, message: impl Into<String>) -> Self {
        JournalError { code, line, field: String::from(field), message: message.into() }
    }

    pub(crate) fn unsupported(line: u64, message: impl Into<String>) -> Self {
        Self::new(JournalErrorCode::Unsupported, line, "", message)
    }

    pub(crate) fn corrupt(line: u64, message: impl Into<String>) -> Self {
        Self::new(JournalErrorCode::Corrupt, line, "", message)
    }

    pub(crate) fn invalid(line: u64, field: &str, message: impl Into<String>) -> Self {
        Self::new(JournalErrorCode::RecordInvalid, line, field, message)
    }
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: line {}", self.code, self.line)?;
        if !self.field.is_empty() {
            write!(f, ": `{}`", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for JournalError {}
