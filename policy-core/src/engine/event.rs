//! One event's state: what the journal holds about it (the record) and
//! where it is in the send loop (the phase, memory only).

use alloc::string::String;
use core::ops::{Deref, DerefMut};

use crate::decide::{AttemptOutcome, DeliveryState};
use crate::health::{GateEvent, HealthView};
use crate::journal::{EventRecord, Status};

/// Where an open event is in the send loop.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Phase {
    /// In the due queue (pending or held), or a kept dead letter.
    Waiting,
    /// A `probe` call is out for it; `view` is what its gate read.
    Probing { call_id: u64, gate: GateEvent, view: Option<HealthView> },
    /// `Send` was emitted for `attempt`.
    Sending { attempt: u32, probe: bool },
    /// Its attempt ended; the budget's call is out.
    Settling { call_id: u64, outcome: AttemptOutcome, probe: bool },
}

/// An event the engine holds: its journal record and where it is in the loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// What the journal holds (docs/journal.md); the newest line written is this.
    pub rec: EventRecord,
    /// Memory only: the next send refreshes credentials.
    pub(crate) refresh_next: bool,
    /// Memory only: loaded from a journal, not yet judged by `resume`.
    pub(crate) resumed: bool,
    /// Memory only: first-seen order (replay picks in journal order).
    pub(crate) order: u64,
    pub(crate) phase: Phase,
    /// Memory only: its key in the due queue.
    pub(crate) queued: Option<(u64, u64)>,
    /// Memory only: the action number of its record queued but not yet
    /// written (records.rs, "one record per event per input").
    pub(crate) unwritten: Option<u64>,
    /// Memory only: its key `(probes, deadline_ms, seq)` in its endpoint's
    /// hold queue (release.rs), while it waits there.
    pub(crate) pacing: Option<(u32, u64, u64)>,
    /// Memory only: the probes it was sent as (the hold queue's order).
    pub(crate) probes: u32,
    /// Memory only: the endpoint-wide reason ([`super::release::queued`]) of
    /// the journaled hold it is leaving (as a queue member, or resumed in
    /// it): held again for the same reason, it writes no new record.
    pub(crate) rehold: Option<crate::health::HoldReason>,
    /// Memory only: the target spelled one way ([`crate::destination::Target::url`]),
    /// read once (at admission, or at a resumed event's first send) rather
    /// than at every send: reading a URL was 8% of a native batch (callgrind).
    pub(crate) send_url: Option<String>,
}

impl Deref for Event {
    type Target = EventRecord;
    fn deref(&self) -> &EventRecord {
        &self.rec
    }
}

impl DerefMut for Event {
    fn deref_mut(&mut self) -> &mut EventRecord {
        &mut self.rec
    }
}

impl Event {
    /// The contract's state after `attempt` attempts.
    pub(crate) fn state(&self, attempt: u32) -> DeliveryState {
        DeliveryState {
            event_id: self.event_id.clone(),
            endpoint_id: self.endpoint_id.clone(),
            attempt,
            max_attempts: self.max_attempts,
            first_attempted_at_ms: self.first_attempted_at_ms,
            credentials_refreshed: self.credentials_refreshed,
        }
    }

    /// What the gate knows of it; `held`: it is leaving a hold (or is an unsent replay).
    pub(crate) fn gate_event(&self, held: bool) -> GateEvent {
        GateEvent {
            event_id: self.event_id.clone(),
            endpoint_id: self.endpoint_id.clone(),
            attempts: self.attempts,
            first_attempted_at_ms: self.first_attempted_at_ms,
            held,
            held_ms: self.held_ms,
        }
    }

    /// Busy: a call or a send is out for it (it counts against `max_in_flight`).
    pub(crate) fn active(&self) -> bool {
        !matches!(self.phase, Phase::Waiting)
    }

    pub(crate) fn open(&self) -> bool {
        matches!(self.status, Status::Pending | Status::Held)
    }
}
