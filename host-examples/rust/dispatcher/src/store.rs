//! The event store: every event with the policy and schedule it was
//! admitted under and its first-attempt instant, persisted when it is
//! accepted, so the retry window is measured from the same instant (and
//! under the same policy) by whichever worker, or whichever language's
//! dispatcher, picks the event up later. In memory, plus an optional journal
//! (docs/journal.md: [`crate::journal`]; formats 1 and 2 read, 2 written; one full record per
//! change, fsynced before `put` returns; on load the newest record of each
//! event wins and its `policy` is checked against its `policy_hash`).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use retry_policy_core::{DeadLetter, Policy, StopReason};
use serde_json::Value;

use crate::journal::Journal;
use crate::journal_error::JournalError;
use crate::journal_read::PolicyHasher;
/// Where an event is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Pending,
    /// Format 3: waiting, spending no attempt (journal format 2).
    Held,
    Delivered,
    DeadLettered,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Held => "held",
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
    /// The class policy it was admitted under: a resumed event is decided
    /// under it, never under the current document.
    pub policy: Policy,
    pub first_attempted_at_ms: u64,
    pub deadline_ms: u64,
    pub max_attempts: u32,
    pub offsets_ms: Vec<u64>,
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
    /// The payload (standard base64) when it is not derived from the event.
    pub body_b64: Option<String>,
    /// The class's `health` section it was admitted under (format 3;
    /// `None`: format 2). Journaled inside `policy` (journal format 2).
    pub health: Option<retry_policy_core::health::Health>,
    /// Holds and replays (journal format 2; zeros for format 2).
    pub hold: HoldFields,
}

/// The fields journal format 2 adds (docs/journal.md, "Journal format 2").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HoldFields {
    /// When a held event is due (0 unless held).
    pub held_until_ms: u64,
    /// Non-null exactly when held.
    pub hold_reason: Option<retry_policy_core::health::HoldReason>,
    /// When the current hold began (0 unless held).
    pub held_since_ms: u64,
    /// Total time spent in holds already ended.
    pub held_ms: u64,
    /// A budget-held retry: its wake makes a `reserve` call first.
    pub needs_reserve: bool,
    /// Wakes the budget refused in this hold (`settle-wake`'s count).
    pub wake_refusals: u32,
    /// The dead letter this event replays.
    pub replay_of: Option<String>,
    /// That dead letter's `dead_letter` object.
    pub replayed_dead_letter: Option<DeadLetter>,
    /// On a dead letter: the id of its replay.
    pub replayed_as: Option<String>,
}

impl EventRecord {
    /// Waiting to be attempted (pending or held): what resume continues.
    pub fn is_open(&self) -> bool {
        matches!(self.status, Status::Pending | Status::Held)
    }
}

pub fn stop_reason_from_str(s: &str) -> Option<StopReason> {
    StopReason::ALL.into_iter().find(|r| r.as_str() == s)
}

impl EventRecord {
    /// The journal's event record (journal format 2, as every writer now writes).
    pub fn to_json(&self) -> Value {
        crate::journal_record::event_json(self)
    }

    /// Parse a format-1 or format-2 event record; the error names the field.
    pub fn from_json(v: &Value) -> Result<EventRecord, JournalError> {
        let (version, _) = crate::journal_record::kind(v, 0)?;
        crate::journal_record::parse_event(v, version, 0)
    }

    /// Counted by the compaction rule: pending or held, or a dead letter
    /// not yet replayed (journal format 2).
    fn is_live(&self) -> bool {
        match self.status {
            Status::Delivered => false,
            Status::DeadLettered => self.hold.replayed_as.is_none(),
            Status::Pending | Status::Held => true,
        }
    }
}

/// Events by id, with an optional crash-safe journal ([`crate::journal`]).
#[derive(Default)]
pub struct EventStore {
    events: Mutex<Events>,
    journal: Option<Journal>,
}

#[derive(Default)]
struct Events {
    by_id: HashMap<String, EventRecord>,
    /// Each event's first-seen position (journal order).
    first_seen: HashMap<String, u64>,
    /// Pending events plus dead letters (the compaction rule's live ones).
    live: u64,
}

