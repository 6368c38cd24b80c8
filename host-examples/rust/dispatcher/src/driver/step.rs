//! The loop: gather what arrived (answers, a signal, admissions due, the
//! engine's timeout), feed it as one batch, stop when the run is done or
//! its drain ended, wait for the next thing.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::actions::{Refused, AT_CAPACITY};
use super::admissions::Admissions;
use super::io::{log, Done};
use super::{Driver, Msg, NewEvent, Run};
use crate::http_client::Delivery;

impl Driver {
    pub(super) fn run_loop(&mut self, r: &mut Run, rx: &Receiver<Msg>) -> Result<(), String> {
        let source = std::mem::replace(&mut r.source, Box::new(std::iter::empty()));
        let mut admissions = Admissions::new(source, self.config.rate_per_s, self.config.deadline_ms);
        let mut draining: Option<Instant> = None;
        let mut carry: Vec<Msg> = Vec::new();
        let mut next_progress = Instant::now() + Duration::from_secs(1);
        let mut second = 1;
        loop {
            let now = self.now();
            let mut batch = Vec::new();
            while let Ok(m) = rx.try_recv() {
                carry.push(m);
            }
            for m in carry.drain(..) {
                match m {
                    Msg::Io(done) => batch.push(self.input_of(done, now)),
                    Msg::Swapped(sw) if draining.is_none() => {
                        if self.swapped(&sw) {
                            batch.push(json!({"op": "drain", "now_ms": now}));
                        }
                    }
                    Msg::Swapped(_) => log("an artifact swapped in during the drain: this run ends on the old one"),
                    Msg::Document(text) => self.reload(text, now)?,
                }
            }
            if draining.is_none() && r.signals.received() {
                // A swap waiting for its drain is dropped: the run ends here.
                if self.swap_to.take().is_none() {
                    batch.push(json!({"op": "drain", "now_ms": now}));
                }
                draining = Some(Instant::now() + self.config.drain);
                log("draining: no new attempts; in-progress attempts may finish");
            }
            if batch.is_empty() && self.timeout_at.is_some_and(|t| t <= now) {
                batch.push(json!({"op": "tick", "now_ms": now}));
            }
            // Admissions ride in the same batch, after the inputs that may free their places.
            let admitting = draining.is_none() && self.admitting();
            let (base, admits) =
                (batch.len(), if admitting { self.admit(&mut admissions, &mut batch, now) } else { vec![] });
            let mut refused = false;
            if !batch.is_empty() {
                let errors = self.feed(batch)?;
                refused = self.refused_admissions(&errors, base, admits, &mut admissions)?;
            }
            if let Some(deadline) = draining {
                if self.drained || Instant::now() >= deadline {
                    // Attempts still out are abandoned: counted as made
                    // (their number is journaled), their events pending.
                    for (_, attempt) in std::mem::take(&mut self.sends) {
                        self.tally.attempted(attempt);
                    }
                    self.tally.drained = true;
                    return self.sync();
                }
            } else if self.swap_to.is_some() {
                if self.drained {
                    self.migrate()?;
                }
            } else if self.tally.pending() == 0 && self.sends.is_empty() && self.calls == 0 && admissions.done() {
                return self.sync();
            }
            if let Some(p) = r.progress.as_mut() {
                if Instant::now() >= next_progress {
                    p(second, &self.tally);
                    second += 1;
                    next_progress += Duration::from_secs(1);
                }
            }
            // Wait for an answer, the engine's timeout, the next admission
            // (at once when this batch freed more places than it offered),
            // or (at most 10 ms) a signal.
            let now = self.now();
            let mut next_admission = None;
            if draining.is_none() && self.admitting() && !refused && !self.full() {
                let due = admissions.next_due(now.saturating_sub(self.start_ms));
                next_admission = due.map(|due| self.start_ms + due);
            }
            let mut wait = 10u64;
            for t in [self.timeout_at, next_admission].into_iter().flatten() {
                wait = wait.min(t.saturating_sub(now));
            }
            match rx.recv_timeout(Duration::from_millis(wait)) {
                Ok(m) => carry.push(m),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err("the I/O threads are gone".into()),
            }
        }
    }

