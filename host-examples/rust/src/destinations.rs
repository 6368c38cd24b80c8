//! Where a webhook may go (docs/destinations.md), through the component:
//! the target URL read once (`read-target`) and each address judged
//! against the one table (`destination-refusal`). The host only resolves
//! names.

use crate::bindings::wit::Target;
use crate::engine::{HostError, PolicyInstance};

impl PolicyInstance {
    /// `read-target`: the URL's parts, or `code: sentence`.
    pub fn read_target(&mut self, url: &str) -> Result<Result<Target, String>, HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_read_target(s, url))
    }

    /// `destination-refusal`: the reason an address may not be a destination
    /// (`None`: it may), or `invalid_address: ...` for text that is not one.
    pub fn destination_refusal(&mut self, address: &str) -> Result<Result<Option<String>, String>, HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_destination_refusal(s, address))
    }
}
