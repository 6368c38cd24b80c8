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

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::NextTimeout;

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
            // policy-core's judgement (`fleet/destinations.json`), the code the component runs for every host.
            if let Some(why) = addrs.iter().find_map(|a| retry_policy_core::destination::refusal(a.ip())) {
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
#[path = "tests_destination.rs"]
mod tests;
