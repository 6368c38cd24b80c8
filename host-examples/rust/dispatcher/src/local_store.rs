//! The in-process budget store (one budget per replica): what it holds per
//! endpoint and bucket width ([`HeldBuckets`]) under one mutex, and the
//! component's `store-apply` as the rule. No bucket arithmetic and no
//! judging here: the lock makes each request atomic, the component answers
//! it, and the store writes back what the component returns.

use std::collections::HashMap;
use std::sync::Mutex;

use retry_policy_core::{Budget, HeldBuckets, Reservation, StoreRequest};
use retry_policy_host::{HostError, PolicyInstance};

/// Held buckets by (endpoint id, bucket width).
#[derive(Debug, Default)]
pub struct LocalStore {
    held: Mutex<HashMap<(String, u64), HeldBuckets>>,
}

impl LocalStore {
    pub fn new() -> Self {
        Self::default()
    }

    /// Answer `request` atomically with the component's rule.
    pub fn call(
        &self,
        policy: &mut PolicyInstance,
        request: &StoreRequest,
        budget: &Budget,
        now_ms: u64,
    ) -> Result<Reservation, HostError> {
        let mut map = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let key = (request.endpoint_id.clone(), request.window_ms);
        let held = map.get(&key).copied().unwrap_or_default();
        let (reservation, next) = policy.store_apply(request, budget, now_ms, &held)?;
        map.insert(key, next);
        Ok(reservation)
    }

    /// What is held for one endpoint and width (tests, diagnostics).
    pub fn held(&self, endpoint_id: &str, window_ms: u64) -> HeldBuckets {
        let map = self.held.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&(endpoint_id.to_string(), window_ms)).copied().unwrap_or_default()
    }
}
