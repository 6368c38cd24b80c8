//! The delivery engine (docs/engine.md) through the component: open an
//! engine on a JSON config, feed it batches of inputs, take its actions.
//! One crossing per batch; the JSON is the engine's own wire
//! (`retry_policy_core::engine::wire`), so this file only moves strings.

use crate::engine::{HostError, PolicyInstance};

/// An engine's refusal: the engine's JSON `{"error", "message"}` text.
pub type EngineRefusal = String;

impl PolicyInstance {
    /// `engine-open`: a handle, or the engine's refusal.
    pub fn engine_open(&mut self, config: &str) -> Result<Result<u32, EngineRefusal>, HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_engine_open(s, config))
    }

    /// `engine-feed`: a JSON array of inputs in, `{"outputs", "errors", "timeout_ms"}` out.
    pub fn engine_feed(&mut self, handle: u32, inputs: &str) -> Result<Result<String, EngineRefusal>, HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_engine_feed(s, handle, inputs))
    }

    /// `engine-resume`: the journal's bytes (not necessarily UTF-8 at a torn tail).
    pub fn engine_resume(
        &mut self,
        handle: u32,
        now_ms: u64,
        journal: &[u8],
    ) -> Result<Result<String, EngineRefusal>, HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_engine_resume(s, handle, now_ms, journal))
    }

    /// `engine-close`.
    pub fn engine_close(&mut self, handle: u32) -> Result<(), HostError> {
        self.call(|b, s| b.webhook_retry_policy_policy().call_engine_close(s, handle))
    }
}
