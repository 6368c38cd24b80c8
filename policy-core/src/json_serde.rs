//! `Serialize`/`Deserialize` for [`crate::json::Value`] (feature `serde`).

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::json::Value;

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(n) => s.serialize_u64(*n),
            Value::NegInt(n) => s.serialize_i64(*n),
            Value::Float(f) => s.serialize_f64(*f),
            Value::String(t) => s.serialize_str(t),
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Int(n))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(if n >= 0 { Value::Int(n as u64) } else { Value::NegInt(n) })
    }
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        // Same reading as the JSON text parser: zero (either sign) is the
        // integer 0; NaN and infinities (from JavaScript, or a TOML `inf`)
        // are kept, so the field they land in refuses them with its own code
        // (`factor: Infinity` is `invalid_backoff` on every path).
        Ok(if f == 0.0 { Value::Int(0) } else { Value::Float(f) })
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(String::from(s)))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members: Vec<(String, Value)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Value>()? {
            members.push((k, v));
        }
        if let Some(k) = crate::json::duplicate_key(&members) {
            return Err(de::Error::custom(alloc::format!("duplicate key `{k}`")));
        }
        Ok(Value::Object(members))
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}
