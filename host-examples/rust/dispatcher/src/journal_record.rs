//! Journal format 1 records (docs/journal.md, "Records"): the `<crc> <json>`
//! line, the header, and the event record with its admitted `policy`, read
//! strictly: every field of the table with its type, nothing else (an
//! unknown field is an error naming it: a reader that dropped it would
//! write the event back without it).

use retry_policy_core::{Backoff, Budget, DeadLetter, Jitter, Policy};
use serde_json::{json, Map, Value};

use crate::journal_error::JournalError;
use crate::store::{stop_reason_from_str, EventRecord, Status};

/// The header's `format`.
pub const FORMAT: &str = "webhook-retry-policy/journal";

/// CRC-32 (IEEE 802.3, zlib's `crc32`), bitwise over a 256-entry table.
pub fn crc32(bytes: &[u8]) -> u32 {
    const fn table() -> [u32; 256] {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    }
    const TABLE: [u32; 256] = table();
    !bytes.iter().fold(!0u32, |c, &b| TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8))
}

/// One record as a complete line: `<crc> <json>\n`.
pub fn line(record: &Value) -> String {
    let json = record.to_string();
    format!("{:08x} {json}\n", crc32(json.as_bytes()))
}

/// A new journal's header (journal format 2).
pub fn header(created_at_ms: u64) -> Value {
    json!({"v": 2, "type": "header", "format": FORMAT, "created_at_ms": created_at_ms})
}

pub fn policy_json(p: &Policy) -> Value {
    json!({
        "window_ms": p.window_ms, "hard_cap": p.hard_cap,
        "backoff": {"base_ms": p.backoff.base_ms, "factor": p.backoff.factor, "cap_ms": p.backoff.cap_ms,
                    "jitter": p.backoff.jitter.as_str()},
        "budget": {"ratio": p.budget.ratio, "window_ms": p.budget.window_ms, "min_sample": p.budget.min_sample,
                   "sliding": p.budget.sliding},
    })
}

/// The event record, as every writer now writes it: `"v": 2`, the format-1
/// fields plus format 2's (its `policy` with the `health` section, if any).
pub fn event_json(r: &EventRecord) -> Value {
    let mut v = json!({
        "v": 2, "type": "event",
        "event_id": r.event_id, "endpoint_id": r.endpoint_id, "target": r.target, "class": r.class,
        "policy_version": r.policy_version, "policy_hash": r.policy_hash, "policy": crate::journal_record_v2::policy_with_health(&r.policy, r.health.as_ref()),
        "first_attempted_at_ms": r.first_attempted_at_ms, "deadline_ms": r.deadline_ms,
        "max_attempts": r.max_attempts, "offsets_ms": r.offsets_ms,
        "attempts": r.attempts, "credentials_refreshed": r.credentials_refreshed,
        "next_attempt_at_ms": r.next_attempt_at_ms, "status": r.status.as_str(),
        "last_outcome": r.last_outcome,
        "stop_reason": r.stop_reason.map(|s| s.as_str()),
        "dead_letter": r.dead_letter.as_ref().map(|d| json!({
            "event_id": d.event_id, "endpoint_id": d.endpoint_id, "attempts": d.attempts,
            "elapsed_ms": d.elapsed_ms, "stop_reason": d.stop_reason.as_str(),
        })),
        "disable_endpoint": r.disable_endpoint, "finished_at_ms": r.finished_at_ms,
    });
    if let Some(m) = v.as_object_mut() {
        if let Some(b) = &r.body_b64 {
            m.insert("body_b64".into(), b.clone().into());
        }
        crate::journal_record_v2::write_fields(r, m);
    }
    v
}

