//! The engine's one error type: an input it refused, and why. A refused
//! input changes nothing: the engine keeps running with the state it had.

use alloc::string::String;
use core::fmt;

use crate::error::PolicyError;

/// Why [`super::Engine::handle`] refused an input.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum EngineError {
    /// An input's `now_ms` is earlier than an input already handled.
    TimeWentBackwards { now_ms: u64, last_ms: u64 },
    /// `admit` of an `event_id` the engine already holds (pending, held or dead-lettered).
    DuplicateEvent { event_id: String },
    /// A result or replay names an event the engine does not hold.
    UnknownEvent { event_id: String },
    /// A result for an attempt the engine did not ask for (or already settled).
    UnexpectedResult { event_id: String, attempt: u32 },
    /// A store reply for a call the engine did not make (or already settled).
    UnknownCall { call_id: u64 },
    /// `admit` after `drain`: the engine starts nothing new.
    Draining,
    /// `admit` while the engine holds `max_events` open events (back-pressure).
    Full { max_events: u64 },
    /// `admit` while the engine holds `max_open` open events (a host's
    /// concurrency: offer it again once an event stops).
    AtCapacity { max_open: u64 },
    /// `resume` after the engine admitted or replayed events.
    ResumeTooLate,
    /// `snapshot` while a send or a store call is out (drain first).
    Busy { in_flight: u32, calls: u64 },
    /// The journal could not be read (code and 1-based line as docs/journal.md).
    Journal { code: &'static str, line: u64, message: String },
    /// `admit` of a target URL that docs/destinations.md ("Reading a target
    /// URL") refuses: `reason` is its code (`invalid_url`, `userinfo`...).
    InvalidTarget { reason: &'static str, message: String },
    /// A field of the input is malformed (empty id, too long, out of range).
    InvalidInput { field: String, message: String },
    /// The policy refused the input (unknown class, bad status, bad document...).
    Policy(PolicyError),
}

impl EngineError {
    /// The snake_case code every host reports.
    pub fn code(&self) -> &'static str {
        match self {
            EngineError::TimeWentBackwards { .. } => "time_went_backwards",
            EngineError::DuplicateEvent { .. } => "duplicate_event",
            EngineError::UnknownEvent { .. } => "unknown_event",
            EngineError::UnexpectedResult { .. } => "unexpected_result",
            EngineError::UnknownCall { .. } => "unknown_call",
            EngineError::Draining => "draining",
            EngineError::Full { .. } => "engine_full",
            EngineError::AtCapacity { .. } => "at_capacity",
            EngineError::ResumeTooLate => "resume_too_late",
            EngineError::Busy { .. } => "engine_busy",
            EngineError::Journal { code, .. } => code,
            EngineError::InvalidTarget { .. } => "invalid_target",
            EngineError::InvalidInput { .. } => "invalid_input",
            EngineError::Policy(e) => e.code.as_str(),
        }
    }

    pub(crate) fn invalid(field: &str, message: &str) -> Self {
        EngineError::InvalidInput { field: String::from(field), message: String::from(message) }
    }
}

impl From<PolicyError> for EngineError {
    fn from(e: PolicyError) -> Self {
        EngineError::Policy(e)
    }
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::TimeWentBackwards { now_ms, last_ms } => {
                write!(f, "time_went_backwards: now_ms {now_ms} is before {last_ms}")
            }
            EngineError::DuplicateEvent { event_id } => write!(f, "duplicate_event: {event_id} is already admitted"),
            EngineError::UnknownEvent { event_id } => write!(f, "unknown_event: {event_id}"),
            EngineError::UnexpectedResult { event_id, attempt } => {
                write!(f, "unexpected_result: attempt {attempt} of {event_id} is not in flight")
            }
            EngineError::UnknownCall { call_id } => write!(f, "unknown_call: call {call_id} is not outstanding"),
            EngineError::Draining => f.write_str("draining: the engine admits nothing after drain"),
            EngineError::Full { max_events } => write!(f, "engine_full: {max_events} open events"),
            EngineError::AtCapacity { max_open } => write!(f, "at_capacity: {max_open} open events"),
            EngineError::ResumeTooLate => f.write_str("resume_too_late: resume comes before any admission or replay"),
            EngineError::Busy { in_flight, calls } => {
                write!(f, "engine_busy: {in_flight} events in flight, {calls} store calls out (drain first)")
            }
            EngineError::Journal { code, line, message } => write!(f, "{code} at line {line}: {message}"),
            EngineError::InvalidTarget { reason, message } => write!(f, "invalid_target: {reason}: {message}"),
            EngineError::InvalidInput { field, message } => write!(f, "invalid_input at {field}: {message}"),
            EngineError::Policy(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for EngineError {}
