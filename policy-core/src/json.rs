//! A small JSON value and a strict JSON text parser. They exist so the
//! component can read policy documents without serde_json (which would more
//! than double the component's size); native code uses them too, so every
//! host accepts and refuses exactly the same documents. With the `serde`
//! feature, [`Value`] implements `Serialize`/`Deserialize`, so any serde
//! format (serde_json with exact float parsing, serde-wasm-bindgen for JS
//! objects) can produce it for [`crate::codec`].
//!
//! Strict RFC 8259 with nesting depth at most 32; duplicate keys are
//! refused. Numbers are read as every JSON parser reads them (correctly
//! rounded, `core`'s own `f64` parser, no digit limit). Parsing is linear in
//! the text's length (duplicate keys are found with a sorted set), and the
//! document format caps the text at 1 MiB before it gets here.

use crate::text::{cat, dec};
use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{ErrorCode, PolicyError};

/// A JSON value. Objects keep their members in document order.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// A non-negative integer.
    Int(u64),
    /// A negative integer.
    NegInt(i64),
    /// Any other number (infinite when the text's magnitude exceeds the doubles).
    Float(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// Member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A non-negative integer (an integral float below 2^53 counts: that is
    /// how JavaScript numbers arrive).
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::Int(n) => Some(n),
            Value::Float(f) if (0.0..9_007_199_254_740_992.0).contains(&f) && f == (f as u64) as f64 => Some(f as u64),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::Int(n) => Some(n as f64),
            Value::NegInt(n) => Some(n as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Int(n)
    }
}
impl From<u32> for Value {
    fn from(n: u32) -> Self {
        Value::Int(u64::from(n))
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(String::from(s))
    }
}

/// The deepest nesting a document may have: the outermost value is at depth
/// 0, and a value inside depth 32 (at depth 33) is refused. JSON text is
/// checked while parsing; values built another way (TOML, a JS object) by
/// [`too_deep`], so every path refuses the same documents the same way.
pub(crate) const MAX_DEPTH: usize = 32;

/// Whether some value inside `v` sits deeper than [`MAX_DEPTH`]. The walk
/// stops at depth 33, so its recursion is bounded whatever `v` holds.
pub(crate) fn too_deep(v: &Value) -> bool {
    fn at(v: &Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return true;
        }
        match v {
            Value::Array(items) => items.iter().any(|x| at(x, depth + 1)),
            Value::Object(members) => members.iter().any(|(_, x)| at(x, depth + 1)),
            _ => false,
        }
    }
    at(v, 0)
}

/// Parse JSON text into a value.
pub fn parse(text: &str) -> Result<Value, PolicyError> {
    let mut p = Parser { text, s: text.as_bytes(), i: 0 };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("unexpected text after the document"));
    }
    Ok(v)
}

