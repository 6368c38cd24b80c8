//! One flag's value read by its [`Kind`]; an error names the flag and
//! quotes the value (a URL's user and password replaced by `***`).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;

use super::table::{Flag, Kind};
use crate::json::Value;
use crate::StopReason;

/// `text` as `flag`'s value in the answer.
pub fn read(flag: &Flag, text: &str) -> Result<Value, String> {
    let name = flag.name;
    let wrong = |want: &str| format!("{name}: expected {want}, got {}", quoted(&redacted(text)));
    Ok(match flag.kind {
        Kind::Switch => Value::Bool(true),
        Kind::Text | Kind::Path if text.is_empty() => return Err(format!("{name}: must not be empty")),
        Kind::Text | Kind::Path => Value::String(text.into()),
        Kind::Whole { min, max } => match whole(text) {
            Some(n) if (min..=max).contains(&n) => Value::Int(n),
            // A bound far past any use is named only when it was passed.
            n if max >= 1_000_000_000_000 && n.is_none_or(|n| n < min) => {
                return Err(wrong(&format!("a whole number >= {min}")))
            }
            _ => return Err(wrong(&format!("a whole number from {min} to {max}"))),
        },
        Kind::Signed { max } => match (text.strip_prefix('-'), whole(text.strip_prefix('-').unwrap_or(text))) {
            (None, Some(n)) if n <= max => Value::Int(n),
            (Some(_), Some(n)) if n <= max => Value::NegInt(-(n as i64)),
            _ => return Err(wrong(&format!("a whole number from -{max} to {max}"))),
        },
        Kind::Positive => match decimal(text) {
            Some(x) if x.is_finite() && x > 0.0 => Value::Float(x),
            _ => return Err(wrong("a finite number > 0")),
        },
        Kind::HttpUrl => match authority(text, &["http", "https"]) {
            Some(_) => Value::String(text.into()),
            None => return Err(wrong("an http:// or https:// URL with a host")),
        },
        Kind::RedisUrl => match authority(text, &["redis", "rediss"]) {
            Some(path) if path.is_empty() || path == "/" || whole(&path[1..]).is_some() => Value::String(text.into()),
            Some(_) => return Err(wrong("a database number as the path (HOST:PORT/DB)")),
            None => return Err(wrong("a redis:// or rediss:// URL with a host")),
        },
        Kind::HostPort => match host_port(text) {
            Some((host, port)) => {
                Value::Object(vec![("host".into(), Value::String(host)), ("port".into(), Value::Int(port.into()))])
            }
            None => return Err(wrong("HOST:PORT (e.g. 127.0.0.1:0, [::1]:9100)")),
        },
        Kind::StopReason => match StopReason::ALL.iter().find(|r| r.as_str() == text && **r != StopReason::Delivered) {
            Some(r) => Value::String(r.as_str().into()),
            None => return Err(wrong("the stop reason of a dead letter")),
        },
    })
}

/// `text` in double quotes, as JSON writes a string.
pub fn quoted(text: &str) -> String {
    crate::journal::json_text::to_text(&Value::String(text.into()))
}

/// Digits only (no sign, no spaces) as a u64.
fn whole(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A plain decimal (`12`, `0.5`, `.5`, `5.`, `1e3`): no sign but `+`, no `inf` or `nan`.
fn decimal(text: &str) -> Option<f64> {
    let t = text.strip_prefix('+').unwrap_or(text);
    if t.is_empty()
        || !t.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
        || t.starts_with('-')
    {
        return None;
    }
    // JSON's number reader (already in the artifact): JSON wants a digit on
    // both sides of a `.`, so `.5` and `5.` are padded with zeros.
    let mut padded = String::with_capacity(t.len() + 2);
    let mut prev = b'e';
    for b in t.bytes() {
        if b == b'.' && !prev.is_ascii_digit() {
            padded.push('0');
        }
        if prev == b'.' && !b.is_ascii_digit() {
            padded.push('0');
        }
        padded.push(b as char);
        prev = b;
    }
    if prev == b'.' {
        padded.push('0');
    }
    crate::json::parse(&padded).ok()?.as_f64()
}

/// The path after `scheme://authority` when the scheme (any case) is one
/// of `schemes` and the authority names a host; `None` otherwise.
fn authority<'a>(url: &'a str, schemes: &[&str]) -> Option<&'a str> {
    let (scheme, rest) = url.split_once(':')?;
    let rest = rest.strip_prefix("//")?;
    if !schemes.iter().any(|s| s.eq_ignore_ascii_case(scheme)) || url.bytes().any(|b| b <= b' ' || b >= 0x7f) {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split_once(']')?.0,
        None => host_port.split(':').next().unwrap_or(""),
    };
    if host.is_empty() {
        return None;
    }
    Some(tail.split(['?', '#']).next().unwrap_or(""))
}

/// `HOST:PORT` or `[IPv6]:PORT` (an empty HOST is 127.0.0.1).
fn host_port(text: &str) -> Option<(String, u16)> {
    let (host, port) = text.rsplit_once(':')?;
    let port = whole(port).filter(|p| *p <= 65535)? as u16;
    let host = match host.strip_prefix('[') {
        Some(v6) => {
            let v6 = v6.strip_suffix(']')?;
            if v6.is_empty() || !v6.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') {
                return None;
            }
            v6.to_string()
        }
        None if host.is_empty() => "127.0.0.1".into(),
        None if host.bytes().any(|b| b == b':' || b == b'[' || b == b']' || b <= b' ' || b >= 0x7f) => return None,
        None => host.into(),
    };
    Some((host, port))
}

/// `text` with a URL's user information (between `//` and `@`) and its
/// query (after `?`) as `***`: either may hold a secret.
fn redacted(text: &str) -> String {
    let start = text.find(':').map(|c| c + 1).filter(|&c| text[c..].starts_with("//")).map(|c| c + 2);
    let text: String = match (start, text.rfind('@')) {
        (Some(s), Some(at)) if at > s && !text[s..at].contains('/') => format!("{}***{}", &text[..s], &text[at..]),
        _ => text.into(),
    };
    match (start, text.find('?')) {
        (Some(_), Some(q)) => format!("{}?***", &text[..q]),
        _ => text,
    }
}
