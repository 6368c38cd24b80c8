//! The one error type. Every variant of [`ErrorCode`] is a code of the
//! conformance contract (SPEC.md) or of the policy document format, spelled
//! the same way in every host (`invalid_backoff`, ...).

use alloc::string::String;
use core::fmt;

/// Why an input was refused. Stable, machine-readable; `as_str` gives the
/// snake_case code every host reports.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// `base_ms`, `factor`, `cap_ms` or `jitter` out of range or unknown.
    InvalidBackoff,
    /// `hard_cap` outside `1..=100`.
    InvalidHardCap,
    /// `window_ms` above 30 days.
    InvalidWindow,
    /// `ratio` outside `(0, 1]` or budget `window_ms` of 0.
    InvalidBudget,
    /// `attempt` of 0 (where 1-based), `max_attempts` outside `1..=100`.
    InvalidState,
    /// HTTP status outside `100..=599`.
    InvalidStatus,
    /// A value of the wrong shape or type (missing field, unknown field,
    /// string where a number belongs, number out of range, bad syntax).
    InvalidInput,
    /// A policy document that is malformed or inconsistent.
    InvalidDocument,
    /// `admit` asked for an event class the document does not define.
    UnknownEventClass,
    /// `delay` asked for a retry index above 99 (bounded work, format 2).
    InvalidRetryIndex,
    /// A policy document longer than [`crate::document::MAX_DOCUMENT_BYTES`].
    DocumentTooLarge,
}

impl ErrorCode {
    /// The snake_case code, as in SPEC.md.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidBackoff => "invalid_backoff",
            ErrorCode::InvalidHardCap => "invalid_hard_cap",
            ErrorCode::InvalidWindow => "invalid_window",
            ErrorCode::InvalidBudget => "invalid_budget",
            ErrorCode::InvalidState => "invalid_state",
            ErrorCode::InvalidStatus => "invalid_status",
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::InvalidDocument => "invalid_document",
            ErrorCode::UnknownEventClass => "unknown_event_class",
            ErrorCode::InvalidRetryIndex => "invalid_retry_index",
            ErrorCode::DocumentTooLarge => "document_too_large",
        }
    }

    /// Every code, in declaration order.
    pub const ALL: [ErrorCode; 11] = [
        ErrorCode::InvalidBackoff,
        ErrorCode::InvalidHardCap,
        ErrorCode::InvalidWindow,
        ErrorCode::InvalidBudget,
        ErrorCode::InvalidState,
        ErrorCode::InvalidStatus,
        ErrorCode::InvalidInput,
        ErrorCode::InvalidDocument,
        ErrorCode::UnknownEventClass,
        ErrorCode::InvalidRetryIndex,
        ErrorCode::DocumentTooLarge,
    ];

    /// Parse a snake_case code.
    pub fn parse(code: &str) -> Option<ErrorCode> {
        Self::ALL.iter().copied().find(|c| c.as_str() == code)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refused input: the code, the offending field (a dotted path such as
/// `policy.backoff.factor`, empty when the whole value is at fault) and a
/// sentence for humans. These are "never" errors: the same input is refused
/// the same way every time. "Not now" (the budget store is down) is not an
/// error but a decision, `StopReason::BudgetUnavailable`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    pub code: ErrorCode,
    pub field: String,
    pub message: String,
}

impl PolicyError {
    pub fn new(code: ErrorCode, field: impl Into<String>, message: impl Into<String>) -> Self {
        PolicyError { code, field: field.into(), message: message.into() }
    }

    /// Prefix the field path with `outer` (`backoff.base_ms` becomes
    /// `policy.backoff.base_ms`).
    pub fn within(mut self, outer: &str) -> Self {
        self.field = if self.field.is_empty() {
            String::from(outer)
        } else if self.field.starts_with('[') {
            crate::text::cat(&[outer, &self.field])
        } else {
            crate::text::cat(&[outer, ".", &self.field])
        };
        self
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.code, self.message)
        } else {
            write!(f, "{} at `{}`: {}", self.code, self.field, self.message)
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for PolicyError {}