/// A key that occurs twice in an object's members, found in O(n log n) by
/// sorting references (no copies), so many keys stay cheap.
pub(crate) fn duplicate_key(members: &[(String, Value)]) -> Option<&str> {
    // Up to 16 members (every engine input, most document sections) the
    // pairwise check needs no allocation and is faster than sorting: an
    // allocation and a sort were 2% of a native engine batch (callgrind).
    if members.len() <= 16 {
        // The smallest duplicated key, as the sort below finds.
        return members
            .iter()
            .enumerate()
            .filter(|(i, (k, _))| members[..*i].iter().any(|(j, _)| j == k))
            .map(|(_, (k, _))| k.as_str())
            .min();
    }
    let mut keys: Vec<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    keys.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

struct Parser<'a> {
    /// The text, for slicing strings out of it without checking UTF-8 again.
    text: &'a str,
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> PolicyError {
        let before = &self.s[..self.i.min(self.s.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        PolicyError::new(
            ErrorCode::InvalidDocument,
            "",
            cat(&["not valid JSON: ", what, " at line ", &dec(line as u64), " column ", &dec(col as u64)]),
        )
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        let rest = &self.s[self.i..];
        self.i += rest.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')).unwrap_or(rest.len());
    }

    fn eat(&mut self, b: u8) -> Result<(), PolicyError> {
        if self.peek() == Some(b) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.err(&cat(&["expected `", core::str::from_utf8(&[b]).unwrap_or("?"), "`"])))
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, PolicyError> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(self.err("unexpected character"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, PolicyError> {
        if depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("unexpected character")),
            None => Err(self.err("unexpected end of text")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, PolicyError> {
        self.eat(b'{')?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(Vec::new()));
        }
        // Room for 8 members at once: growing from nothing took two
        // allocations and a copy for an engine input's 5 to 7.
        let mut map: Vec<(String, Value)> = Vec::with_capacity(8);
        loop {
            self.ws();
            let key = self.string()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            let v = self.value(depth + 1)?;
            map.push((key, v));
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    if let Some(dup) = duplicate_key(&map) {
                        return Err(self.err(&cat(&["duplicate key `", dup, "`"])));
                    }
                    return Ok(Value::Object(map));
                }
                _ => return Err(self.err("expected `,` or `}`")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, PolicyError> {
        self.eat(b'[')?;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.err("expected `,` or `]`")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, PolicyError> {
        let digits = self.s.get(self.i..self.i + 4).ok_or_else(|| self.err("short \\u escape"))?;
        let mut n = 0;
        for &d in digits {
            n = n * 16 + (d as char).to_digit(16).ok_or_else(|| self.err("bad \\u escape"))?;
        }
        self.i += 4;
        Ok(n)
    }

    fn string(&mut self) -> Result<String, PolicyError> {
        self.eat(b'"')?;
        let mut out = String::new();
        loop {
            let start = self.i;
            let rest = &self.s[self.i..];
            self.i += rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(rest.len());
            // The input is a &str and we stopped at ASCII bytes (or its
            // end): both ends are character boundaries, so the slice is valid
            // UTF-8 without checking it again.
            out.push_str(self.text.get(start..self.i).ok_or_else(|| self.err("invalid UTF-8"))?);
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    let c = match self.peek().ok_or_else(|| self.err("unterminated string"))? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            self.i += 1;
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) {
                                if !self.s[self.i..].starts_with(b"\\u") {
                                    return Err(self.err("unpaired surrogate"));
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("unpaired surrogate"));
                                }
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                            } else {
                                hi
                            };
                            out.push(char::from_u32(code).ok_or_else(|| self.err("invalid \\u escape"))?);
                            continue;
                        }
                        _ => return Err(self.err("invalid escape")),
                    };
                    self.i += 1;
                    out.push(c);
                }
                Some(_) => return Err(self.err("control character in string")),
                None => return Err(self.err("unterminated string")),
            }
        }
    }

    fn digits(&mut self) -> &[u8] {
        let start = self.i;
        let rest = &self.s[start..];
        self.i += rest.iter().position(|b| !b.is_ascii_digit()).unwrap_or(rest.len());
        &self.s[start..self.i]
    }

    /// A number, read as every JSON parser reads it: the grammar of RFC 8259
    /// checked here, the value from `core`'s correctly rounded `f64`
    /// parser (linear in the number's length). Integers that fit a u64 are
    /// kept exact; `-0` is the integer 0 (its value, as in every parser that
    /// has integers). A magnitude beyond the doubles becomes an infinity,
    /// which every field that takes a number refuses as out of range.
    fn number(&mut self) -> Result<Value, PolicyError> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.i += 1;
        }
        let int_start = self.i;
        let int_len = self.digits().len();
        if int_len == 0 || (int_len > 1 && self.s[int_start] == b'0') {
            return Err(self.err("malformed number"));
        }
        let int_end = self.i;
        let mut integral = true;
        if self.peek() == Some(b'.') {
            self.i += 1;
            integral = false;
            if self.digits().is_empty() {
                return Err(self.err("malformed number"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            integral = false;
            if matches!(self.peek(), Some(b'-' | b'+')) {
                self.i += 1;
            }
            if self.digits().is_empty() {
                return Err(self.err("malformed exponent"));
            }
        }
        if integral {
            let mut n: u64 = 0;
            let exact = self.s[int_start..int_end]
                .iter()
                .try_for_each(|&d| {
                    n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
                    Some(())
                })
                .is_some();
            if exact {
                return Ok(match (negative, n) {
                    (_, 0) | (false, _) => Value::Int(n),
                    (true, n) => match i64::try_from(n) {
                        Ok(m) => Value::NegInt(-m),
                        Err(_) => Value::Float(-(n as f64)),
                    },
                });
            }
        }
        // The grammar above is a subset of what `f64::from_str` accepts, so
        // this cannot fail; the text is ASCII.
        let text = core::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("malformed number"))?;
        let x: f64 = text.parse().map_err(|_| self.err("malformed number"))?;
        Ok(if x == 0.0 { Value::Int(0) } else { Value::Float(x) })
    }
}
