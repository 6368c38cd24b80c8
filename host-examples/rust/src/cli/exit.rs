//! The `retry-policy` exit-code rule, one for every command:
//!
//! * 0: done (`lint`: no error; `diff`: no class changes);
//! * 1: a finding or a refusal: lint errors, diff changes, a document,
//!   value or artifact the component refuses (its code and field), a bundle
//!   refused for lint errors;
//! * 2: a usage error or unreadable input: an unknown command or flag, a
//!   missing or malformed flag or argument, a file that cannot be read or
//!   is not JSON/TOML.

use std::fmt;
use std::process::ExitCode;

use crate::{ArtifactError, HostError};

/// The rule as `--help` and the README state it.
pub const EXIT_STATUS: &str = "Exit status: 0 done (lint: no errors; diff: no class changes); \
1 a finding or a refusal (lint errors, diff changes, a document, value or artifact the component refuses, \
a bundle refused for lint errors); 2 a usage error or unreadable input (an unknown command or flag, a missing \
or malformed flag or argument, a file that cannot be read or is not JSON/TOML).";

/// Why a command failed, and so its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A finding or a refusal: exit 1.
    Refused(String),
    /// A usage error or unreadable input: exit 2.
    Usage(String),
}

impl Failure {
    pub fn code(&self) -> u8 {
        match self {
            Failure::Refused(_) => 1,
            Failure::Usage(_) => 2,
        }
    }

    /// The message, prefixed by `context` (`PATH: ...`).
    pub fn within(self, context: &str) -> Failure {
        match self {
            Failure::Refused(m) => Failure::Refused(format!("{context}: {m}")),
            Failure::Usage(m) => Failure::Usage(format!("{context}: {m}")),
        }
    }

    /// `error: MESSAGE` on stderr, and the exit code.
    pub fn report(&self) -> ExitCode {
        eprintln!("error: {self}");
        ExitCode::from(self.code())
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Refused(m) | Failure::Usage(m) => f.write_str(m),
        }
    }
}

/// A missing or malformed flag or argument.
pub fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

/// An artifact that cannot be read is unreadable input (2); one that is
/// read and refused (not a component, a sha256 pin, an ABI, ...) is a refusal (1).
impl From<ArtifactError> for Failure {
    fn from(e: ArtifactError) -> Failure {
        match e {
            ArtifactError::Unreadable { .. } => Failure::Usage(e.to_string()),
            other => Failure::Refused(other.to_string()),
        }
    }
}

/// The component's refusal (its code and field), a refused artifact, or a
/// failed call: exit 1.
impl From<HostError> for Failure {
    fn from(e: HostError) -> Failure {
        match e {
            HostError::Artifact(a) => a.into(),
            other => Failure::Refused(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_errors_and_unreadable_input_exit_2_and_refusals_exit_1() {
        assert_eq!(usage("missing --base").code(), 2);
        let unreadable = ArtifactError::Unreadable { path: "x".into(), reason: "no such file".into() };
        assert_eq!(Failure::from(unreadable).code(), 2);
        let invalid = ArtifactError::Invalid { reason: "not a component".into(), offset: None };
        assert_eq!(Failure::from(invalid).code(), 1);
        let refused =
            retry_policy_core::PolicyError::new(retry_policy_core::ErrorCode::InvalidBackoff, "backoff.factor", "m");
        assert_eq!(Failure::from(HostError::Policy(refused)).code(), 1);
    }

    #[test]
    fn a_failure_keeps_its_code_when_its_message_gains_a_context() {
        assert_eq!(usage("m").within("p.json"), Failure::Usage("p.json: m".into()));
        assert_eq!(Failure::Refused("m".into()).within("p").code(), 1);
    }
}
