//! Due events: the queue, and the send loop up to the `Send` action
//! (docs/health-dispatch.md section 2, steps 1-3).
//!
//! ```text
//! due ─► leave hold (held_ms += span) ─► resume (attempts, window) ─► format 2: send
//!                                                   format 3: gate ─► send / send-probe
//!                                                                 ├─► hold (journaled)
//!                                                                 ├─► stop (window): dead letter
//!                                                                 └─► probe: one call per endpoint
//!                                                                             and probe window
//! a budget-held event leaves like any held event (a pacer token, no store
//! call: docs/health.md draft 6)
//! ```

use alloc::string::String;

use super::event::Phase;
use super::io::{Output, Send};
use super::{Engine, Pending};
use crate::compiled::{CallOp, StoreCall};
use crate::decide::{DeadLetter, StopReason};
use crate::health::{GateDecision, GateEvent, HealthView, HoldReason};
use crate::journal::Status;
use crate::step::Resumption;

impl Engine {
    /// Put `id` in the due queue at `at_ms` (replacing its place if it had one).
    pub(crate) fn schedule(&mut self, id: &str, at_ms: u64) {
        let Some(e) = self.events.get_mut(id) else { return };
        if let Some((t, s)) = e.queued.take() {
            self.queue.remove(&(t, s, String::from(id)));
        }
        self.seq += 1;
        e.queued = Some((at_ms, self.seq));
        self.queue.insert((at_ms, self.seq, String::from(id)));
    }

    /// Start due events while fewer than `max_in_flight` are busy.
    pub(crate) fn run_due(&mut self) {
        if !self.config.dispatch {
            return self.judge_due();
        }
        while !self.draining && self.busy < self.config.max_in_flight {
            let Some((t, _, _)) = self.queue.first() else { return };
            if *t > self.now_ms {
                return;
            }
            let (_, _, id) = self.queue.pop_first().expect("checked above");
            if let Some(e) = self.events.get_mut(&id) {
                e.queued = None;
            }
            self.due(&id);
        }
    }

    /// An engine that does not dispatch (docs/engine.md section 1): each due
    /// event is judged (section 4 step 2) and dead-lettered when its window
    /// or its attempts are spent; the others stay where they are.
    fn judge_due(&mut self) {
        let now = self.now_ms;
        let due: alloc::vec::Vec<String> =
            self.queue.iter().take_while(|(t, _, _)| *t <= now).map(|(_, _, id)| id.clone()).collect();
        for id in due {
            let Some(e) = self.events.get(&id) else { continue };
            if e.attempts == 0 && !e.resumed {
                continue;
            }
            let known = &self.policies[&e.policy_hash].policy;
            let Ok(Resumption::Stop(st)) = crate::step::resume(known.policy(), &e.state(e.attempts), now) else {
                continue;
            };
            let Some(dl) = st.dead_letter else { continue };
            if let Some(q) = self.events.get_mut(&id).and_then(|e| e.queued.take()) {
                self.queue.remove(&(q.0, q.1, id.clone()));
            }
            self.leave_hold(&id);
            self.dead_letter(&id, dl, false);
        }
    }

    pub(crate) fn set_phase(&mut self, id: &str, phase: Phase) {
        if phase != Phase::Waiting {
            // Busy now (a send or a call): out of the hold queue.
            self.leave_release(id);
        }
        let Some(e) = self.events.get_mut(id) else { return };
        let was = e.active();
        e.phase = phase;
        match (was, e.active()) {
            (false, true) => self.busy += 1,
            (true, false) => self.busy = self.busy.saturating_sub(1),
            _ => {}
        }
    }

    /// Issue `call` (or answer it in memory), continuing `pending` on its reply.
    pub(crate) fn call(&mut self, call: StoreCall, pending: Pending) -> u64 {
        let call_id = self.next_call;
        self.next_call += 1;
        let argv = super::call_argv(&call, self.now_ms, self.config.skew_check);
        let key = call.key.clone();
        self.calls.insert(call_id, (call, pending));
        if self.memory.is_none() {
            self.out.push_back(Output::StoreCall { call_id, key, argv });
        } else {
            self.memory_calls.push_back(call_id);
        }
        call_id
    }

    /// Section 4 step 1: a held event leaves its hold (`held_ms` counts the
    /// span, the gauge goes down); whether it was held.
    fn leave_hold(&mut self, id: &str) -> bool {
        let now = self.now_ms;
        let Some(e) = self.events.get_mut(id) else { return false };
        if e.status != Status::Held {
            return false;
        }
        e.held_ms = e.held_ms.saturating_add(now.saturating_sub(e.held_since_ms));
        e.held_since_ms = 0;
        e.status = Status::Pending;
        e.hold_reason = None;
        e.held_until_ms = 0;
        self.held_changed(false);
        true
    }

