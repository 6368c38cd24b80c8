//! A webhook target URL, read once (docs/destinations.md, "Reading a
//! target URL"). A deliberately small reader: `http` and `https` only, no
//! user info, ASCII only (a customer's URL percent-encodes its path and
//! spells an international name in punycode), and a host that *ends in a
//! number* read as an IPv4 address the way browsers and WHATWG URL readers
//! do (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1` are all
//! 127.0.0.1), so no host mistakes one for a name to look up.

use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;
use core::net::{Ipv4Addr, Ipv6Addr};

/// The longest target accepted (bytes), as the engine's `admit`.
pub const MAX_TARGET_BYTES: usize = 8192;

/// A target URL, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// `http` or `https`.
    pub scheme: &'static str,
    /// The host to connect to: a lowercase name, or the canonical text of
    /// an IP literal (IPv4 dotted decimal; IPv6 without brackets).
    pub host: String,
    /// The explicit port, else 80 or 443.
    pub port: u16,
    /// The path and query (`/` at least); the fragment is never sent.
    pub path: String,
    /// The address when the host is an IP literal (no lookup: connect to it).
    pub address: Option<String>,
}

impl Target {
    /// The URL a host sends to, spelled one way: `scheme://host[:port]path`,
    /// the host lowercase or the IP literal's canonical text (IPv6 in
    /// brackets), the port only when it is not the scheme's default, no
    /// fragment. `http://127.1/x#f` is `http://127.0.0.1/x`, so every
    /// host's HTTP client connects to the address the table judges.
    pub fn url(&self) -> String {
        // Pushed piece by piece, not `format!`: a third of reading a target.
        let mut url = String::with_capacity(self.scheme.len() + self.host.len() + self.path.len() + 11);
        url.push_str(self.scheme);
        url.push_str("://");
        let bracket = self.host.contains(':');
        if bracket {
            url.push('[');
        }
        url.push_str(&self.host);
        if bracket {
            url.push(']');
        }
        if self.port != if self.scheme == "https" { 443 } else { 80 } {
            url.push(':');
            url.push_str(&crate::text::dec(u64::from(self.port)));
        }
        url.push_str(&self.path);
        url
    }
}

/// Why a target URL was refused: a code (`invalid_url`,
/// `unsupported_scheme`, `userinfo`, `invalid_host`, `invalid_port`, and
/// `invalid_address` from [`super::refusal_of`]) and a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError {
    pub code: &'static str,
    pub message: String,
}

impl TargetError {
    pub(crate) fn new(code: &'static str, message: &str) -> Self {
        TargetError { code, message: message.to_string() }
    }
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

fn err(code: &'static str, message: &str) -> Result<Target, TargetError> {
    Err(TargetError::new(code, message))
}

/// Read `url` (the rules of docs/destinations.md, in order).
pub fn read_target(url: &str) -> Result<Target, TargetError> {
    if url.len() > MAX_TARGET_BYTES {
        return err("invalid_url", "longer than 8192 bytes");
    }
    if let Some(b) = url.bytes().find(|b| *b <= b' ' || *b >= 0x7f) {
        return Err(TargetError {
            code: "invalid_url",
            message: format!("byte 0x{b:02x} (space, control or non-ASCII)"),
        });
    }
    let Some((scheme, rest)) = url.split_once(':') else { return err("invalid_url", "no scheme") };
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "http" => "http",
        "https" => "https",
        _ => return err("unsupported_scheme", "the scheme is not http or https"),
    };
    let Some(rest) = rest.strip_prefix("//") else { return err("invalid_url", "no // after the scheme") };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    if authority.contains('@') {
        return err("userinfo", "a user name or password in the URL");
    }
    if authority.contains('\\') {
        return err("invalid_host", "a backslash in the host");
    }
    let (host, port, address) = host_and_port(authority)?;
    let port = match port {
        None => {
            if scheme == "https" {
                443
            } else {
                80
            }
        }
        Some(p) => p,
    };
    let without_fragment = tail.split('#').next().unwrap_or("");
    let path =
        if without_fragment.starts_with('/') { without_fragment.to_string() } else { format!("/{without_fragment}") };
    Ok(Target { scheme, host, port, path, address })
}

type HostPort = (String, Option<u16>, Option<String>);

fn host_and_port(authority: &str) -> Result<HostPort, TargetError> {
    if let Some(inner) = authority.strip_prefix('[') {
        let Some((v6, after)) = inner.split_once(']') else { return Err(TargetError::new("invalid_host", "no ]")) };
        let a: Ipv6Addr = v6.parse().map_err(|_| TargetError::new("invalid_host", "not an IPv6 address"))?;
        let port = match after {
            "" => None,
            p => port(p.strip_prefix(':').ok_or_else(|| TargetError::new("invalid_host", "text after ]"))?)?,
        };
        let text = a.to_string();
        return Ok((text.clone(), port, Some(text)));
    }
    let (host, port) = match authority.rsplit_once(':') {
        Some((h, p)) => (h, port(p)?),
        None => (authority, None),
    };
    if host.is_empty() {
        return Err(TargetError::new("invalid_host", "empty host"));
    }
    if host.contains(':') {
        return Err(TargetError::new("invalid_host", "a colon in the host (IPv6 goes in brackets)"));
    }
    let host = host.to_ascii_lowercase();
    if ends_in_number(&host) {
        let a = ipv4(&host)?;
        let text = a.to_string();
        return Ok((text.clone(), port, Some(text)));
    }
    check_name(&host)?;
    Ok((host, port, None))
}

