//! # retry-policy-npm
//!
//! The webhook retry policy for Node, built with wasm-bindgen from the same
//! `retry-policy-core` as the WebAssembly component. This crate is the
//! Rust half of the npm package `@webhook/retry-policy`
//! (`host-examples/node`); its JS layer wraps these exports in the public,
//! typed API. No policy logic lives here: JS values are converted to
//! `serde_json::Value` (serde-wasm-bindgen), decoded by the core's strict
//! codec, decided by the core, and encoded in the contract's JSON shape.
//!
//! Nothing here panics on bad input: every refusal is a thrown
//! `PolicyError` (SPEC code + field path) and the module stays usable.

mod args;
mod compiled;
mod convert;
mod counter;
mod document;
mod errors;
mod pure;

use js_sys::Array;
use retry_policy_core::{ErrorCode, Jitter, OutcomeClass, StopReason, CONTRACT_FORMAT};
use wasm_bindgen::prelude::*;

pub use compiled::CompiledPolicy;
pub use counter::MemoryCounter;
pub use document::Document;
pub use pure::{budget_allows, classify_error, classify_status, decide, delay, plan};

/// Version of the decision contract (SPEC format) this build implements.
#[wasm_bindgen(js_name = contractFormat)]
pub fn contract_format() -> u32 {
    CONTRACT_FORMAT
}

/// The wasm memory, for reading `CompiledPolicy` result buffers.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

fn strings(names: impl Iterator<Item = &'static str>) -> Array {
    names.map(JsValue::from_str).collect()
}

/// Stop reasons in `StopReason::ALL` order (`decideFast` codes 1..=6).
#[wasm_bindgen(js_name = stopReasons)]
pub fn stop_reasons() -> Array {
    strings(StopReason::ALL.iter().map(|r| r.as_str()))
}

/// Every error code.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Array {
    strings(ErrorCode::ALL.iter().map(|c| c.as_str()))
}

/// Outcome classes.
#[wasm_bindgen(js_name = outcomeClasses)]
pub fn outcome_classes() -> Array {
    strings([OutcomeClass::Success, OutcomeClass::Retryable, OutcomeClass::Terminal].iter().map(|c| c.as_str()))
}

/// Jitter modes.
#[wasm_bindgen(js_name = jitterModes)]
pub fn jitter_modes() -> Array {
    strings([Jitter::None, Jitter::Full, Jitter::Equal].iter().map(|j| j.as_str()))
}

// Talc instead of the default dlmalloc: about 6 KiB smaller here (single-
// threaded wasm, memory grown on demand).
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