    /// One due event (module docs).
    fn due(&mut self, id: &str) {
        let now = self.now_ms;
        let Some(e) = self.events.get(id) else { return };
        if !e.open() || e.active() {
            return;
        }
        if e.status == Status::Held && e.hold_reason.is_some_and(super::release::queued) {
            // Leaving a journaled endpoint-wide hold (a queue member's, or
            // one it was resumed in): held again for it, no new record.
            let reason = e.hold_reason;
            self.events.get_mut(id).expect("checked above").rehold = reason;
        }
        let was_held = self.leave_hold(id);
        let e = self.events.get_mut(id).expect("checked above");
        let resumed = core::mem::replace(&mut e.resumed, false);
        let unsent_replay = e.replay_of.is_some() && e.attempts == 0;
        let known = self.policies[&e.policy_hash].policy.clone();
        let e = &self.events[id];
        if resumed || e.attempts > 0 {
            match crate::step::resume(known.policy(), &e.state(e.attempts), now) {
                Ok(Resumption::Due) => {}
                Ok(Resumption::Stop(st)) => {
                    let dl = st.dead_letter.expect("resume's stops carry a dead letter");
                    return self.dead_letter(id, dl, false);
                }
                Err(err) => return self.stuck(id, &err),
            }
        }
        if known.health().is_none() {
            return self.start_send(id, false);
        }
        let gate = e.gate_event(was_held || unsent_replay);
        self.gate(id, gate);
    }

    /// Gate (format 3) and act on its answer.
    fn gate(&mut self, id: &str, gate: GateEvent) {
        let now = self.now_ms;
        let e = &self.events[id];
        let known = self.policies[&e.policy_hash].policy.clone();
        let ep = self.endpoints.get(&gate.endpoint_id);
        ep.set_normal(&known.policy().budget, now);
        if let Some(release) = known.health().map(|h| h.release) {
            // Never below the admissions' rate of the last minute
            // (release.rs): arrivals stopping does not slow a release.
            let kept = ep.kept_normal_per_s(now);
            ep.pacer.normal_per_s = ep.pacer.normal_per_s.max(kept);
            // The backlog's need (release.rs): never slower than the queue's
            // deadlines require, after the tokens the pacer holds at that
            // rate, unless the endpoint has shown a limit (limit.rs): then
            // what it accepts is the rate, and the pacer lets it through
            // (the limit's bucket of one spaces the sends; a pacer left at
            // the admissions' rate drained a backlog at the floor once
            // arrivals stopped).
            let need = if ep.limit.active(now) {
                ep.limit.rate_per_s
            } else {
                let in_hand = crate::health::pacer::tokens_at(&ep.pacer, &release, now);
                ep.backlog_need_per_s(now, in_hand).min(super::release::NEED_CAP_FLOORS * release.floor_per_s)
            };
            ep.pacer.normal_per_s = ep.pacer.normal_per_s.max((need / release.multiple).min(1e9));
            let rate = crate::health::rate_per_s(&release, ep.pacer.normal_per_s);
            ep.release_peak_per_s = ep.release_peak_per_s.max(rate);
        }
        let view = ep.view;
        match known.gate(&gate, view.as_ref(), &ep.pacer, now) {
            Ok((d, pacer)) => {
                self.endpoints.get(&gate.endpoint_id).pacer = pacer;
                self.act(id, d, gate, view);
            }
            Err(err) => self.stuck(id, &err),
        }
    }

    /// Act on a gate or after-probe answer.
    pub(crate) fn act(&mut self, id: &str, d: GateDecision, gate: GateEvent, view: Option<HealthView>) {
        match d {
            GateDecision::Stop { dead_letter, .. } => self.dead_letter(id, dead_letter, false),
            GateDecision::Hold { until_ms, reason } => self.hold(id, until_ms, reason),
            GateDecision::Probe => self.probe(id, gate, view),
            GateDecision::Send { probe } => {
                // A probe is one request the store granted: no limit slot.
                if probe || !self.limited(id, &gate.endpoint_id) {
                    self.start_send(id, probe);
                }
            }
        }
    }

