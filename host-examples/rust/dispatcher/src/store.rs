//! The event store: every event with the schedule it was admitted under
//! and its first-attempt instant, persisted when it is accepted, so the
//! retry window is measured from the same instant by whichever worker picks
//! the event up later. In memory, plus an optional JSON-lines journal (one
//! full record per change, fsynced before `put` returns, one writer, torn
//! tail cut on open, compacted: [`crate::journal`]; on load the last line
//! of each event wins).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use retry_policy_core::{DeadLetter, StopReason};
use serde_json::{json, Value};

use crate::journal::{parse_lines, Journal, COMPACT_MIN_LINES};

/// Where an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pending,
    Delivered,
    DeadLettered,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Delivered => "delivered",
            Status::DeadLettered => "dead_lettered",
        }
    }
}

/// One event and everything persisted about it.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRecord {
    pub event_id: String,
    pub endpoint_id: String,
    pub target: String,
    pub class: String,
    /// The admission (`admit`): document version, policy fingerprint,
    /// first-attempt instant, deadline and the derived schedule.
    pub policy_version: String,
    pub policy_hash: String,
    pub first_attempted_at_ms: u64,
    pub deadline_ms: u64,
    pub max_attempts: u32,
    pub offsets_ms: Vec<u64>,
    pub expected_span_ms: u64,
    pub worst_case_span_ms: u64,
    /// Attempts made so far.
    pub attempts: u32,
    pub credentials_refreshed: bool,
    /// When the next attempt is due (pending events).
    pub next_attempt_at_ms: u64,
    pub status: Status,
    /// Status code or transport error kind of the last attempt.
    pub last_outcome: String,
    pub stop_reason: Option<StopReason>,
    pub dead_letter: Option<DeadLetter>,
    pub disable_endpoint: bool,
    /// When the event stopped (0 while pending).
    pub finished_at_ms: u64,
}

pub fn stop_reason_from_str(s: &str) -> Option<StopReason> {
    StopReason::ALL.into_iter().find(|r| r.as_str() == s)
}

impl EventRecord {
    pub fn to_json(&self) -> Value {
        json!({
            "event_id": self.event_id, "endpoint_id": self.endpoint_id, "target": self.target,
            "class": self.class, "policy_version": self.policy_version, "policy_hash": self.policy_hash,
            "first_attempted_at_ms": self.first_attempted_at_ms, "deadline_ms": self.deadline_ms,
            "max_attempts": self.max_attempts, "offsets_ms": self.offsets_ms,
            "expected_span_ms": self.expected_span_ms, "worst_case_span_ms": self.worst_case_span_ms,
            "attempts": self.attempts, "credentials_refreshed": self.credentials_refreshed,
            "next_attempt_at_ms": self.next_attempt_at_ms, "status": self.status.as_str(),
            "last_outcome": self.last_outcome,
            "stop_reason": self.stop_reason.map(|r| r.as_str()),
            "dead_letter": self.dead_letter.as_ref().map(|d| json!({
                "event_id": d.event_id, "endpoint_id": d.endpoint_id, "attempts": d.attempts,
                "elapsed_ms": d.elapsed_ms, "stop_reason": d.stop_reason.as_str(),
            })),
            "disable_endpoint": self.disable_endpoint,
            "finished_at_ms": self.finished_at_ms,
        })
    }

    /// Parse a stored record; the error names the field.
    pub fn from_json(v: &Value) -> Result<EventRecord, String> {
        let s = |k: &str| {
            v.get(k).and_then(Value::as_str).map(String::from).ok_or_else(|| format!("`{k}` must be a string"))
        };
        let n =
            |k: &str| v.get(k).and_then(Value::as_u64).ok_or_else(|| format!("`{k}` must be a non-negative integer"));
        let n32 = |k: &str| n(k).and_then(|x| u32::try_from(x).map_err(|_| format!("`{k}` is too large")));
        let b = |k: &str| v.get(k).and_then(Value::as_bool).ok_or_else(|| format!("`{k}` must be true or false"));
        let status = match s("status")?.as_str() {
            "pending" => Status::Pending,
            "delivered" => Status::Delivered,
            "dead_lettered" => Status::DeadLettered,
            other => return Err(format!("`status` `{other}` is not pending, delivered or dead_lettered")),
        };
        let reason = |x: &Value, k: &str| -> Result<Option<StopReason>, String> {
            match x.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(r)) => {
                    stop_reason_from_str(r).map(Some).ok_or_else(|| format!("`{k}` `{r}` is unknown"))
                }
                Some(_) => Err(format!("`{k}` must be a string or null")),
            }
        };
        let dead_letter = match v.get("dead_letter") {
            None | Some(Value::Null) => None,
            Some(d) => Some(DeadLetter {
                event_id: d.get("event_id").and_then(Value::as_str).unwrap_or_default().to_string(),
                endpoint_id: d.get("endpoint_id").and_then(Value::as_str).unwrap_or_default().to_string(),
                attempts: d.get("attempts").and_then(Value::as_u64).unwrap_or(0) as u32,
                elapsed_ms: d.get("elapsed_ms").and_then(Value::as_u64).unwrap_or(0),
                stop_reason: reason(d, "stop_reason")?.ok_or("`dead_letter.stop_reason` is missing")?,
            }),
        };
        let offsets_ms = v
            .get("offsets_ms")
            .and_then(Value::as_array)
            .ok_or("`offsets_ms` must be an array")?
            .iter()
            .map(|x| x.as_u64().ok_or_else(|| "`offsets_ms` must hold integers".to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(EventRecord {
            event_id: s("event_id")?,
            endpoint_id: s("endpoint_id")?,
            target: s("target")?,
            class: s("class")?,
            policy_version: s("policy_version")?,
            policy_hash: s("policy_hash")?,
            first_attempted_at_ms: n("first_attempted_at_ms")?,
            deadline_ms: n("deadline_ms")?,
            max_attempts: n32("max_attempts")?,
            offsets_ms,
            expected_span_ms: n("expected_span_ms")?,
            worst_case_span_ms: n("worst_case_span_ms")?,
            attempts: n32("attempts")?,
            credentials_refreshed: b("credentials_refreshed")?,
            next_attempt_at_ms: n("next_attempt_at_ms")?,
            status,
            last_outcome: s("last_outcome")?,
            stop_reason: reason(v, "stop_reason")?,
            dead_letter,
            disable_endpoint: b("disable_endpoint")?,
            finished_at_ms: v.get("finished_at_ms").and_then(Value::as_u64).unwrap_or(0),
        })
    }
}

