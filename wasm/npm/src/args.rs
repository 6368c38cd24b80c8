//! Decoding exported functions' arguments: each JS argument becomes one
//! field of an object `Value`, so `retry_policy_core::codec` reads them with
//! its usual strictness and every error names the argument (`now_ms`,
//! `state.attempt`, `policy.backoff.factor`).

use retry_policy_core::codec::{self, Fields};
use retry_policy_core::{AttemptOutcome, BudgetCounts, DeliveryState, ErrorCode, PolicyError};
use retry_policy_core::json::Value;
use wasm_bindgen::JsValue;

use crate::convert::from_js;

/// The arguments as one object `{name: value, ...}`.
pub fn args(pairs: &[(&str, &JsValue)]) -> Result<Value, PolicyError> {
    let mut members = Vec::with_capacity(pairs.len());
    for (name, value) in pairs {
        members.push(((*name).to_string(), from_js(value, name)?));
    }
    Ok(Value::Object(members))
}

/// The field names of `pairs`, for `Fields::new`.
pub fn names<const N: usize>(pairs: &[(&'static str, &JsValue); N]) -> [&'static str; N] {
    pairs.map(|(name, _)| name)
}

pub fn state(f: &Fields) -> Result<DeliveryState, PolicyError> {
    f.nested("state", codec::state)
}

pub fn outcome(f: &Fields) -> Result<AttemptOutcome, PolicyError> {
    f.nested("outcome", codec::outcome)
}

/// `budget_counts`: an object, or `null` when the store could not be read.
/// `undefined` is refused: forgetting the argument must not read as "store
/// down".
pub fn budget_counts(raw: &JsValue, f: &Fields) -> Result<Option<BudgetCounts>, PolicyError> {
    if raw.is_undefined() {
        return Err(PolicyError::new(
            ErrorCode::InvalidInput,
            "budget_counts",
            "missing (pass null when the budget store could not be read)",
        ));
    }
    match f.opt("budget_counts") {
        Some(_) => f.nested("budget_counts", codec::budget_counts).map(Some),
        None => Ok(None),
    }
}
