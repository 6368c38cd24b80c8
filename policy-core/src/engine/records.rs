//! The engine's side of the journal (`crate::journal` owns the format):
//! a line per state change, the header before the first one, and the
//! journal's events turned back into engine events on resume.

use alloc::vec::Vec;

use super::event::{Event, Phase};
use super::io::Output;
use super::{Engine, EngineError};
use crate::compiled::CompiledPolicy;
use crate::journal;

/// What `resume` found in the journal's bytes.
pub(super) struct Resumed {
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
        let event = Event { rec, refresh_next: false, resumed: true, order: 0, phase: Phase::Waiting, queued: None };
        events.push((event, policy));
    }
    Ok(Resumed { events, torn_bytes: r.torn_bytes, good_len: r.good_len, has_header: r.created_at_ms.is_some() })
}

impl Engine {
    /// Journal the event's record as it stands now (the header first, once).
    pub(crate) fn journal(&mut self, id: &str) {
        if !self.header_written {
            self.header_written = true;
            self.out.push_back(Output::Journal { line: journal::encode_header(self.now_ms) });
        }
        if let Some(e) = self.events.get(id) {
            let line = journal::encode_event(&e.rec);
            self.out.push_back(Output::Journal { line });
        }
    }
}
