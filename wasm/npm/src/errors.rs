//! `PolicyError` -> a thrown JS `Error` named `PolicyError` carrying the
//! SPEC `code` and the `field` path. The package's JS layer rethrows it as
//! its own `PolicyError` class (so `instanceof` works).

use js_sys::{Error, Reflect};
use retry_policy_core::PolicyError;
use wasm_bindgen::JsValue;

pub fn to_js(e: PolicyError) -> JsValue {
    let err = Error::new(&e.message);
    err.set_name("PolicyError");
    // Setting data properties on a fresh Error object cannot fail.
    let _ = Reflect::set(&err, &"code".into(), &e.code.as_str().into());
    let _ = Reflect::set(&err, &"field".into(), &e.field.as_str().into());
    err.into()
}

/// `Result<T, PolicyError>` -> `Result<T, JsValue>` for exports.
pub trait OrThrow<T> {
    fn or_throw(self) -> Result<T, JsValue>;
}

impl<T> OrThrow<T> for Result<T, PolicyError> {
    fn or_throw(self) -> Result<T, JsValue> {
        self.map_err(to_js)
    }
}
