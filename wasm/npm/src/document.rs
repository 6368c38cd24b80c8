//! Policy documents (named event classes), decoded by
//! `retry_policy_core::document::PolicyDocument`.

use js_sys::Array;
use retry_policy_core::codec::Fields;
use retry_policy_core::document::{admission_to_value, PolicyDocument};
use retry_policy_core::{ErrorCode, PolicyError};
use wasm_bindgen::prelude::*;

use crate::convert::{from_js, to_js};
use crate::errors::OrThrow;
use crate::fast::{policy_to_value, CompiledPolicy};

#[wasm_bindgen]
pub struct Document {
    doc: PolicyDocument,
}

/// Shape errors in a document are `invalid_document`.
fn as_document_error(e: PolicyError) -> PolicyError {
    match e.code {
        ErrorCode::InvalidInput => PolicyError { code: ErrorCode::InvalidDocument, ..e },
        _ => e,
    }
}

#[wasm_bindgen]
impl Document {
    /// A document as a JS object, or as JSON text.
    #[wasm_bindgen(constructor)]
    pub fn new(document: JsValue) -> Result<Document, JsValue> {
        let run = || {
            let doc = match document.as_string() {
                Some(text) => PolicyDocument::from_json(&text)?,
                None => PolicyDocument::from_value(&from_js(&document).map_err(as_document_error)?)?,
            };
            Ok(Document { doc })
        };
        run().or_throw()
    }

    #[wasm_bindgen(getter)]
    pub fn version(&self) -> String {
        self.doc.version.clone()
    }

    /// Class names, sorted.
    #[wasm_bindgen(getter)]
    pub fn classes(&self) -> Array {
        self.doc.classes.iter().map(|(k, _)| JsValue::from_str(k)).collect()
    }

    /// The schedule a new event of `class` is admitted under at `now_ms`.
    /// `input`: `{class, now_ms}`.
    pub fn admit(&self, input: JsValue) -> Result<JsValue, JsValue> {
        let run = || {
            let v = from_js(&input)?;
            let f = Fields::new(&v, &["class", "now_ms"])?;
            let a = self.doc.admit(f.str("class")?, f.u64("now_ms")?)?;
            Ok(to_js(&admission_to_value(&a)))
        };
        run().or_throw()
    }

    /// The class's policy, compiled (`unknown_event_class` if undefined).
    pub fn compile(&self, class: &str) -> Result<CompiledPolicy, JsValue> {
        self.doc.class(class).map(|p| CompiledPolicy::from_policy(*p)).or_throw()
    }

    /// The class's policy in the contract's shape.
    pub fn policy(&self, class: &str) -> Result<JsValue, JsValue> {
        self.doc.class(class).map(|p| to_js(&policy_to_value(p))).or_throw()
    }
}
