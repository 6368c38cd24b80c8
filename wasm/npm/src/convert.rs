//! JavaScript values <-> `retry_policy_core::json::Value`.
//!
//! Inbound, serde-wasm-bindgen walks the JS value and a path-tracking seed
//! builds the `Value`, refusing what JSON cannot hold (NaN, ±Infinity,
//! functions, symbols, bytes, BigInts outside 64 bits, nesting deeper than
//! [`MAX_DEPTH`]) with `invalid_input` and the field's path. Everything else
//! (missing/unknown fields, wrong types, ranges) is left to
//! `retry_policy_core::codec`, so the checks exist once.
//!
//! Outbound, integers up to 2^53-1 become numbers and larger ones BigInts
//! (exact either way), objects become plain objects.

use std::cell::RefCell;
use std::fmt;

use js_sys::{Array, BigInt, Object, Reflect};
use retry_policy_core::{ErrorCode, PolicyError};
use retry_policy_core::json::Value;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use wasm_bindgen::{JsCast, JsValue};

/// Deepest nesting accepted (policy inputs are at most 3 levels deep).
pub const MAX_DEPTH: usize = 32;
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

thread_local! {
    /// Path of the innermost value whose conversion failed.
    static ERROR_PATH: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

struct Seed {
    path: String,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Seed {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if self.depth > MAX_DEPTH {
            ERROR_PATH.with(|p| {
                p.borrow_mut().get_or_insert(self.path);
            });
            return Err(de::Error::custom(format!("nested deeper than {MAX_DEPTH} levels")));
        }
        let path = self.path.clone();
        d.deserialize_any(Build(self)).map_err(|e| {
            // The innermost failing value names the path; outer ones keep it.
            ERROR_PATH.with(|p| {
                p.borrow_mut().get_or_insert(path);
            });
            e
        })
    }
}

struct Build(Seed);

impl<'de> Visitor<'de> for Build {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON-like data (null, boolean, finite number, string, array, plain object)")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(if v >= 0 { Value::Int(v as u64) } else { Value::NegInt(v) })
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        if v.is_finite() {
            Ok(Value::Float(v))
        } else {
            let got = if v.is_nan() { "NaN" } else if v > 0.0 { "Infinity" } else { "-Infinity" };
            Err(E::custom(format_args!("expected a finite number, got {got}")))
        }
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        loop {
            let seed = Seed { path: format!("{}[{}]", self.0.path, items.len()), depth: self.0.depth + 1 };
            match seq.next_element_seed(seed)? {
                Some(v) => items.push(v),
                None => return Ok(Value::Array(items)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out: Vec<(String, Value)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let seed = Seed { path: child(&self.0.path, &key), depth: self.0.depth + 1 };
            let v = map.next_value_seed(seed)?;
            // A JS Map can repeat a key only through distinct key objects
            // that stringify alike; refuse rather than pick one.
            if out.iter().any(|(k, _)| *k == key) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            out.push((key, v));
        }
        Ok(Value::Object(out))
    }
}

/// Convert argument `name` (`""` for a whole value) to a `Value`.
pub fn from_js(value: &JsValue, name: &str) -> Result<Value, PolicyError> {
    ERROR_PATH.with(|p| p.borrow_mut().take());
    let d = serde_wasm_bindgen::Deserializer::from(value.clone());
    Seed { path: name.to_string(), depth: 0 }.deserialize(d).map_err(|e| {
        let field = ERROR_PATH.with(|p| p.borrow_mut().take()).unwrap_or_else(|| name.to_string());
        // serde-wasm-bindgen errors are JS `Error`s: keep just their message.
        let e = JsValue::from(e);
        let message = match e.dyn_ref::<js_sys::Error>() {
            Some(err) => String::from(err.message()),
            None => format!("{e:?}"),
        };
        PolicyError::new(ErrorCode::InvalidInput, field, message)
    })
}

/// Convert an output `Value` to plain JS data.
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

/// An object `Value` from `(key, value)` pairs.
pub fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}
