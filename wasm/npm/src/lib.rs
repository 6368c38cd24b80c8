//! # retry-policy-npm
//!
//! The webhook retry policy for Node, built with wasm-bindgen from the same
//! `retry-policy-core` as the WebAssembly component. This crate is the
//! Rust half of the npm package `@webhook/retry-policy`
//! (`host-examples/node`); its JS layer wraps these exports in the public,
//! typed API. No policy logic lives here:
//!
//! * `ops.rs`: the object path, one `run(op, input)` for every operation of
//!   the contract (vector input shape in, expect shape out, the core's
//!   codec decoding and encoding);
//! * `fast.rs`: a compiled policy and the scalar fast path of the step
//!   (evaluate, settle, decide, resume) and of the in-memory store;
//! * `document.rs`: policy documents (event classes, admission).
//!
//! Nothing here panics on bad input: every refusal is a thrown
//! `PolicyError` (the contract's code + the field path) and the module
//! stays usable.

mod convert;
mod document;
mod errors;
mod fast;
mod ops;

use js_sys::Array;
use retry_policy_core::{ErrorCode, Jitter, OutcomeClass, StopReason, StoreOp, CONTRACT_FORMAT};
use wasm_bindgen::prelude::*;

pub use document::Document;
pub use fast::CompiledPolicy;

/// Version of the decision contract (its format) this build implements.
#[wasm_bindgen(js_name = contractFormat)]
pub fn contract_format() -> u32 {
    CONTRACT_FORMAT
}

/// The wasm memory, for reading the fast path's result buffer.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

fn strings(names: impl Iterator<Item = &'static str>) -> Array {
    names.map(JsValue::from_str).collect()
}

/// Stop reasons in `StopReason::ALL` order (fast-path codes 2 + i).
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

/// Store ops in fast-path code order (1, 2, 3).
#[wasm_bindgen(js_name = storeOps)]
pub fn store_ops() -> Array {
    strings([StoreOp::Record, StoreOp::Reserve, StoreOp::RecordReserve].iter().map(|o| o.as_str()))
}

// Talc instead of the default dlmalloc: about 6 KiB smaller here (single-
// threaded wasm, memory grown on demand).
#[cfg(all(not(target_feature = "atomics"), target_family = "wasm"))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
