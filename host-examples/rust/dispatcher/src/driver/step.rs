//! The loop: gather what arrived (answers, a signal, admissions due, the
//! engine's timeout), feed it as one batch, stop when the run is done or
//! its drain ended, wait for the next thing.

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::io::{log, Done};
use super::{Driver, Msg, Run};
use crate::http_client::Delivery;

impl Driver {
    pub(super) fn run_loop(&mut self, r: &mut Run, rx: &Receiver<Msg>) -> Result<(), String> {
        let mut source = r.source.by_ref().peekable();
        let mut source_open = true;
        let mut admitted: u64 = 0;
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
            let mut next_admission: Option<u64> = None;
            if draining.is_none() && self.swap_to.is_none() && source_open {
                let elapsed = now.saturating_sub(self.start_ms);
                loop {
                    if self.config.deadline_ms.is_some_and(|d| elapsed >= d) {
                        source_open = false;
                        break;
                    }
                    if self.config.cap_in_progress && self.open >= self.config.concurrency as u64 {
                        break;
                    }
                    let Some(ev) = source.peek() else {
                        source_open = false;
                        break;
                    };
                    if self.artifact.generation() != self.generation {
                        break; // a swap's message is on its way: admit on the new engine
                    }
                    let paced = self.config.rate_per_s.map(|rate| (admitted as f64 * 1000.0 / rate) as u64);
                    let due = paced.max(ev.at_ms).unwrap_or(0);
                    if elapsed < due {
                        next_admission = Some(self.start_ms + due);
                        break;
                    }
                    let ev = source.next().expect("peeked");
                    batch.push(json!({"op": "admit", "now_ms": now, "event_id": ev.event_id,
                        "endpoint_id": ev.endpoint_id, "target": ev.target, "class": ev.class}));
                    if self.config.record_stops {
                        *self.tally.admitted_by_endpoint.entry(ev.endpoint_id.clone()).or_default() += 1;
                    }
                    self.endpoint_of.insert(ev.event_id, ev.endpoint_id);
                    admitted += 1;
                    self.open += 1;
                    self.tally.admitted += 1;
                }
            }
            if batch.is_empty() && self.timeout_at.is_some_and(|t| t <= now) {
                batch.push(json!({"op": "tick", "now_ms": now}));
            }
            if !batch.is_empty() {
                self.feed(batch)?;
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
            } else if !source_open && self.open == 0 && self.sends.is_empty() && self.calls == 0 {
                return self.sync();
            }
            if let Some(p) = r.progress.as_mut() {
                if Instant::now() >= next_progress {
                    p(second, &self.tally);
                    second += 1;
                    next_progress += Duration::from_secs(1);
                }
            }
            // Wait for an answer, the engine's timeout, the next admission,
            // or (at most 10 ms) a signal.
            let now = self.now();
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