    /// Gate 5: one probe call per endpoint and probe window; otherwise the
    /// event holds until the next window (`after-probe` refused).
    fn probe(&mut self, id: &str, gate: GateEvent, view: Option<HealthView>) {
        let now = self.now_ms;
        let known = self.policies[&self.events[id].policy_hash].policy.clone();
        let ep = self.endpoints.get(&gate.endpoint_id);
        if ep.probe_in_flight || now < ep.probe_busy_until_ms {
            return self.probe_answered(id, gate, false, view.unwrap_or_default());
        }
        ep.probe_in_flight = true;
        match known.call_for(CallOp::Probe, &gate.endpoint_id, now) {
            Ok(call) => {
                let call_id = self.call(call, Pending::Event(String::from(id)));
                self.set_phase(id, Phase::Probing { call_id, gate, view });
            }
            Err(err) => {
                self.endpoints.get(&gate.endpoint_id).probe_in_flight = false;
                self.stuck(id, &err)
            }
        }
    }

    /// `after-probe` with the store's answer (or `false` and the gate's view).
    pub(crate) fn probe_answered(&mut self, id: &str, gate: GateEvent, granted: bool, view: HealthView) {
        let now = self.now_ms;
        let known = self.policies[&self.events[id].policy_hash].policy.clone();
        let ep = self.endpoints.get(&gate.endpoint_id);
        match known.after_probe(&gate, granted, &view, &ep.pacer, now) {
            Ok((GateDecision::Probe, _)) => {
                let deadline = self.events[id].deadline_ms;
                let interval = known.health().and_then(|h| h.circuit).map_or(1000, |c| c.probe_interval_ms);
                self.hold(id, now.saturating_add(interval).min(deadline), HoldReason::ProbeRefused)
            }
            Ok((d, pacer)) => {
                self.endpoints.get(&gate.endpoint_id).pacer = pacer;
                self.act(id, d, gate, Some(view));
            }
            Err(err) => self.stuck(id, &err),
        }
    }

    /// A send to an endpoint with a learned limit (limit.rs) needs one of
    /// its slots; without one the event waits in the hold queue (one
    /// journaled `release_pacing` hold) for the next. Whether it waits.
    fn limited(&mut self, id: &str, endpoint_id: &str) -> bool {
        let now = self.now_ms;
        let ep = self.endpoints.get(endpoint_id);
        if !ep.limit.active(now) {
            return false;
        }
        match ep.limit.take(now) {
            Ok(()) => false,
            Err(until_ms) => {
                let deadline = self.events[id].deadline_ms;
                self.queue_hold(id, until_ms.min(deadline), HoldReason::ReleasePacing);
                true
            }
        }
    }

    /// Journal attempt `attempts + 1`, then ask for it (never a number twice).
    pub(crate) fn start_send(&mut self, id: &str, probe: bool) {
        let now = self.now_ms;
        if self.draining {
            // Nothing new starts: the event stays pending, due now at the next run.
            self.set_phase(id, Phase::Waiting);
            return self.schedule(id, now);
        }
        let e = self.events.get_mut(id).expect("a due event");
        if now >= e.deadline_ms {
            let dl = DeadLetter {
                event_id: e.event_id.clone(),
                endpoint_id: e.endpoint_id.clone(),
                attempts: e.attempts,
                elapsed_ms: now.saturating_sub(e.first_attempted_at_ms),
                stop_reason: StopReason::RetryWindowElapsed,
            };
            return self.dead_letter(id, dl, false);
        }
        e.attempts = e.attempts.saturating_add(1);
        e.probes = e.probes.saturating_add(u32::from(probe));
        e.status = Status::Pending;
        e.next_attempt_at_ms = now;
        let endpoint = e.endpoint_id.clone();
        self.endpoints.get(&endpoint).limit.sent(now);
        let e = self.events.get_mut(id).expect("a due event");
        let send = Send {
            event_id: e.event_id.clone(),
            attempt: e.attempts,
            endpoint_id: e.endpoint_id.clone(),
            // The target spelled one way (docs/destinations.md): every host's
            // client connects where the table judges. A record written before
            // admissions were read keeps its own text.
            target: e
                .send_url
                .get_or_insert_with(|| {
                    crate::destination::read_target(&e.rec.target).map_or_else(|_| e.rec.target.clone(), |t| t.url())
                })
                .clone(),
            body_b64: e.body_b64.clone(),
            first_attempted_at_ms: e.first_attempted_at_ms,
            start_before_ms: e.deadline_ms,
            refresh_credentials: core::mem::replace(&mut e.refresh_next, false),
            probe,
        };
        self.journal(id);
        self.set_phase(id, Phase::Sending { attempt: send.attempt, probe });
        self.write_records();
        self.out.push_back(Output::Send(send));
    }
}
