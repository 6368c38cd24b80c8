//! The in-memory budget store: core's `InMemoryCounter` behind the same
//! `read` / `recordAttempt` interface a JS (or Redis) store implements.

use retry_policy_core::codec::Fields;
use retry_policy_core::{BudgetCounter, BudgetCounts, InMemoryCounter, PolicyError};
use retry_policy_core::json::Value;
use wasm_bindgen::prelude::*;

use crate::args::args;
use crate::convert::{obj, to_js};
use crate::errors::OrThrow;

#[wasm_bindgen]
#[derive(Default)]
pub struct MemoryCounter {
    inner: InMemoryCounter,
}

fn key(endpoint_id: &JsValue, window_ms: &JsValue, bucket: &JsValue) -> Result<(String, u64, u64), PolicyError> {
    let v = args(&[("endpoint_id", endpoint_id), ("window_ms", window_ms), ("bucket", bucket)])?;
    let f = Fields::new(&v, &["endpoint_id", "window_ms", "bucket"])?;
    Ok((f.str("endpoint_id")?.to_string(), f.u64("window_ms")?, f.u64("bucket")?))
}

fn counts_to_value(c: &BudgetCounts) -> Value {
    let bucket = |b: &retry_policy_core::BucketCounts| obj([("total", b.total.into()), ("retries", b.retries.into())]);
    obj([("current", bucket(&c.current)), ("previous", bucket(&c.previous))])
}

#[wasm_bindgen]
impl MemoryCounter {
    #[wasm_bindgen(constructor)]
    pub fn new() -> MemoryCounter {
        MemoryCounter::default()
    }

    /// Counts of `bucket` and `bucket - 1` for the endpoint.
    pub fn read(&mut self, endpoint_id: JsValue, window_ms: JsValue, bucket: JsValue) -> Result<JsValue, JsValue> {
        let mut run = || {
            let (endpoint, window_ms, bucket) = key(&endpoint_id, &window_ms, &bucket)?;
            let Ok(counts) = self.inner.read(&endpoint, window_ms, bucket);
            Ok(to_js(&counts_to_value(&counts)))
        };
        run().or_throw()
    }

    /// Count one attempt in `bucket` (and one retry if `is_retry`).
    #[wasm_bindgen(js_name = recordAttempt)]
    pub fn record_attempt(
        &mut self,
        endpoint_id: JsValue,
        window_ms: JsValue,
        bucket: JsValue,
        is_retry: JsValue,
    ) -> Result<(), JsValue> {
        let mut run = || {
            let (endpoint, window_ms, bucket) = key(&endpoint_id, &window_ms, &bucket)?;
            let v = args(&[("is_retry", &is_retry)])?;
            let is_retry = Fields::new(&v, &["is_retry"])?.bool("is_retry")?;
            let Ok(()) = self.inner.record(&endpoint, window_ms, bucket, is_retry);
            Ok(())
        };
        run().or_throw()
    }
}