/// `""` (after `:`): the default port; else 1 to 5 digits, 1..=65535.
fn port(p: &str) -> Result<Option<u16>, TargetError> {
    if p.is_empty() {
        return Ok(None);
    }
    if p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(TargetError::new("invalid_port", "not 1 to 5 digits"));
    }
    match p.parse::<u32>() {
        Ok(n) if (1..=65535).contains(&n) => Ok(Some(n as u16)),
        _ => Err(TargetError::new("invalid_port", "outside 1..=65535")),
    }
}

/// The labels, one trailing empty label (a trailing dot) left out.
fn labels(host: &str) -> impl Iterator<Item = &str> {
    host.strip_suffix('.').unwrap_or(host).split('.')
}

/// WHATWG's "ends in a number": the last label is all digits, or `0x`
/// followed by hex digits.
fn ends_in_number(host: &str) -> bool {
    let last = labels(host).last().unwrap_or("");
    if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    last.strip_prefix("0x").is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// WHATWG's IPv4 parser: 1 to 4 parts, each decimal, `0x` hex or `0`-led
/// octal; every part but the last at most 255, the last filling the bytes
/// left (`127.1` is 127.0.0.1).
fn ipv4(host: &str) -> Result<Ipv4Addr, TargetError> {
    let bad = |m: &str| TargetError::new("invalid_host", m);
    let parts: alloc::vec::Vec<&str> = labels(host).collect();
    if parts.len() > 4 {
        return Err(bad("an IPv4 address of more than 4 parts"));
    }
    let mut nums = alloc::vec::Vec::with_capacity(parts.len());
    for p in &parts {
        let (digits, radix) = match p.strip_prefix("0x") {
            Some(h) => (h, 16),
            None if p.len() > 1 && p.starts_with('0') => (&p[1..], 8),
            None => (*p, 10),
        };
        if p.is_empty() {
            return Err(bad("an empty part in an IPv4 address"));
        }
        let n = if digits.is_empty() {
            0
        } else {
            u64::from_str_radix(digits, radix).map_err(|_| bad("a part of an IPv4 address is not a number"))?
        };
        nums.push(n);
    }
    let (last, init) = nums.split_last().ok_or_else(|| bad("empty"))?;
    if init.iter().any(|n| *n > 255) {
        return Err(bad("a part of an IPv4 address above 255"));
    }
    let room = 1u64 << (8 * (5 - nums.len()));
    if *last >= room {
        return Err(bad("an IPv4 address out of range"));
    }
    let mut v = *last;
    for (i, n) in init.iter().enumerate() {
        v += n << (8 * (3 - i));
    }
    Ok(Ipv4Addr::from(v as u32))
}

/// A name: labels of `a-z`, `0-9`, `-`, `_`, none empty, at most 63 bytes
/// each and 253 in all.
fn check_name(host: &str) -> Result<(), TargetError> {
    let bad = |m: &str| TargetError::new("invalid_host", m);
    if host.len() > 254 || host.strip_suffix('.').unwrap_or(host).len() > 253 {
        return Err(bad("a name longer than 253 bytes"));
    }
    for label in labels(host) {
        if label.is_empty() || label.len() > 63 {
            return Err(bad("an empty label or one longer than 63 bytes"));
        }
        if !label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_') {
            return Err(bad("a name holds only letters, digits, - and _ (punycode for others)"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::read_target;

    #[test]
    fn a_target_is_sent_spelled_one_way() {
        let cases = [
            ("HTTP://Hooks.Example.COM:80/in?x=1#frag", "http://hooks.example.com/in?x=1"),
            ("http://127.1:8080", "http://127.0.0.1:8080/"),
            ("http://2130706433/x", "http://127.0.0.1/x"),
            ("https://[::1]:443/v6", "https://[::1]/v6"),
            ("https://hooks.example.com:8443/a", "https://hooks.example.com:8443/a"),
        ];
        for (given, sent) in cases {
            assert_eq!(read_target(given).unwrap().url(), sent, "{given}");
        }
    }

    #[test]
    fn each_refused_target_names_its_reason() {
        let cases = [
            ("http://user:pw@hooks.example.com/x", "userinfo"),
            ("ftp://hooks.example.com/x", "unsupported_scheme"),
            ("http://256.1.1.1/x", "invalid_host"),
            ("http://hooks.example.com:70000/x", "invalid_port"),
            ("http://hooks.example.com/a b", "invalid_url"),
        ];
        for (given, code) in cases {
            assert_eq!(read_target(given).unwrap_err().code, code, "{given}");
        }
    }
}
