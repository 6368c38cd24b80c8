//! # The event journal, once (docs/journal.md)
//!
//! One codec for the file every dispatcher writes, so an event journaled by
//! a replica in one language is resumed by a replica in another under the
//! policy it was admitted with. Sans-IO like the rest of the crate: bytes
//! in, records and line text out. Opening, locking, `fsync`, cutting the
//! torn tail and renaming the compacted file stay with the host, which
//! gets from here exactly what to do (`good_len`, the text to write).
//!
//! ## The file
//!
//! Records, one per line: `<crc32 as 8 lowercase hex> <json>\n`
//! ([`line`](mod@line)). The first record is the header (`{"v":1|2,"type":"header",
//! "format":"webhook-retry-policy/journal","created_at_ms":T}`); every
//! other is an event record, the event's whole state: the newest record of
//! each `event_id` wins. Records carry `"v":1` (format 1) or `"v":2`
//! (format 2: holds and replays, and the policy's `health` section).
//!
//! ## Writing ([`encode_header`], [`encode_event`])
//!
//! Always format 2: a v2 header, v2 event records with every field in the
//! table's order ([`record`]), `policy` fully expanded (every default
//! written out, `health` only when the class has a section), `body_b64`
//! only when present. The JSON text is compact and byte-stable
//! ([`json_text`]: serde_json's spelling, doubles shortest round-trip with
//! `.0`), so the same record always gives the same line, and
//! [`recover()`] reads every line written here back to an equal record (a
//! record read as v1 comes back with `version` 2).
//!
//! ## Reading ([`recover()`])
//!
//! 1. Split at LF. The last chunk, if it has no LF, fails its CRC or is
//!    not JSON, is a **torn tail**: `torn_bytes` counts it (its LF
//!    included), `good_len` is where the host cuts the file back.
//! 2. Any other line that fails its CRC or is not JSON is
//!    `journal_corrupt` (line number given), or `journal_unsupported` when
//!    it is the first line (the file does not start with a header).
//! 3. A line whose CRC and JSON check out but which breaks the record
//!    table is `journal_record_invalid` naming the field, on any line, the
//!    last included (it is complete, so it is not torn): unknown fields,
//!    missing fields, wrong types, `1.0` where an integer belongs, a v2
//!    field in a v1 record, a `health` section not fully expanded, a body
//!    that is not standard base64. A `v` other than 1 or 2, a first record
//!    that is not a header and a header of another format are
//!    `journal_unsupported`: a reader never guesses at a format it does
//!    not know.
//! 4. The state is the newest record per `event_id`, in first-seen order.
//!    A dead letter is **replayed** when its newest record has
//!    `replayed_as`, or when any record has `replay_of` equal to its id
//!    (then `replayed_as` reads as that record's `event_id`): the replay's
//!    own record is the commit, so a crash between it and the dead
//!    letter's `replayed_as` record replays nothing twice.
//! 5. **The policy travels with the event.** Each kept record's `policy`
//!    (with its section) must hash to its `policy_hash` through the path
//!    the component takes: the one-class document `{"version":
//!    policy_version, "classes": {class: policy}}` (its text at most
//!    1 MiB) read by [`crate::health::parse_document`], compiled, admitted. A refused
//!    document or another hash is `journal_record_invalid` on that
//!    record's line. The hash covers the policy, not the class name.
//!
//! Pending and held events then go through the contract's
//! [`crate::step::resume`] on their own `policy` and
//! [`EventRecord::delivery_state`]; that is the engine's business, not
//! the codec's.
//!
//! One pass over the input; each line costs about its length (the JSON
//! parser is linear, nests at most 32 deep and refuses duplicate keys;
//! the record reader looks up a fixed set of about 40 field names). Each
//! distinct (class, version, policy) is validated and hashed once. Bad
//! bytes of any kind (invalid UTF-8, NUL, a 10 MB line) give a typed
//! error or a torn tail, never a panic.
//!
//! ## Dependencies and size
//!
//! The CRC-32 is written here with one 1 KiB table (`line.rs` says why: the
//! `crc32fast` crate's tables were 16.6 KB of the component); `ryu` with
//! `small` tables (serde_json's double formatting) and `base64` (alloc
//! only) for the body check.
//!
//! ## Compaction ([`compaction_due`], [`compact`])
//!
//! When the file holds at least 1024 records and more than twice as many
//! as live ones (pending and held events plus dead letters not yet
//! replayed), the writer rewrites it: a header (the journal's own
//! `created_at_ms`), then the newest record of each live event. Delivered
//! events and replayed dead letters are dropped (a dropped dead letter can
//! no longer be chosen, so nothing is replayed twice). The host writes the
//! text to `<journal>.compact`, `fsync`s, renames it over the journal and
//! `fsync`s the directory.

use alloc::string::String;

mod decode;
pub mod error;
mod event_text;
pub mod json_text;
pub mod line;
pub mod record;
mod recover;
#[cfg(test)]
mod tests;

pub use error::{JournalError, JournalErrorCode};
pub use record::{EventRecord, Status, FORMAT};
pub use recover::{recover, Recovered};

/// Compaction waits for at least this many records.
pub const COMPACT_MIN_RECORDS: u64 = 1024;

/// The header line of a new journal (format 2).
pub fn encode_header(created_at_ms: u64) -> String {
    line::frame(&record::header_to_value(created_at_ms))
}

/// The whole line of an event record, written as format 2.
pub fn encode_event(record: &EventRecord) -> String {
    event_text::line(record)
}

/// Whether a journal of `records` records (the header included) with
/// `live` live events is due for compaction.
pub fn compaction_due(records: u64, live: u64) -> bool {
    records >= COMPACT_MIN_RECORDS && records > live.saturating_mul(2)
}

/// The compacted journal of `events` (the newest record of each event):
/// a format-2 header, then each live one's record, in the given order.
pub fn compact_events<'a>(created_at_ms: u64, events: impl IntoIterator<Item = &'a EventRecord>) -> String {
    let mut text = encode_header(created_at_ms);
    for e in events.into_iter().filter(|e| e.is_live()) {
        text.push_str(&encode_event(e));
    }
    text
}

/// The compacted form of a recovered journal: its header's `created_at_ms`
/// (0 when it had none), then the newest record of each live event.
pub fn compact(recovered: &Recovered) -> String {
    compact_events(recovered.created_at_ms.unwrap_or(0), &recovered.events)
}
