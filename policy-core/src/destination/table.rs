// GENERATED - DO NOT EDIT. From fleet/destinations.json by fleet/gen-destinations (run it to regenerate).
//! The table of docs/destinations.md, in file order.

use super::Entry;

/// IPv6 prefixes whose last 32 bits are an IPv4 address judged as such.
pub(super) const EMBEDDED_IPV4: &[Entry] = &[
    Entry { v4: false, bits: 0xffff00000000, len: 96, reason: "" },
    Entry { v4: false, bits: 0x64ff9b000000000000000000000000, len: 96, reason: "" },
];

/// Refused prefixes: the first that contains an address names its reason.
pub(super) const REFUSED: &[Entry] = &[
    Entry { v4: true, bits: 0x0, len: 8, reason: "unspecified" },
    Entry { v4: true, bits: 0x7f000000, len: 8, reason: "loopback" },
    Entry { v4: true, bits: 0xa000000, len: 8, reason: "private" },
    Entry { v4: true, bits: 0xac100000, len: 12, reason: "private" },
    Entry { v4: true, bits: 0xc0a80000, len: 16, reason: "private" },
    Entry { v4: true, bits: 0xa9fea9fe, len: 32, reason: "metadata" },
    Entry { v4: true, bits: 0xa9fe0000, len: 16, reason: "link-local" },
    Entry { v4: true, bits: 0x64400000, len: 10, reason: "shared" },
    Entry { v4: true, bits: 0xffffffff, len: 32, reason: "broadcast" },
    Entry { v4: true, bits: 0xe0000000, len: 4, reason: "multicast" },
    Entry { v4: true, bits: 0xf0000000, len: 4, reason: "reserved" },
    Entry { v4: true, bits: 0xc0000000, len: 24, reason: "reserved" },
    Entry { v4: true, bits: 0xc0000200, len: 24, reason: "documentation" },
    Entry { v4: true, bits: 0xc6336400, len: 24, reason: "documentation" },
    Entry { v4: true, bits: 0xcb007100, len: 24, reason: "documentation" },
    Entry { v4: true, bits: 0xc6120000, len: 15, reason: "benchmarking" },
    Entry { v4: false, bits: 0x0, len: 128, reason: "unspecified" },
    Entry { v4: false, bits: 0x1, len: 128, reason: "loopback" },
    Entry { v4: false, bits: 0x0, len: 96, reason: "reserved" },
    Entry { v4: false, bits: 0xfd000ec2000000000000000000000254, len: 128, reason: "metadata" },
    Entry { v4: false, bits: 0xfc000000000000000000000000000000, len: 7, reason: "private" },
    Entry { v4: false, bits: 0xfe800000000000000000000000000000, len: 10, reason: "link-local" },
    Entry { v4: false, bits: 0xfec00000000000000000000000000000, len: 10, reason: "site-local" },
    Entry { v4: false, bits: 0xff000000000000000000000000000000, len: 8, reason: "multicast" },
    Entry { v4: false, bits: 0x20010db8000000000000000000000000, len: 32, reason: "documentation" },
    Entry { v4: false, bits: 0x64ff9b000100000000000000000000, len: 48, reason: "nat64-local" },
    Entry { v4: false, bits: 0x20020000000000000000000000000000, len: 16, reason: "6to4" },
    Entry { v4: false, bits: 0x1000000000000000000000000000000, len: 64, reason: "discard" },
    Entry { v4: false, bits: 0x20010000000000000000000000000000, len: 23, reason: "reserved" },
];
