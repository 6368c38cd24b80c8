//! Routing for Redis Cluster: which node owns a key. Every store call
//! touches one key (the component's `store-key`, whose hash tag is the
//! endpoint's hex id), so a call goes to exactly one master:
//!
//! * the slot is CRC16 (XMODEM, the `crc` crate) of the key's hash tag,
//!   mod 16384 (the Redis Cluster specification);
//! * the slot map comes from `CLUSTER SLOTS` on a known node, loaded on first
//!   use and again after a `MOVED` reply;
//! * a `MOVED <slot> <host:port>` reply means nothing ran: the same command
//!   is sent once more to that node (the store stays at one script call per
//!   attempt once the map is loaded).

use std::sync::Mutex;

use crate::resp::Reply;

const SLOTS: u16 = 16_384;
const XMODEM: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM);

/// The part of `key` that picks its slot: between the first `{` and the next
/// `}` when that is non-empty, else the whole key.
pub fn hash_tag(key: &[u8]) -> &[u8] {
    if let Some(open) = key.iter().position(|&b| b == b'{') {
        if let Some(len) = key[open + 1..].iter().position(|&b| b == b'}') {
            if len > 0 {
                return &key[open + 1..open + 1 + len];
            }
        }
    }
    key
}

/// The cluster slot of `key`.
pub fn slot(key: &[u8]) -> u16 {
    XMODEM.checksum(hash_tag(key)) % SLOTS
}

/// `MOVED 3999 127.0.0.1:6381` -> `127.0.0.1:6381`.
pub fn moved_to(error: &str) -> Option<&str> {
    let mut words = error.split_whitespace();
    (words.next() == Some("MOVED")).then_some(())?;
    words.next()?.parse::<u16>().ok()?;
    words.next()
}

/// Slot ranges and the master serving each.
#[derive(Default)]
pub struct SlotMap {
    ranges: Mutex<Vec<(u16, u16, String)>>,
}

impl SlotMap {
    pub fn is_empty(&self) -> bool {
        self.ranges.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
    }

    /// The node serving `slot`, if known.
    pub fn node_for(&self, slot: u16) -> Option<String> {
        let ranges = self.ranges.lock().unwrap_or_else(|p| p.into_inner());
        ranges.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&slot)).map(|(_, _, n)| n.clone())
    }

    /// Replace the map with a `CLUSTER SLOTS` reply; false when the reply
    /// has another shape (the map is then left as it was).
    pub fn load(&self, reply: &Reply) -> bool {
        let Reply::Array(Some(entries)) = reply else { return false };
        let mut ranges = Vec::with_capacity(entries.len());
        for e in entries {
            let Reply::Array(Some(parts)) = e else { return false };
            let (Some(Reply::Int(lo)), Some(Reply::Int(hi)), Some(Reply::Array(Some(master)))) =
                (parts.first(), parts.get(1), parts.get(2))
            else {
                return false;
            };
            let (Some(Reply::Bulk(Some(host))), Some(Reply::Int(port))) = (master.first(), master.get(1)) else {
                return false;
            };
            let (Ok(lo), Ok(hi), Ok(port), Ok(host)) =
                (u16::try_from(*lo), u16::try_from(*hi), u16::try_from(*port), std::str::from_utf8(host))
            else {
                return false;
            };
            if host.is_empty() || host.chars().any(|c| c.is_control() || c == ' ') {
                return false;
            }
            let node = if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") };
            ranges.push((lo, hi, node));
        }
        *self.ranges.lock().unwrap_or_else(|p| p.into_inner()) = ranges;
        true
    }

    /// After `MOVED`: `slot` is now served by `node`.
    pub fn learn(&self, slot: u16, node: &str) {
        let mut ranges = self.ranges.lock().unwrap_or_else(|p| p.into_inner());
        ranges.retain(|(lo, hi, _)| !(*lo == slot && *hi == slot));
        ranges.insert(0, (slot, slot, node.to_string()));
        ranges.truncate(4096);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_follow_the_cluster_specification() {
        // Values from the Redis Cluster specification / CLUSTER KEYSLOT.
        assert_eq!(slot(b"123456789"), 12_739);
        assert_eq!(slot(b"foo"), 12_182);
        assert_eq!(slot(b"{user1000}.following"), slot(b"user1000"));
        assert_eq!(slot(b"foo{}{bar}"), slot(b"foo{}{bar}"), "an empty tag hashes the whole key");
        assert_eq!(hash_tag(b"foo{}{bar}"), b"foo{}{bar}");
        assert_eq!(hash_tag(b"rb:{e6570}:60000"), b"e6570");
    }

    #[test]
    fn moved_replies_name_the_node_and_anything_else_is_not_a_move() {
        assert_eq!(moved_to("MOVED 3999 127.0.0.1:6381"), Some("127.0.0.1:6381"));
        assert_eq!(moved_to("ASK 3999 127.0.0.1:6381"), None);
        assert_eq!(moved_to("MOVED x 127.0.0.1:6381"), None);
        assert_eq!(moved_to("ERR budget.lua: clock skew"), None);
    }

    #[test]
    fn a_slot_map_of_the_wrong_shape_is_refused_and_a_good_one_routes() {
        let map = SlotMap::default();
        assert!(!map.load(&Reply::Int(1)));
        let node = |port| Reply::Array(Some(vec![Reply::Bulk(Some(b"127.0.0.1".to_vec())), Reply::Int(port)]));
        let good = Reply::Array(Some(vec![
            Reply::Array(Some(vec![Reply::Int(0), Reply::Int(5460), node(7000)])),
            Reply::Array(Some(vec![Reply::Int(5461), Reply::Int(16383), node(7001)])),
        ]));
        assert!(map.load(&good));
        assert_eq!(map.node_for(12_739).as_deref(), Some("127.0.0.1:7001"));
        map.learn(12_739, "127.0.0.1:7002");
        assert_eq!(map.node_for(12_739).as_deref(), Some("127.0.0.1:7002"));
    }
}
