//! The in-process budget store (one budget per replica): what it holds per
//! endpoint and bucket width ([`HeldHealth`]: the budget's buckets and, for
//! format 3, the endpoint's health state) under one mutex, and the
//! component's rule: `store-apply` for 0.2's requests, `apply-call` for a
//! whole ABI 0.3 `store-call` (formats 2 and 3). No bucket arithmetic and
//! no judging here: the lock makes each call atomic, the component answers
//! it, and the store writes back what the component returns.

use std::collections::HashMap;
use std::sync::Mutex;

use retry_policy_core::compiled::{CallReply, StoreCall};
use retry_policy_core::health::HeldHealth;
use retry_policy_core::{Budget, HeldBuckets, Reservation, StoreRequest};
use retry_policy_host::{HostError, PolicyInstance};

/// What is held by (endpoint id, bucket width): the key `store-key` names.
#[derive(Debug, Default)]
pub struct LocalStore {
    held: Mutex<HashMap<(String, u64), HeldHealth>>,
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
        let (reservation, buckets) = policy.store_apply(request, budget, now_ms, &held.buckets)?;
        map.insert(key, HeldHealth { buckets, ..held });
        Ok(reservation)
    }

    /// Answer a whole `store-call` atomically: `apply-call` on the held value.
    pub fn call_whole(
        &self,
        policy: &mut PolicyInstance,
        call: &StoreCall,
        now_ms: u64,
    ) -> Result<CallReply, HostError> {
        let mut map = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let key = (call.endpoint_id.clone(), call.budget.window_ms);
        let held = map.get(&key).copied().unwrap_or_default();
        let (reply, next) = policy.apply_call(call, now_ms, &held)?;
        map.insert(key, next);
        Ok(reply)
    }

    /// What is held for one endpoint and width (tests, diagnostics).
    pub fn held(&self, endpoint_id: &str, window_ms: u64) -> HeldBuckets {
        self.held_health(endpoint_id, window_ms).buckets
    }

    /// The whole held value (buckets and health state) for one endpoint and width.
    pub fn held_health(&self, endpoint_id: &str, window_ms: u64) -> HeldHealth {
        let map = self.held.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&(endpoint_id.to_string(), window_ms)).copied().unwrap_or_default()
    }
}
