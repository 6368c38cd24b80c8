//! The engine's side of the journal (`crate::journal` owns the format):
//! a line per state change, the header before the first one, and the
//! journal's events turned back into engine events on resume.

use alloc::string::String;
use alloc::vec::Vec;

use super::event::{Event, Phase};
use super::io::Output;
use super::{Engine, EngineError};
use crate::compiled::CompiledPolicy;
use crate::journal;

/// What `resume` found in the journal's bytes.
pub(super) struct Resumed {
    /// Complete records in the bytes (the header included).
    pub records: u64,
    /// Newest record per event, first-seen order, each with its compiled policy.
    pub events: Vec<(Event, CompiledPolicy)>,
    pub torn_bytes: u64,
    /// The bytes to keep (a torn tail cut).
    pub good_len: u64,
    /// The bytes held a header (else the engine writes one first).
    pub has_header: bool,
}

pub(super) fn recover(bytes: &[u8]) -> Result<Resumed, EngineError> {
    let r = journal::recover(bytes).map_err(|e| EngineError::Journal {
        code: e.code.as_str(),
        line: e.line,
        message: e.message.clone(),
    })?;
    let mut events = Vec::with_capacity(r.events.len());
    for rec in r.events {
        let policy = CompiledPolicy::new(rec.policy, rec.health).map_err(|e| EngineError::Journal {
            code: "journal_record_invalid",
            line: 0,
            message: alloc::format!("event {}: {e}", rec.event_id),
        })?;
        let event = Event {
            rec,
            refresh_next: false,
            resumed: true,
            order: 0,
            phase: Phase::Waiting,
            queued: None,
            unwritten: None,
            pacing: None,
            rehold: None,
            probes: 0,
            send_url: None,
        };
        events.push((event, policy));
    }
    Ok(Resumed {
        records: r.records,
        events,
        torn_bytes: r.torn_bytes,
        good_len: r.good_len,
        has_header: r.created_at_ms.is_some(),
    })
}

impl Engine {
    /// Journal the event's record (the header first, once).
    ///
    /// **One record per event per batch.** The line is queued now and its
    /// text written from the event's state when it is polled, or earlier,
    /// just before a `send`, a compaction, a truncation or a snapshot is
    /// queued or the event leaves memory ([`Engine::write_records`]). A
    /// second change of the event before that needs no line of its own:
    /// the queued one will carry the newer state. So an event admitted and
    /// sent in one input is journaled once (its first attempt), not twice.
    /// A host appends a batch's lines before it performs the batch's sends,
    /// so the skipped state could never have been the last durable one.
    pub(crate) fn journal(&mut self, id: &str) {
        if !self.config.journal || self.events.get(id).is_none_or(|e| e.unwritten.is_some()) {
            return;
        }
        self.journal_records += 1;
        if !self.header_written {
            self.journal_records += 1;
            self.header_written = true;
            self.out.push_back(Output::Journal { line: journal::encode_header(self.now_ms) });
        }
        let at = self.out_polled + self.out.len() as u64;
        self.out.push_back(Output::Journal { line: String::new() });
        if let Some(e) = self.events.get_mut(id) {
            e.unwritten = Some(at);
        }
        self.unwritten.push(String::from(id));
    }

    /// Write the text of every queued record from its event's state now.
    pub(super) fn write_records(&mut self) {
        for id in core::mem::take(&mut self.unwritten) {
            let Some(e) = self.events.get_mut(&id) else { continue };
            let Some(at) = e.unwritten.take() else { continue };
            let slot = usize::try_from(at - self.out_polled).ok().and_then(|i| self.out.get_mut(i));
            if let Some(Output::Journal { line }) = slot {
                *line = journal::encode_event(&e.rec);
            }
        }
    }

    /// The journal as it would be rewritten now: a header at `now_ms`, then
    /// every event's record (open and the dead letters kept), first-seen order.
    pub(super) fn state_text(&self) -> String {
        let mut events: Vec<&Event> = self.events.values().collect();
        events.sort_by_key(|e| e.order);
        let mut text = journal::encode_header(self.now_ms);
        for e in events {
            text.push_str(&journal::encode_event(&e.rec));
        }
        text
    }

    /// docs/journal.md "Compaction", decided here once: when the journal
    /// holds at least 1024 records and more than twice the live ones, one
    /// `journal_compact` with the journal rewritten (header, then each live
    /// event's record, first-seen order).
    pub(super) fn maybe_compact(&mut self) {
        if !self.config.journal {
            return;
        }
        let live = self.events.values().filter(|e| e.is_live()).count() as u64;
        if !journal::compaction_due(self.journal_records, live) {
            return;
        }
        let mut events: Vec<&Event> = self.events.values().collect();
        events.sort_by_key(|e| e.order);
        let journal = journal::compact_events(self.now_ms, events.into_iter().map(|e| &e.rec));
        self.write_records();
        self.journal_records = 1 + live;
        self.header_written = true;
        self.out.push_back(Output::JournalCompact { journal });
        let evicted = core::mem::take(&mut self.evicted_dead);
        if evicted > 0 {
            let message = alloc::format!(
                "journal compaction: {evicted} dead letters past max_events ({}) left the journal",
                self.config.max_events
            );
            self.out.push_back(Output::Warn { event_id: None, message });
        }
    }
}
