//! Reading a journal (docs/journal.md, "Reading (recovery)"): split at LF,
//! check each line's CRC and JSON, find a torn tail (the last line only),
//! refuse a bad line anywhere else, keep the newest event record per
//! `event_id`, derive `replayed_as`, and check that each kept record's
//! `policy` hashes to its `policy_hash` the way the component's
//! `load-health-document` and `admit` would.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use crate::compiled::CompiledPolicy;
use crate::decide::Policy;
use crate::error::PolicyError;
use crate::health::{self, Health};
use crate::json::Value;
use crate::text::{cat, hex16};

use super::decode;
use super::error::JournalError;
use super::json_text::to_text;
use super::line::unframe;
use super::record::{obj, policy_to_value, EventRecord, Status};

/// What a journal holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovered {
    /// The header's `created_at_ms` (`None`: no complete header, a new
    /// journal: the host writes one before any event record).
    pub created_at_ms: Option<u64>,
    /// The header's `v`, 1 or 2 (`None`: no header).
    pub header_version: Option<u8>,
    /// The newest record of each event, in first-seen order, `replayed_as`
    /// derived (a dead letter named by any record's `replay_of`).
    pub events: Vec<EventRecord>,
    /// Bytes of the torn tail (0: none). The host cuts the file back to
    /// `good_len` before it appends anything.
    pub torn_bytes: u64,
    /// Bytes of the good prefix: every complete record.
    pub good_len: u64,
    /// Complete records in the good prefix, the header included (the
    /// compaction rule counts these).
    pub records: u64,
}

impl Recovered {
    /// Events compaction keeps ([`EventRecord::is_live`]).
    pub fn live(&self) -> u64 {
        self.events.iter().filter(|e| e.is_live()).count() as u64
    }
}

/// Read a whole journal's bytes. Errors name the 1-based line; the bytes
/// are never changed here (the host cuts the torn tail, `good_len`).
pub fn recover(bytes: &[u8]) -> Result<Recovered, JournalError> {
    let mut header: Option<(u8, u64)> = None;
    let mut events: Vec<(u64, EventRecord)> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    let (mut good_len, mut records, mut start, mut line) = (0usize, 0u64, 0usize, 0u64);
    while start < bytes.len() {
        line += 1;
        // A last chunk without its LF is a torn tail.
        let Some(nl) = bytes[start..].iter().position(|&b| b == b'\n') else { break };
        let end = start + nl;
        let is_last = end + 1 == bytes.len();
        let v = match unframe(&bytes[start..end]) {
            Ok(v) => v,
            Err(_) if is_last => break,
            Err(why) if line == 1 => {
                return Err(JournalError::unsupported(line, cat(&["the first line is not a header: ", &why])))
            }
            Err(why) => return Err(JournalError::corrupt(line, why)),
        };
        let (version, kind) = decode::kind(&v, line)?;
        match (line, kind) {
            (1, "header") => header = Some((version, decode::header(v, line)?)),
            (1, _) => return Err(JournalError::unsupported(line, "the first record is not a header")),
            (_, "event") => {
                let rec = decode::event(v, version, line)?;
                match index.get(&rec.event_id) {
                    Some(&i) => events[i] = (line, rec),
                    None => {
                        index.insert(rec.event_id.clone(), events.len());
                        events.push((line, rec));
                    }
                }
            }
            (_, "header") => return Err(JournalError::invalid(line, "type", "a header after the first line")),
            (_, _) => return Err(JournalError::invalid(line, "type", "is not header or event")),
        }
        records += 1;
        good_len = end + 1;
        start = end + 1;
    }
    derive_replayed_as(&mut events);
    let mut checked = Checked::default();
    for (line, rec) in &events {
        checked.check(rec, *line)?;
    }
    Ok(Recovered {
        created_at_ms: header.map(|h| h.1),
        header_version: header.map(|h| h.0),
        events: events.into_iter().map(|(_, r)| r).collect(),
        torn_bytes: (bytes.len() - good_len) as u64,
        good_len: good_len as u64,
        records,
    })
}

/// A dead letter is replayed when its newest record has `replayed_as`, or
/// when any event record has `replay_of` equal to its `event_id`: then
/// `replayed_as` reads as that record's `event_id` (the first such, in
/// first-seen order). The replay's own record is the commit.
fn derive_replayed_as(events: &mut [(u64, EventRecord)]) {
    let mut replays: BTreeMap<String, String> = BTreeMap::new();
    for (_, r) in events.iter() {
        if let Some(of) = &r.replay_of {
            replays.entry(of.clone()).or_insert_with(|| r.event_id.clone());
        }
    }
    for (_, r) in events.iter_mut() {
        if r.status == Status::DeadLettered && r.replayed_as.is_none() {
            r.replayed_as = replays.get(&r.event_id).cloned();
        }
    }
}

/// A checked record's class, policy version and computed fingerprint.
type CheckKey = (String, String, u64);

/// The hash check, each distinct (class, version, policy) checked once.
#[derive(Default)]
struct Checked {
    ok: BTreeMap<CheckKey, Vec<(Policy, Option<Health>)>>,
}

impl Checked {
    /// `policy` hashes to `policy_hash`, through the document path the
    /// component takes: load `{"version": policy_version, "classes":
    /// {class: policy}}` (format 3: `health` inside the class), compile,
    /// admit. A refused document or a different hash is
    /// `journal_record_invalid` naming `policy`.
    fn check(&mut self, rec: &EventRecord, line: u64) -> Result<(), JournalError> {
        let words = health::policy_hash(&rec.policy, rec.health.as_ref());
        let key = (rec.class.clone(), rec.policy_version.clone(), words);
        let done = self.ok.get(&key).is_some_and(|seen| seen.iter().any(|(p, h)| *p == rec.policy && *h == rec.health));
        if done && hex16(words) == rec.policy_hash {
            return Ok(());
        }
        let hash = admitted_hash(rec).map_err(|why| {
            JournalError::invalid(line, "policy", cat(&["is refused by the document reader: ", &why]))
        })?;
        if hash != rec.policy_hash {
            return Err(JournalError::invalid(
                line,
                "policy",
                cat(&["hashes to ", &hash, ", not to policy_hash ", &rec.policy_hash]),
            ));
        }
        self.ok.entry(key).or_default().push((rec.policy, rec.health));
        Ok(())
    }
}

/// `invalid_hard_cap at `hard_cap`: ...`, without `core::fmt`.
fn said(e: PolicyError) -> String {
    cat(&[e.code.as_str(), " at `", &e.field, "`: ", &e.message])
}

/// The `policy_hash` an admission under the record's one-class document
/// carries, or why the document is refused.
fn admitted_hash(rec: &EventRecord) -> Result<String, String> {
    let classes = Value::Object(alloc::vec![(rec.class.clone(), policy_to_value(&rec.policy, rec.health.as_ref()))]);
    let doc = obj([("version", rec.policy_version.as_str().into()), ("classes", classes)]);
    // The component reads the document as text: at most 1 MiB of it.
    crate::document::check_size(&to_text(&doc)).map_err(said)?;
    let loaded = health::parse_document(doc).map_err(said)?;
    let (name, policy) = loaded.document.classes.first().ok_or_else(|| String::from("no class"))?;
    let section = loaded.health.first().and_then(|(_, h)| *h);
    let compiled = CompiledPolicy::new(*policy, section).map_err(said)?;
    let admission = compiled.admit(name, &loaded.document.version, 0).map_err(said)?;
    Ok(admission.policy_hash)
}
