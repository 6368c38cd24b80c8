//! Which addresses a webhook may be delivered to: the product's one table,
//! `fleet/destinations.json` (docs/destinations.md), judged by policy-core (the
//! code the component runs for every host). By
//! default a target that resolves to loopback, private, link-local, cloud
//! metadata, shared (CGNAT), unspecified, multicast, broadcast,
//! documentation, benchmarking or reserved space is refused: a webhook URL
//! is chosen by a customer, and the dispatcher must not become a way into
//! the operator's own network.
//!
//! The check sits in the HTTP client's resolver ([`GuardedResolver`]):
//! the host is resolved once, every address is checked, and the client
//! connects to exactly the addresses that were checked, so a DNS answer that
//! changes between check and connect (rebinding) cannot slip through. A
//! host with any refused address is refused as a whole.

use std::fmt;
use std::io;
use std::net::IpAddr;

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

/// Why an address may not be a webhook destination (`None`: it may):
/// policy-core's judgement (`fleet/destinations.json`, generated into
/// `policy-core/src/destination/table.rs`), the same code the component runs
/// for every other host.
pub fn refusal(ip: IpAddr) -> Option<&'static str> {
    retry_policy_core::destination::refusal(ip)
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
        let addrs = self.inner.resolve(uri, config, timeout).map_err(lookup_failed)?;
        // After the DNS lookup: the event's window may have ended meanwhile.
        crate::http_client::check_edge()?;
        if !self.allow_private {
            if let Some(why) = addrs.iter().find_map(|a| refusal(a.ip())) {
                return Err(ureq::Error::Io(io::Error::new(io::ErrorKind::PermissionDenied, Refused { why })));
            }
        }
        Ok(addrs)
    }
}

/// A failed DNS lookup (the system resolver's I/O error: no such host, no
/// answer, no resolver) is ureq's `HostNotFound`, the transport kind
/// `connect_error` as in every host (no connection could be made), never a
/// broken response (`remote_protocol_error`, the kind of other I/O errors).
fn lookup_failed(e: ureq::Error) -> ureq::Error {
    match e {
        ureq::Error::Io(_) => ureq::Error::HostNotFound,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_dns_lookup_is_a_connect_error_as_in_every_host() {
        let lookup = io::Error::other("failed to lookup address information: Name or service not known");
        let e = lookup_failed(ureq::Error::Io(lookup));
        assert!(matches!(e, ureq::Error::HostNotFound), "{e:?}");
        assert_eq!(crate::http_client::error_kind(&e), "connect_error");
        // A resolve timeout stays what it was (connect_error too, by its own rule).
        let t = lookup_failed(ureq::Error::Timeout(ureq::Timeout::Resolve));
        assert_eq!(crate::http_client::error_kind(&t), "connect_error");
    }

    fn why(s: &str) -> Option<&'static str> {
        refusal(s.parse().expect("an address"))
    }

    /// Every case of tests/vectors-destination/destinations.json.
    #[test]
    fn every_destination_vector_is_judged_as_the_table_says() {
        let text = include_str!("../../../../tests/vectors-destination/destinations.json");
        let doc: serde_json::Value = serde_json::from_str(text).expect("vectors are JSON");
        let top = doc.as_object().expect("an object");
        for k in top.keys() {
            assert!(k == "table" || k == "cases", "unknown top-level field {k}");
        }
        let cases = doc["cases"].as_array().expect("cases");
        assert!(!cases.is_empty());
        for case in cases {
            let obj = case.as_object().expect("a case is an object");
            let name = obj.get("name").and_then(|v| v.as_str()).expect("a case has a name");
            for k in obj.keys() {
                assert!(["name", "address", "expect", "reason"].contains(&k.as_str()), "{name}: unknown field {k}");
            }
            let address = obj["address"].as_str().expect("address");
            let want = match obj["expect"].as_str() {
                Some("allowed") => None,
                Some("refused") => {
                    Some(obj.get("reason").and_then(|v| v.as_str()).expect("a refused case names its reason"))
                }
                other => panic!("{name}: expect is {other:?}"),
            };
            assert_eq!(why(address), want, "case {name:?} ({address})");
        }
    }

    #[test]
    fn a_refusal_is_recognised_after_travelling_as_an_io_error() {
        let e = io::Error::new(io::ErrorKind::PermissionDenied, Refused { why: "loopback" });
        assert!(is_refused(&e));
        assert!(!is_refused(&io::Error::from(io::ErrorKind::PermissionDenied)));
    }
}
