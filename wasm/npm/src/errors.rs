//! Refusals as thrown JS `Error`s named `ToolError`, with a `code`:
//!
//! | code | when |
//! |---|---|
//! | `invalid_options` | the options object has an unknown key or a wrong type |
//! | `invalid_document` | a policy document is unreadable or the policy refuses it |
//! | `invalid_scenario` | a scenario is unreadable, inconsistent, or past the limits |
//! | `simulation_failed` | the engine refused a step (the message names the variant) |
//! | `chart_failed` | an SVG chart could not be drawn |

use js_sys::{Error, Reflect};
use wasm_bindgen::JsValue;

/// Why a tool gave no result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
}

impl ToolError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        ToolError { code, message: message.into() }
    }
}

impl From<ToolError> for JsValue {
    fn from(e: ToolError) -> JsValue {
        let err = Error::new(&e.message);
        err.set_name("ToolError");
        // Setting a data property on a fresh Error object cannot fail.
        let _ = Reflect::set(&err, &"code".into(), &e.code.into());
        err.into()
    }
}

/// `Result<T, String>` from policy-tools -> a `ToolError` with `code`.
pub trait Coded<T> {
    fn code(self, code: &'static str) -> Result<T, ToolError>;
}

impl<T, E: std::fmt::Display> Coded<T> for Result<T, E> {
    fn code(self, code: &'static str) -> Result<T, ToolError> {
        self.map_err(|e| ToolError::new(code, e.to_string()))
    }
}