impl Events {
    fn insert(&mut self, rec: EventRecord) {
        let next = self.first_seen.len() as u64;
        self.first_seen.entry(rec.event_id.clone()).or_insert(next);
        let now_live = rec.is_live();
        if let Some(old) = self.by_id.insert(rec.event_id.clone(), rec) {
            self.live -= old.is_live() as u64;
        }
        self.live += now_live as u64;
    }
}

impl EventStore {
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// Journal every change to `path` (see [`EventStore::open_journal`]).
    pub fn with_journal(path: &Path, hasher: &mut dyn PolicyHasher) -> Result<Self, JournalError> {
        Self::open_journal(path, hasher).map(|(s, _)| s)
    }

    /// Take the journal's lock, cut a torn last record, write the header of
    /// a new journal, and load what it holds (each record's `policy` checked
    /// against its `policy_hash` by `hasher`): the store knows every event
    /// of the journal, and the records (newest of each event, first-seen
    /// order) are returned so that the pending ones can be resumed.
    pub fn open_journal(path: &Path, hasher: &mut dyn PolicyHasher) -> Result<(Self, Vec<EventRecord>), JournalError> {
        let opened = Journal::open(path, hasher)?;
        if opened.torn_bytes > 0 {
            eprintln!(
                "dispatcher: event store {}: cut a torn last record ({} bytes; its change was never acknowledged)",
                path.display(),
                opened.torn_bytes
            );
        }
        let records: Vec<EventRecord> = opened.events.into_iter().map(|(_, r)| r).collect();
        let mut events = Events::default();
        for r in &records {
            events.insert(r.clone());
        }
        Ok((EventStore { events: Mutex::new(events), journal: Some(opened.journal) }, records))
    }

    /// Save a record (replacing the previous version of the event). With a
    /// journal, it returns once the change is on disk; a write error is
    /// returned (the in-memory copy is updated all the same).
    pub fn put(&self, rec: &EventRecord) -> Result<(), JournalError> {
        let Some(j) = &self.journal else {
            self.events.lock().unwrap_or_else(|p| p.into_inner()).insert(rec.clone());
            return Ok(());
        };
        let seq = {
            // Memory and file change in one step, in the same order.
            let mut inner = j.lock_inner();
            let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
            events.insert(rec.clone());
            let seq = j.write(&mut inner, rec)?;
            if Journal::compaction_due(inner.records, events.live) {
                // In first-seen order, so the journal's order (replay's) survives it.
                let mut live: Vec<&EventRecord> = events.by_id.values().filter(|r| r.is_live()).collect();
                live.sort_by_key(|r| events.first_seen.get(&r.event_id).copied().unwrap_or(0));
                if let Err(e) = j.compact(&mut inner, live.into_iter()) {
                    eprintln!("dispatcher: compaction failed (the journal is unchanged): {e}");
                }
            }
            seq
        };
        j.sync_to(seq)
    }

    pub fn get(&self, event_id: &str) -> Option<EventRecord> {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).by_id.get(event_id).cloned()
    }

    /// A snapshot of every event, in first-seen order (the journal's).
    pub fn all_in_order(&self) -> Vec<EventRecord> {
        let events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let mut all: Vec<(u64, EventRecord)> = events
            .by_id
            .values()
            .map(|r| (events.first_seen.get(&r.event_id).copied().unwrap_or(0), r.clone()))
            .collect();
        all.sort_by_key(|(n, _)| *n);
        all.into_iter().map(|(_, r)| r).collect()
    }

    /// A snapshot of every event.
    pub fn all(&self) -> Vec<EventRecord> {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).by_id.values().cloned().collect()
    }

    /// Read another process's journal (no lock taken, nothing written): the
    /// newest record of each event, in first-seen order, each `policy`
    /// checked against its `policy_hash`. A torn last line is skipped; any
    /// other bad line is an error naming its line number.
    pub fn read_journal(path: &Path, hasher: &mut dyn PolicyHasher) -> Result<Vec<EventRecord>, JournalError> {
        Ok(crate::journal::read_file(path, hasher)?.events.into_iter().map(|(_, r)| r).collect())
    }
}
