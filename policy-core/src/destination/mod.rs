//! Where a webhook may go (docs/destinations.md): a target URL read the
//! same way in every host ([`read_target`]), and the addresses it names or
//! resolves to judged against one table ([`refusal`], generated from
//! `fleet/destinations.json`). The host resolves names (I/O); everything
//! else is here, so four HTTP stacks' URL parsers no longer decide what
//! `http://2130706433/` means.

mod table;
mod url;

pub use url::{read_target, Target, TargetError};

/// One prefix: address bits (an IPv4 address in the low 32 bits), length,
/// family, reason.
pub(crate) struct Entry {
    v4: bool,
    bits: u128,
    len: u32,
    reason: &'static str,
}

impl Entry {
    fn contains(&self, v4: bool, bits: u128) -> bool {
        let width = if v4 { 32 } else { 128 };
        if self.v4 != v4 || self.len > width {
            return false;
        }
        // A /0 prefix contains everything (a shift by the full width would overflow).
        let shift = width - self.len;
        shift == width || (bits >> shift) == (self.bits >> shift)
    }
}

/// Why `ip` may not be a webhook destination (`None`: it may): the first
/// entry of the table that contains it, after an IPv6 address carrying an
/// IPv4 one (IPv4-mapped, NAT64) is replaced by that IPv4 address.
pub fn refusal(ip: core::net::IpAddr) -> Option<&'static str> {
    let (mut v4, mut bits) = match ip {
        core::net::IpAddr::V4(a) => (true, u128::from(u32::from(a))),
        core::net::IpAddr::V6(a) => (false, u128::from(a)),
    };
    if !v4 && table::EMBEDDED_IPV4.iter().any(|e| e.contains(false, bits)) {
        (v4, bits) = (true, bits & 0xffff_ffff);
    }
    table::REFUSED.iter().find(|e| e.contains(v4, bits)).map(|e| e.reason)
}

/// [`refusal`] of an address's text (`1.2.3.4` or an IPv6 address without
/// brackets): `Err` when the text is not an address.
pub fn refusal_of(address: &str) -> Result<Option<&'static str>, TargetError> {
    address
        .parse::<core::net::IpAddr>()
        .map(refusal)
        .map_err(|_| TargetError::new("invalid_address", "not an IPv4 or IPv6 address"))
}

#[cfg(test)]
mod tests;
