//! JavaScript values <-> `retry_policy_core::json::Value`.
//!
//! Inbound, serde-wasm-bindgen walks the JS value into the core's own
//! `Deserialize for Value` (the same reading as the JSON text parser: `-0`
//! is the integer 0; NaN and infinities are kept so the field they land in
//! refuses them with its own code). The package's JS layer has already
//! copied the value into plain data (`lib/snapshot.cjs`), so nothing
//! user-defined runs during the walk. Every check on the data (missing or
//! unknown fields, types, ranges) is `retry_policy_core::codec`'s.
//!
//! Outbound, integers up to 2^53-1 become numbers and larger ones BigInts
//! (exact either way), objects become plain objects.

use js_sys::{Array, BigInt, Object, Reflect};
use retry_policy_core::json::Value;
use retry_policy_core::{ErrorCode, PolicyError};
use wasm_bindgen::{JsCast, JsValue};

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A JS value as a `Value` (`invalid_input` for what JSON cannot hold).
pub fn from_js(value: &JsValue) -> Result<Value, PolicyError> {
    serde_wasm_bindgen::from_value(value.clone()).map_err(|e| {
        let e = JsValue::from(e);
        let message = match e.dyn_ref::<js_sys::Error>() {
            Some(err) => String::from(err.message()),
            None => format!("{e:?}"),
        };
        PolicyError::new(ErrorCode::InvalidInput, "", message)
    })
}

/// An output `Value` as plain JS data.
pub fn to_js(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Int(u) if *u <= MAX_SAFE_INTEGER => JsValue::from_f64(*u as f64),
        Value::Int(u) => BigInt::from(*u).into(),
        Value::NegInt(i) if i.unsigned_abs() <= MAX_SAFE_INTEGER => JsValue::from_f64(*i as f64),
        Value::NegInt(i) => BigInt::from(*i).into(),
        Value::Float(f) => JsValue::from_f64(*f),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => items.iter().map(to_js).collect::<Array>().into(),
        Value::Object(map) => {
            let obj = Object::new();
            for (k, v) in map {
                // Setting a data property on a fresh plain object cannot fail.
                let _ = Reflect::set(&obj, &JsValue::from_str(k), &to_js(v));
            }
            obj.into()
        }
    }
}
