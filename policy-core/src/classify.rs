//! Outcome classification, held as data: two status tables, one error-kind
//! table, and the fallbacks for everything else.

use crate::error::{ErrorCode, PolicyError};

/// What an attempt's outcome means for the event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutcomeClass {
    Success,
    Retryable,
    Terminal,
}

impl OutcomeClass {
    pub const fn as_str(self) -> &'static str {
        match self {
            OutcomeClass::Success => "success",
            OutcomeClass::Retryable => "retryable",
            OutcomeClass::Terminal => "terminal",
        }
    }
}

/// Statuses that are worth another attempt (transient by definition).
pub const RETRYABLE_STATUSES: [u16; 9] = [408, 425, 429, 500, 502, 503, 504, 507, 509];

/// Statuses that will fail identically on every attempt.
pub const TERMINAL_STATUSES: [u16; 13] = [400, 403, 404, 405, 406, 409, 410, 411, 413, 414, 415, 422, 451];

/// Transport failures that may succeed on another attempt. Every other kind
/// (`unsupported_protocol`, `invalid_url`, `too_many_redirects`, anything
/// never seen) is terminal: unrecognised failures are never retried blind.
pub const RETRYABLE_ERROR_KINDS: [&str; 6] =
    ["connect_timeout", "read_timeout", "write_timeout", "pool_timeout", "connect_error", "remote_protocol_error"];

/// Every transport error kind a dispatcher may report (`fleet/transport-kinds.json`,
/// in its order): the closed label set of `webhook_transport_errors_total`.
/// The ones not in [`RETRYABLE_ERROR_KINDS`] are terminal.
pub const TRANSPORT_KINDS: [&str; 14] = [
    "connect_timeout",
    "read_timeout",
    "write_timeout",
    "pool_timeout",
    "connect_error",
    "remote_protocol_error",
    "unsupported_protocol",
    "invalid_url",
    "too_many_redirects",
    "destination_refused",
    "unexpected_status",
    "local_protocol_error",
    "tls_certificate",
    "credentials_unavailable",
];

/// Classify an HTTP status; `100..=599` only.
pub fn classify_status(status: u16) -> Result<OutcomeClass, PolicyError> {
    if !(100..=599).contains(&status) {
        return Err(PolicyError::new(
            ErrorCode::InvalidStatus,
            "status",
            crate::text::cat(&["HTTP status ", &crate::text::dec(status.into()), " is outside 100..=599"]),
        ));
    }
    Ok(if (200..=299).contains(&status) {
        OutcomeClass::Success
    } else if RETRYABLE_STATUSES.contains(&status) {
        OutcomeClass::Retryable
    } else if TERMINAL_STATUSES.contains(&status) {
        OutcomeClass::Terminal
    } else if (500..=599).contains(&status) {
        // Unknown 5xx: assume transient.
        OutcomeClass::Retryable
    } else {
        // Unknown 1xx/3xx/4xx: assume our fault, do not hammer.
        OutcomeClass::Terminal
    })
}

/// Classify a transport error kind (exact, case-sensitive names).
pub fn classify_error(error_kind: &str) -> OutcomeClass {
    if RETRYABLE_ERROR_KINDS.contains(&error_kind) {
        OutcomeClass::Retryable
    } else {
        OutcomeClass::Terminal
    }
}
