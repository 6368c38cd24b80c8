//! Reading a journal (docs/journal.md, "Reading (recovery)"): split at LF,
//! check each line's CRC and JSON, find a torn tail (the last line only),
//! refuse a bad line anywhere else, keep the newest event record per
//! `event_id`, and check that each one's `policy` hashes to its
//! `policy_hash` through the component.

use std::collections::HashMap;

use retry_policy_host::{PolicyEngine, PolicyInstance};

use crate::journal_error::JournalError;
use crate::journal_record::{check_header, crc32, hash_document, kind, parse_event};
use crate::store::{EventRecord, Status};

/// The policy fingerprint of a one-class document, as `admit` gives it.
pub trait PolicyHasher {
    /// `Err` when the component refuses the document (an invalid policy).
    fn policy_hash(&mut self, document_json: &str, class: &str) -> Result<String, String>;
}

/// [`PolicyHasher`] through an instance of the policy artifact.
pub struct ComponentHasher(PolicyInstance);

impl ComponentHasher {
    pub fn new(engine: &PolicyEngine) -> Result<Self, JournalError> {
        crate::shared::instance(engine)
            .map(ComponentHasher)
            .map_err(|e| JournalError::Io { path: "policy artifact".into(), error: e.to_string() })
    }
}

impl PolicyHasher for ComponentHasher {
    /// Through `load-health-document` (formats 2 and 3) and `admit-compiled`
    /// (the fingerprint covers a `health` section; docs/journal.md, format 2).
    fn policy_hash(&mut self, document_json: &str, class: &str) -> Result<String, String> {
        let doc = self.0.load_health_document(document_json).map_err(|e| e.to_string())?;
        let c = doc.classes.iter().find(|c| c.name == class).ok_or_else(|| format!("no class `{class}`"))?;
        let compiled = self.0.compile(&c.policy, c.health.as_ref()).map_err(|e| e.to_string())?;
        let admission = self.0.admit_compiled(&compiled, class, &doc.version, 0).map_err(|e| e.to_string())?;
        Ok(admission.policy_hash)
    }
}

/// What a journal holds.
#[derive(Debug)]
pub struct Recovered {
    /// The newest record of each event with its line number, in first-seen order.
    pub events: Vec<(usize, EventRecord)>,
    /// Complete records kept (the header included).
    pub records: u64,
    /// Bytes of the good prefix (the file is cut back to it).
    pub good_len: usize,
    /// Bytes of a torn tail (0: none).
    pub torn_bytes: usize,
}

/// The JSON of a `<crc> <json>` line whose CRC checks out.
fn checked(content: &[u8]) -> Result<serde_json::Value, String> {
    if content.len() < 10 || content[8] != b' ' {
        return Err("not `<crc> <json>`".into());
    }
    let hex = &content[..8];
    if !hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err("the CRC is not 8 lowercase hex digits".into());
    }
    let want = std::str::from_utf8(hex).ok().and_then(|h| u32::from_str_radix(h, 16).ok()).unwrap_or(0);
    let json = &content[9..];
    if crc32(json) != want {
        return Err("the CRC does not match".into());
    }
    serde_json::from_slice(json).map_err(|e| format!("not JSON: {e}"))
}

/// A dead letter is replayed when any event record has `replay_of` equal to
/// its `event_id` (the replay's own record is the commit): its
/// `replayed_as` then reads as that record's `event_id` (docs/journal.md).
fn mark_replayed(events: &mut [(usize, EventRecord)]) {
    let replays: HashMap<String, String> =
        events.iter().filter_map(|(_, r)| r.hold.replay_of.clone().map(|of| (of, r.event_id.clone()))).collect();
    for (_, r) in events.iter_mut() {
        if r.status == Status::DeadLettered && r.hold.replayed_as.is_none() {
            r.hold.replayed_as = replays.get(&r.event_id).cloned();
        }
    }
}

/// Read a whole journal's bytes.
pub fn read(bytes: &[u8], hasher: &mut dyn PolicyHasher) -> Result<Recovered, JournalError> {
    let mut order: Vec<String> = Vec::new();
    let mut newest: HashMap<String, (usize, EventRecord)> = HashMap::new();
    let (mut good_len, mut records, mut start, mut line) = (0usize, 0u64, 0usize, 0usize);
    while start < bytes.len() {
        line += 1;
        let Some(nl) = bytes[start..].iter().position(|&b| b == b'\n') else { break };
        let end = start + nl;
        let is_last = end + 1 == bytes.len();
        let v = match checked(&bytes[start..end]) {
            Ok(v) => v,
            Err(_) if is_last => break,
            Err(why) if line == 1 => {
                return Err(JournalError::Unsupported { line, why: format!("the first line is not a header: {why}") })
            }
            Err(why) => return Err(JournalError::Corrupt { line, why }),
        };
        let (version, t) = kind(&v, line)?;
        match (line, t.as_str()) {
            (1, "header") => check_header(&v, line)?,
            (1, other) => {
                return Err(JournalError::Unsupported {
                    line,
                    why: format!("the first record is `{other}`, not a header"),
                })
            }
            (_, "event") => {
                let rec = parse_event(&v, version, line)?;
                if !newest.contains_key(&rec.event_id) {
                    order.push(rec.event_id.clone());
                }
                newest.insert(rec.event_id.clone(), (line, rec));
            }
            (_, "header") => return Err(JournalError::invalid(line, "type", "a header after the first line")),
            (_, _) => return Err(JournalError::invalid(line, "type", format!("`{t}` is not header or event"))),
        }
        records += 1;
        good_len = end + 1;
        start = end + 1;
    }
    let mut events: Vec<(usize, EventRecord)> = order.into_iter().filter_map(|id| newest.remove(&id)).collect();
    mark_replayed(&mut events);
    let mut hashes: HashMap<(String, String), Result<String, String>> = HashMap::new();
    for (line, rec) in &events {
        let doc = hash_document(rec);
        let got =
            hashes.entry((doc.clone(), rec.class.clone())).or_insert_with(|| hasher.policy_hash(&doc, &rec.class));
        match got {
            Ok(h) if *h == rec.policy_hash => {}
            Ok(h) => {
                return Err(JournalError::invalid(
                    *line,
                    "policy",
                    format!("hashes to {h}, not to policy_hash {}", rec.policy_hash),
                ))
            }
            Err(e) => return Err(JournalError::invalid(*line, "policy", format!("refused by the component: {e}"))),
        }
    }
    Ok(Recovered { events, records, good_len, torn_bytes: bytes.len() - good_len })
}