/// Events by id, with an optional crash-safe JSON-lines journal
/// ([`crate::journal`]).
#[derive(Default)]
pub struct EventStore {
    events: Mutex<HashMap<String, EventRecord>>,
    journal: Option<Journal>,
}

/// The newest record of each event, in first-seen order.
fn latest(path: &Path, lines: Vec<Value>) -> Result<Vec<EventRecord>, String> {
    let mut order = Vec::new();
    let mut latest: HashMap<String, EventRecord> = HashMap::new();
    for (i, v) in lines.iter().enumerate() {
        let rec = EventRecord::from_json(v).map_err(|e| format!("{} record {}: {e}", path.display(), i + 1))?;
        if !latest.contains_key(&rec.event_id) {
            order.push(rec.event_id.clone());
        }
        latest.insert(rec.event_id.clone(), rec);
    }
    Ok(order.into_iter().filter_map(|id| latest.remove(&id)).collect())
}

impl EventStore {
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// Journal every change to `path` (see [`EventStore::open_journal`]).
    pub fn with_journal(path: &Path) -> Result<Self, String> {
        Self::open_journal(path).map(|(s, _)| s)
    }

    /// Take the journal's lock, cut a torn last record, and load what it
    /// holds: the store knows every event of the journal, and the records
    /// (newest of each event, first-seen order) are returned so that the
    /// pending ones can be resumed.
    pub fn open_journal(path: &Path) -> Result<(Self, Vec<EventRecord>), String> {
        let opened = Journal::open(path)?;
        if opened.torn_bytes > 0 {
            eprintln!(
                "dispatcher: event store {}: cut a torn last record ({} bytes; its change was never acknowledged)",
                path.display(),
                opened.torn_bytes
            );
        }
        let records = latest(path, opened.lines)?;
        let events = records.iter().map(|r| (r.event_id.clone(), r.clone())).collect();
        Ok((EventStore { events: Mutex::new(events), journal: Some(opened.journal) }, records))
    }

    /// Save a record (replacing the previous version of the event). With a
    /// journal, it returns once the change is on disk; a write error is
    /// returned (the in-memory copy is updated all the same).
    pub fn put(&self, rec: &EventRecord) -> Result<(), String> {
        let Some(j) = &self.journal else {
            self.events.lock().unwrap_or_else(|p| p.into_inner()).insert(rec.event_id.clone(), rec.clone());
            return Ok(());
        };
        let mut line = rec.to_json().to_string();
        line.push('\n');
        let seq = {
            // Memory and file change in one step, in the same order.
            let mut inner = j.lock_inner();
            let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
            events.insert(rec.event_id.clone(), rec.clone());
            let seq = j.write(&mut inner, &line)?;
            if inner.lines >= COMPACT_MIN_LINES && inner.lines >= 4 * events.len() as u64 {
                let lines = events.values().map(|r| r.to_json().to_string() + "\n");
                if let Err(e) = j.compact(&mut inner, lines) {
                    eprintln!("dispatcher: compaction failed (the journal is unchanged): {e}");
                }
            }
            seq
        };
        j.sync_to(seq)
    }

    pub fn get(&self, event_id: &str) -> Option<EventRecord> {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).get(event_id).cloned()
    }

    /// A snapshot of every event.
    pub fn all(&self) -> Vec<EventRecord> {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect()
    }

    /// Read another process's journal (no lock taken, nothing written): the
    /// newest record of each event, in first-seen order. A torn last line
    /// is skipped; any other bad line is an error naming its line number.
    pub fn read_journal(path: &Path) -> Result<Vec<EventRecord>, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("event store {}: {e}", path.display()))?;
        latest(path, parse_lines(path, &bytes)?.0)
    }
}