/// Reads the fields of one JSON object, each at most once, then refuses
/// any field left over. Field names in errors are dotted paths.
pub(crate) struct Fields<'a> {
    pub(crate) obj: Map<String, Value>,
    prefix: &'a str,
    line: usize,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(v: &Value, prefix: &'a str, line: usize) -> Result<Self, JournalError> {
        let name = if prefix.is_empty() { "record" } else { prefix.trim_end_matches('.') };
        match v {
            Value::Object(m) => Ok(Fields { obj: m.clone(), prefix, line }),
            _ => Err(JournalError::invalid(line, name, "must be a JSON object")),
        }
    }
    pub(crate) fn name(&self, k: &str) -> String {
        format!("{}{k}", self.prefix)
    }
    pub(crate) fn err(&self, k: &str, why: &str) -> JournalError {
        JournalError::invalid(self.line, &self.name(k), why)
    }
    pub(crate) fn take(&mut self, k: &str) -> Result<Value, JournalError> {
        self.obj.remove(k).ok_or_else(|| self.err(k, "is missing"))
    }
    pub(crate) fn str(&mut self, k: &str) -> Result<String, JournalError> {
        match self.take(k)? {
            Value::String(s) => Ok(s),
            _ => Err(self.err(k, "must be a string")),
        }
    }
    pub(crate) fn u64(&mut self, k: &str) -> Result<u64, JournalError> {
        self.take(k)?.as_u64().ok_or_else(|| self.err(k, "must be a non-negative integer"))
    }
    pub(crate) fn u32(&mut self, k: &str) -> Result<u32, JournalError> {
        u32::try_from(self.u64(k)?).map_err(|_| self.err(k, "is too large"))
    }
    pub(crate) fn f64(&mut self, k: &str) -> Result<f64, JournalError> {
        self.take(k)?.as_f64().ok_or_else(|| self.err(k, "must be a number"))
    }
    pub(crate) fn bool(&mut self, k: &str) -> Result<bool, JournalError> {
        self.take(k)?.as_bool().ok_or_else(|| self.err(k, "must be true or false"))
    }
    pub(crate) fn stop_reason(&mut self, k: &str) -> Result<Option<retry_policy_core::StopReason>, JournalError> {
        match self.take(k)? {
            Value::Null => Ok(None),
            Value::String(s) => stop_reason_from_str(&s).map(Some).ok_or_else(|| self.err(k, "is not a stop reason")),
            _ => Err(self.err(k, "must be a string or null")),
        }
    }
    /// Refuse whatever field was not read.
    pub(crate) fn done(self) -> Result<(), JournalError> {
        match self.obj.keys().next() {
            Some(k) => Err(self.err(k, "is not a field of this journal record")),
            None => Ok(()),
        }
    }
}

/// `v` and `type` of a record (checked first: `v` other than 1 or 2 is
/// `journal_unsupported`, whatever the rest holds).
pub fn kind(v: &Value, line: usize) -> Result<(u64, String), JournalError> {
    let obj = v.as_object().ok_or_else(|| JournalError::invalid(line, "record", "must be a JSON object"))?;
    let version = match obj.get("v") {
        Some(n) if matches!(n.as_u64(), Some(1 | 2)) => n.as_u64().unwrap_or(1),
        Some(n) => return Err(JournalError::Unsupported { line, why: format!("record version `v` {n}, not 1 or 2") }),
        None => return Err(JournalError::invalid(line, "v", "is missing")),
    };
    match obj.get("type") {
        Some(Value::String(t)) => Ok((version, t.clone())),
        _ => Err(JournalError::invalid(line, "type", "must be a string")),
    }
}

/// Check a header record (its `v` and `type` already read by [`kind`]).
pub fn check_header(v: &Value, line: usize) -> Result<(), JournalError> {
    let mut f = Fields::new(v, "", line)?;
    f.take("v")?;
    f.take("type")?;
    let format = f.str("format")?;
    if format != FORMAT {
        return Err(JournalError::Unsupported { line, why: format!("format `{format}`, not `{FORMAT}`") });
    }
    f.u64("created_at_ms")?;
    f.done()
}

fn policy(
    v: Value,
    version: u64,
    line: usize,
) -> Result<(Policy, Option<retry_policy_core::health::Health>), JournalError> {
    let mut f = Fields::new(&v, "policy.", line)?;
    let health = match (version, f.obj.remove("health")) {
        (2, Some(h)) => crate::journal_record_v2::parse_health(h, line)?,
        (_, None) => None,
        (_, Some(_)) => return Err(f.err("health", "is a field of journal format 2 (a v2 record)")),
    };
    let window_ms = f.u64("window_ms")?;
    let hard_cap = f.u32("hard_cap")?;
    let mut b = Fields::new(&f.take("backoff")?, "policy.backoff.", line)?;
    let jitter_name = b.str("jitter")?;
    let jitter = Jitter::parse(&jitter_name).map_err(|_| b.err("jitter", "is not none, full or equal"))?;
    let backoff = Backoff { base_ms: b.u64("base_ms")?, factor: b.f64("factor")?, cap_ms: b.u64("cap_ms")?, jitter };
    b.done()?;
    let mut g = Fields::new(&f.take("budget")?, "policy.budget.", line)?;
    let budget = Budget {
        ratio: g.f64("ratio")?,
        window_ms: g.u64("window_ms")?,
        min_sample: g.u64("min_sample")?,
        sliding: g.bool("sliding")?,
    };
    g.done()?;
    f.done()?;
    Ok((Policy { backoff, window_ms, hard_cap, budget }, health))
}

