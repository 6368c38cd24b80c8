//! The line: `<crc> <json>\n` (docs/journal.md, "The file"). `<crc>` is
//! CRC-32 (IEEE 802.3, zlib's `crc32`) of the JSON bytes exactly as
//! written, as 8 lowercase hex digits.
//!
//! Written here, four bytes at a time from four 1 KiB tables built at
//! compile time ("slicing by 4"), rather than with the `crc32fast` crate:
//! its tables added 16.6 KB to the component (measured in a wasm32
//! opt-level-z build); these add 3 KB. A byte at a time was 18% of the
//! engine's native time per delivered event (`examples/engine_cost`, two
//! ~900-byte lines per event); four at a time halves the CRC's share.

use alloc::string::String;

use crate::json::{self, Value};

use super::json_text::to_text;

/// The reflected polynomial 0xEDB88320's tables: `T[0][b]` is the CRC of
/// byte `b`; `T[k][b]` is that CRC carried through `k` more zero bytes, so
/// four table lookups advance the CRC by four bytes at once.
static T: [[u32; 256]; 4] = {
    let mut t = [[0u32; 256]; 4];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut k = 1;
        while k < 4 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            k += 1;
        }
        i += 1;
    }
    t
};

/// CRC-32 (IEEE 802.3) of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    let mut words = bytes.chunks_exact(4);
    for w in &mut words {
        let x = c ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        c = T[3][(x & 0xff) as usize]
            ^ T[2][((x >> 8) & 0xff) as usize]
            ^ T[1][((x >> 16) & 0xff) as usize]
            ^ T[0][(x >> 24) as usize];
    }
    for &b in words.remainder() {
        c = T[0][((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

pub(super) fn hex8(n: u32) -> [u8; 8] {
    let mut out = [0u8; 8];
    for (i, d) in out.iter_mut().enumerate() {
        *d = b"0123456789abcdef"[((n >> (28 - 4 * i)) & 0xf) as usize];
    }
    out
}

/// The whole line of `record`: `<crc> <json>\n`.
pub fn frame(record: &Value) -> String {
    let json = to_text(record);
    let mut line = String::with_capacity(json.len() + 10);
    line.extend(hex8(crc32(json.as_bytes())).iter().map(|&b| char::from(b)));
    line.push(' ');
    line.push_str(&json);
    line.push('\n');
    line
}

/// The JSON value of one line's content (its LF removed) whose CRC checks
/// out; `Err` says why it is not a good line (the caller decides whether
/// that is a torn tail, `journal_corrupt` or `journal_unsupported`).
pub fn unframe(content: &[u8]) -> Result<Value, String> {
    if content.len() < 10 || content[8] != b' ' {
        return Err(String::from("not `<crc> <json>`: 8 hex digits, a space, then JSON"));
    }
    let (hex, json) = (&content[..8], &content[9..]);
    let mut want: u32 = 0;
    for &b in hex {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => return Err(String::from("the CRC is not 8 lowercase hex digits")),
        };
        want = (want << 4) | u32::from(d);
    }
    if crc32(json) != want {
        return Err(String::from("the CRC does not match the line"));
    }
    let text = core::str::from_utf8(json).map_err(|_| String::from("not JSON: invalid UTF-8"))?;
    json::parse(text).map_err(|e| crate::text::cat(&["not JSON: ", &e.message]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crc_is_zlibs_crc32() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(&hex8(0x0a1b_2c3d), b"0a1b2c3d");
    }

    #[test]
    fn a_framed_record_unframes_to_itself() {
        let v = Value::Object(alloc::vec![("a".into(), Value::Int(1))]);
        let line = frame(&v);
        assert_eq!(line, alloc::format!("{:08x} {{\"a\":1}}\n", crc32(b"{\"a\":1}")));
        assert_eq!(unframe(line.trim_end().as_bytes()), Ok(v));
    }

    #[test]
    fn a_bad_crc_upper_case_hex_or_missing_space_is_not_a_line() {
        let good = frame(&Value::Null);
        let content = good.trim_end().as_bytes();
        let mut flipped = content.to_vec();
        flipped[0] = if flipped[0] == b'0' { b'1' } else { b'0' };
        assert!(unframe(&flipped).unwrap_err().contains("does not match"));
        let upper: alloc::vec::Vec<u8> = content.iter().map(u8::to_ascii_uppercase).collect();
        assert!(unframe(&upper).is_err());
        assert!(unframe(b"00000000{}").is_err());
        assert!(unframe(b"").is_err());
    }
}
