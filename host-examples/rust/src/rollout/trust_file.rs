//! The `--trust-key` file (docs/rollout.md, "Trust"): the host reads it,
//! the component parses it (`rollout-open`'s `trust_pem`).

use std::path::Path;

use retry_policy_core::rollout::MAX_TRUST_FILE_BYTES;

use super::RolloutError;
use crate::artifact::read::{read_regular, Unread};

/// The trust file's text: a regular file of at most
/// [`MAX_TRUST_FILE_BYTES`], opened without blocking (a fifo, a device or a
/// directory is refused unread), in UTF-8. Every refusal is
/// `rollout_trust_invalid`; whether the text holds keys is the component's
/// to say ([`super::Follower::open`]).
pub fn read_trust_file(path: &Path) -> Result<String, RolloutError> {
    let bytes = read_regular(path, MAX_TRUST_FILE_BYTES).map_err(|e| {
        RolloutError::TrustInvalid(match e {
            Unread::Unreadable(why) => format!("cannot read it: {why}"),
            Unread::TooLarge(_) => format!("more than {MAX_TRUST_FILE_BYTES} bytes"),
        })
    })?;
    String::from_utf8(bytes).map_err(|_| RolloutError::TrustInvalid("not UTF-8 text".into()))
}

#[cfg(test)]
#[path = "tests_trust_file.rs"]
mod tests;