pub(crate) fn dead_letter(v: Value, prefix: &str, line: usize) -> Result<Option<DeadLetter>, JournalError> {
    if v.is_null() {
        return Ok(None);
    }
    let mut f = Fields::new(&v, prefix, line)?;
    let d = DeadLetter {
        event_id: f.str("event_id")?,
        endpoint_id: f.str("endpoint_id")?,
        attempts: f.u32("attempts")?,
        elapsed_ms: f.u64("elapsed_ms")?,
        stop_reason: f.stop_reason("stop_reason")?.ok_or_else(|| f.err("stop_reason", "must be a stop reason"))?,
    };
    f.done()?;
    Ok(Some(d))
}

/// Parse an event record of `version` 1 or 2 (its `v` and `type` already
/// read by [`kind`]); the error names the field. The policy hash is checked
/// by the reader.
pub fn parse_event(v: &Value, version: u64, line: usize) -> Result<EventRecord, JournalError> {
    let mut f = Fields::new(v, "", line)?;
    f.take("v")?;
    f.take("type")?;
    let status = match (f.str("status")?.as_str(), version) {
        ("pending", _) => Status::Pending,
        ("held", 2) => Status::Held,
        ("delivered", _) => Status::Delivered,
        ("dead_lettered", _) => Status::DeadLettered,
        _ => return Err(f.err("status", "is not pending, held (v2), delivered or dead_lettered")),
    };
    let hold = crate::journal_record_v2::read_fields(&mut f, version, status, line)?;
    let policy_hash = f.str("policy_hash")?;
    if policy_hash.len() != 16 || !policy_hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(f.err("policy_hash", "must be 16 lowercase hex digits"));
    }
    let offsets_ms = match f.take("offsets_ms")? {
        Value::Array(a) => a.iter().map(Value::as_u64).collect::<Option<Vec<_>>>(),
        _ => None,
    }
    .ok_or_else(|| f.err("offsets_ms", "must be an array of non-negative integers"))?;
    let body_b64 = match f.obj.remove("body_b64") {
        None => None,
        Some(Value::String(s)) if decode_body(&s).is_some() => Some(s),
        Some(_) => return Err(f.err("body_b64", "must be standard base64 with padding")),
    };
    let (admitted, health) = policy(f.take("policy")?, version, line)?;
    let rec = EventRecord {
        event_id: f.str("event_id")?,
        endpoint_id: f.str("endpoint_id")?,
        target: f.str("target")?,
        class: f.str("class")?,
        policy_version: f.str("policy_version")?,
        policy_hash,
        policy: admitted,
        first_attempted_at_ms: f.u64("first_attempted_at_ms")?,
        deadline_ms: f.u64("deadline_ms")?,
        max_attempts: f.u32("max_attempts")?,
        offsets_ms,
        attempts: f.u32("attempts")?,
        credentials_refreshed: f.bool("credentials_refreshed")?,
        next_attempt_at_ms: f.u64("next_attempt_at_ms")?,
        status,
        last_outcome: f.str("last_outcome")?,
        stop_reason: f.stop_reason("stop_reason")?,
        dead_letter: dead_letter(f.take("dead_letter")?, "dead_letter.", line)?,
        disable_endpoint: f.bool("disable_endpoint")?,
        finished_at_ms: f.u64("finished_at_ms")?,
        body_b64,
        health,
        hold,
    };
    f.done()?;
    Ok(rec)
}

/// The payload of `body_b64` (standard base64 with padding), `None` when it is not that.
pub fn decode_body(b64: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(b64).ok()
}

/// The one-class document whose admission gives the hash `policy` must
/// have: `{"version": policy_version, "classes": {class: policy}}` (the
/// policy with its `health` section, if any: a format-3 document).
pub fn hash_document(r: &EventRecord) -> String {
    let p = crate::journal_record_v2::policy_with_health(&r.policy, r.health.as_ref());
    json!({"version": r.policy_version, "classes": {r.class.clone(): p}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crc_is_zlibs_crc32() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(line(&json!({"a": 1})), format!("{:08x} {{\"a\":1}}\n", crc32(b"{\"a\":1}")));
    }
}
