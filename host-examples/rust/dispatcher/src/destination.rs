//! Which addresses a webhook may be delivered to. By default a target that
//! resolves to loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7),
//! link-local (169.254/16 — cloud metadata lives there — fe80::/10), shared
//! (100.64/10), unspecified, multicast, broadcast or documentation/reserved
//! space is refused: a webhook URL is chosen by a customer, and the
//! dispatcher must not become a way into the operator's own network.
//!
//! The check sits in the HTTP client's resolver ([`GuardedResolver`]):
//! the host is resolved once, every address is checked, and the client
//! connects to exactly the addresses that were checked, so a DNS answer that
//! changes between check and connect (rebinding) cannot slip through. A
//! host with any refused address is refused as a whole.

use std::fmt;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// Why an address may not be a webhook destination (`None`: it may).
pub fn refusal(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refusal_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => refusal_v4(v4),
            None => refusal_v6(v6),
        },
    }
}

fn refusal_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(if ip.is_unspecified() || a == 0 {
        "unspecified"
    } else if ip.is_loopback() {
        "loopback"
    } else if ip.is_private() {
        "private"
    } else if ip.is_link_local() {
        "link-local"
    } else if a == 100 && (64..128).contains(&b) {
        "shared"
    } else if ip.is_broadcast() {
        "broadcast"
    } else if ip.is_multicast() {
        "multicast"
    } else if a >= 240 || (a == 192 && b == 0 && c == 0) || ip.is_documentation() || (a == 198 && (b & 0xfe) == 18) {
        "reserved"
    } else {
        return None;
    })
}

fn refusal_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let s = ip.segments();
    Some(if ip.is_unspecified() {
        "unspecified"
    } else if ip.is_loopback() {
        "loopback"
    } else if (s[0] & 0xfe00) == 0xfc00 {
        "private"
    } else if (s[0] & 0xffc0) == 0xfe80 {
        "link-local"
    } else if ip.is_multicast() {
        "multicast"
    } else if s[0] == 0x2001 && s[1] == 0x0db8 {
        "reserved"
    } else if s[0] == 0x0064 && s[1] == 0xff9b {
        // NAT64 (64:ff9b::/96): judge the IPv4 address it carries.
        let v4 = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
        return refusal_v4(v4);
    } else {
        return None;
    })
}

/// The error a refused destination travels in through the HTTP client (an
/// `io::Error` of kind `PermissionDenied` wrapping this).
#[derive(Debug)]
pub struct Refused {
    pub why: &'static str,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "destination refused: the target resolves to a {} address", self.why)
    }
}

impl std::error::Error for Refused {}

/// Whether a client error is a refused destination.
pub fn is_refused(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Refused>())
}

/// ureq's resolver, then the check (unless private targets are allowed).
#[derive(Debug, Default)]
pub struct GuardedResolver {
    pub allow_private: bool,
    inner: DefaultResolver,
}

impl GuardedResolver {
    pub fn new(allow_private: bool) -> Self {
        GuardedResolver { allow_private, inner: DefaultResolver::default() }
    }
}

impl Resolver for GuardedResolver {
    fn resolve(&self, uri: &Uri, config: &Config, timeout: NextTimeout) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let addrs = self.inner.resolve(uri, config, timeout)?;
        if !self.allow_private {
            if let Some(why) = addrs.iter().find_map(|a| refusal(a.ip())) {
                return Err(ureq::Error::Io(io::Error::new(io::ErrorKind::PermissionDenied, Refused { why })));
            }
        }
        Ok(addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(s: &str) -> Option<&'static str> {
        refusal(s.parse().expect("an address"))
    }

    #[test]
    fn internal_ipv4_ranges_are_refused_and_public_ones_allowed() {
        for (ip, kind) in [
            ("127.0.0.1", "loopback"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("169.254.169.254", "link-local"),
            ("100.64.0.1", "shared"),
            ("100.127.255.255", "shared"),
            ("0.0.0.0", "unspecified"),
            ("0.1.2.3", "unspecified"),
            ("224.0.0.1", "multicast"),
            ("255.255.255.255", "broadcast"),
            ("240.0.0.1", "reserved"),
        ] {
            assert_eq!(why(ip), Some(kind), "{ip}");
        }
        for ip in ["1.1.1.1", "8.8.8.8", "172.32.0.1", "100.128.0.1", "93.184.216.34"] {
            assert_eq!(why(ip), None, "{ip}");
        }
    }

    #[test]
    fn internal_ipv6_ranges_and_mapped_ipv4_are_refused() {
        for (ip, kind) in [
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fc00::1", "private"),
            ("fd12:3456::1", "private"),
            ("fe80::1", "link-local"),
            ("ff02::1", "multicast"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:169.254.169.254", "link-local"),
            ("64:ff9b::a00:1", "private"),
        ] {
            assert_eq!(why(ip), Some(kind), "{ip}");
        }
        assert_eq!(why("2606:4700::1111"), None);
    }

    #[test]
    fn a_refusal_is_recognised_after_travelling_as_an_io_error() {
        let e = io::Error::new(io::ErrorKind::PermissionDenied, Refused { why: "loopback" });
        assert!(is_refused(&e));
        assert!(!is_refused(&io::Error::from(io::ErrorKind::PermissionDenied)));
    }
}