    /// Admissions go to the current engine: none while a swap waits for the
    /// old one to drain, or while a swap's message is on its way.
    fn admitting(&self) -> bool {
        self.swap_to.is_none() && self.artifact.generation() == self.generation
    }

    /// `concurrency` events open (the replica's bound): only an input that
    /// stops one makes a place.
    fn full(&self) -> bool {
        self.config.cap_in_progress && self.tally.pending() >= self.config.concurrency as u64
    }

    /// The events this batch admits, appended to it. With the bound (the
    /// engine's `max_open`), a place for each open event fewer than
    /// `concurrency` and one for each input already in the batch, which may
    /// stop an event: what it does not free the engine refuses `at_capacity`.
    fn admit(&mut self, admissions: &mut Admissions, batch: &mut Vec<Value>, now: u64) -> Vec<NewEvent> {
        let room = match self.config.cap_in_progress {
            true => (self.config.concurrency + batch.len()).saturating_sub(self.tally.pending() as usize),
            false => usize::MAX,
        };
        // A swap's message may be on its way: admit on the new engine.
        let admits = admissions.take(room, now.saturating_sub(self.start_ms), || self.admitting());
        for ev in &admits {
            batch.push(json!({"op": "admit", "now_ms": now, "event_id": ev.event_id,
                "endpoint_id": ev.endpoint_id, "target": ev.target, "class": ev.class}));
            if self.config.record_stops {
                *self.tally.admitted_by_endpoint.entry(ev.endpoint_id.clone()).or_default() += 1;
            }
            self.endpoint_of.insert(ev.event_id.clone(), ev.endpoint_id.clone());
            self.tally.admitted += 1;
        }
        admits
    }

    /// The batch's admissions (from index `base`) the engine refused are
    /// not this run's events after all: their counts are undone. Those
    /// refused `at_capacity` are taken again later (silently); a
    /// `duplicate_event` (an id a resumed journal holds) is dropped, as
    /// logged; any other refusal (a class the document lacks, a target it
    /// cannot read, a full engine) ends the run. Whether any was `at_capacity`.
    fn refused_admissions(
        &mut self,
        errors: &[Refused],
        base: usize,
        mut admits: Vec<NewEvent>,
        admissions: &mut Admissions,
    ) -> Result<bool, String> {
        let (mut back, mut fatal) = (Vec::new(), None);
        // Highest index first, so each removal leaves the lower ones in place.
        let n = admits.len();
        for e in errors.iter().rev().filter(|e| e.index >= base && e.index - base < n) {
            let ev = admits.remove(e.index - base);
            self.endpoint_of.remove(&ev.event_id);
            self.tally.admitted -= 1;
            if let Some(n) = self.tally.admitted_by_endpoint.get_mut(&ev.endpoint_id) {
                *n -= 1;
            }
            match e.code.as_str() {
                AT_CAPACITY => back.push(ev),
                "duplicate_event" => {}
                _ => fatal = Some(format!("engine refused event {}: {e}", ev.event_id)), // the first one last
            }
        }
        if let Some(e) = fatal {
            return Err(e);
        }
        back.reverse();
        let refused = !back.is_empty();
        admissions.give_back(back);
        Ok(refused)
    }

    /// An I/O thread's answer as the engine's input.
    fn input_of(&mut self, done: Done, now: u64) -> Value {
        match done {
            Done::Sent { event_id, attempt, delivery } => {
                self.sends.remove(&(event_id.clone(), attempt));
                let mut input = json!({"op": "result", "now_ms": now, "event_id": event_id, "attempt": attempt});
                match delivery {
                    Delivery::NotSent => input["not_started"] = true.into(),
                    Delivery::Response { status, retry_after } => {
                        self.tally.attempted(attempt);
                        input["status"] = status.into();
                        if let Some(ra) = retry_after {
                            input["retry_after"] = ra.into();
                        }
                    }
                    Delivery::Failed(kind) => {
                        self.tally.attempted(attempt);
                        input["error_kind"] = kind.into();
                    }
                }
                input
            }
            Done::Stored { call_id, reply } => {
                self.calls = self.calls.saturating_sub(1);
                match reply {
                    Some(ints) => json!({"op": "store", "now_ms": now, "call_id": call_id, "reply": ints}),
                    None => json!({"op": "store", "now_ms": now, "call_id": call_id, "failed": true}),
                }
            }
        }
    }
}
