//! Message building without `core::fmt`. Formatting machinery is a tenth of
//! a small wasm module; the policy's messages only ever need to join
//! strings and print integers, so they do it here.

use alloc::string::String;
use alloc::vec::Vec;

/// Concatenate `parts`.
pub fn cat(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

/// `items` joined by `", "`.
pub fn list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let mut s = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(item);
    }
    s
}

/// Decimal digits of `n`.
/// `n` in decimal, appended to `out`.
pub fn dec_into(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

pub fn dec(mut n: u64) -> String {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf[i..].iter().map(|&b| b as char).collect()
}

/// `n` as 16 lowercase hex digits.
pub fn hex16(n: u64) -> String {
    (0..16).rev().map(|i| char::from(b"0123456789abcdef"[((n >> (i * 4)) & 0xf) as usize])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_print_like_display() {
        for n in [0, 7, 10, 599, 65_536, u64::MAX] {
            assert_eq!(dec(n), alloc::format!("{n}"));
            assert_eq!(hex16(n), alloc::format!("{n:016x}"));
        }
    }

    #[test]
    fn lists_are_comma_separated() {
        assert_eq!(list(["a", "b", "c"]), "a, b, c");
        assert_eq!(list([]), "");
    }
}
