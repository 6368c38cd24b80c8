//! Why the host's side of the rollout refused (docs/rollout.md): the trust
//! file it reads, the publisher's key, and the component's own refusals of
//! what the host passed it. Refusals of records and artifacts are not
//! errors here: the component's follower reports them in its steps.

use std::fmt;

/// A refusal of the host's rollout side. [`RolloutError::code`] is the
/// document's code; the message says what was expected and what was found.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RolloutError {
    /// `rollout_trust_invalid`: the trust file is unreadable (not a regular
    /// file, over 1 MiB, not UTF-8), or the component found no Ed25519 key in it.
    TrustInvalid(String),
    /// `rollout_key_invalid`: the publisher's private key is not a PKCS#8 PEM Ed25519 key.
    KeyInvalid(String),
    /// `rollout_input_invalid`: the component refused what the host passed
    /// (a config or an input; a host bug). The host's state text is unchanged.
    InputInvalid(String),
    /// The component could not be instantiated, or it trapped (the host's
    /// own code `rollout_component_failed`, not one of docs/rollout.md's:
    /// no input causes it).
    Component(String),
}

impl RolloutError {
    /// The code of docs/rollout.md (the host's own for [`RolloutError::Component`]).
    pub fn code(&self) -> &'static str {
        match self {
            RolloutError::TrustInvalid(_) => "rollout_trust_invalid",
            RolloutError::KeyInvalid(_) => "rollout_key_invalid",
            RolloutError::InputInvalid(_) => "rollout_input_invalid",
            RolloutError::Component(_) => "rollout_component_failed",
        }
    }

    /// The message alone, without the code.
    pub fn message(&self) -> &str {
        match self {
            RolloutError::TrustInvalid(m)
            | RolloutError::KeyInvalid(m)
            | RolloutError::InputInvalid(m)
            | RolloutError::Component(m) => m,
        }
    }

    /// The component's error text `<code>: <sentence>` as a typed error.
    pub(crate) fn from_component(text: &str) -> RolloutError {
        match text.split_once(": ") {
            Some(("rollout_trust_invalid", m)) => RolloutError::TrustInvalid(m.to_string()),
            Some(("rollout_input_invalid", m)) => RolloutError::InputInvalid(m.to_string()),
            _ => RolloutError::InputInvalid(text.to_string()),
        }
    }
}

impl fmt::Display for RolloutError {
    /// `<code>: <message>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for RolloutError {}
