//! After a send: the attempt's result, the store's reply, and the
//! decision (docs/health-dispatch.md section 2 step 4): delivered, retry
//! (due again), hold (budget-refused, journaled), or dead letter.

use alloc::format;
use alloc::string::{String, ToString};

use super::event::Phase;
use super::io::{AttemptResult, Output, StoreAnswer};
use super::{Engine, EngineError, Pending};
use crate::compiled::{CallOp, CallReply, StepResult, StoreCall};
use crate::decide::{AttemptOutcome, DeadLetter, Decision, StopReason};
use crate::error::PolicyError;
use crate::health::{GateDecision, HealthDecision, HoldReason};
use crate::journal::Status;
use crate::store::StoreReply;

impl Engine {
    /// The result of a `Send` (validated first: a refused result changes nothing).
    pub(super) fn result(&mut self, id: &str, attempt: u32, result: AttemptResult) -> Result<(), EngineError> {
        let e = self.events.get(id).ok_or_else(|| EngineError::UnknownEvent { event_id: id.to_string() })?;
        let Phase::Sending { attempt: sent, probe } = e.phase else {
            return Err(EngineError::UnexpectedResult { event_id: id.to_string(), attempt });
        };
        if sent != attempt {
            return Err(EngineError::UnexpectedResult { event_id: id.to_string(), attempt });
        }
        let now = self.now_ms;
        let outcome = match result {
            AttemptResult::Response { status, retry_after } => {
                if !(100..=599).contains(&status) {
                    return Err(EngineError::invalid("status", "must be in 100..=599"));
                }
                let retry_after_ms = retry_after.as_deref().and_then(|h| crate::parse_retry_after(h, now));
                AttemptOutcome::Response { status, retry_after_ms }
            }
            AttemptResult::Transport { kind } => {
                if kind.is_empty() || kind.len() > 64 {
                    return Err(EngineError::invalid("kind", "a transport kind of 1..=64 bytes"));
                }
                AttemptOutcome::TransportError { kind }
            }
            AttemptResult::NotStarted => {
                // Nothing reached the wire: the number is given back, and the
                // event is judged again now (its window, most likely, ended).
                let e = self.events.get_mut(id).expect("checked above");
                e.attempts = e.attempts.saturating_sub(1);
                e.resumed = true;
                self.set_phase(id, Phase::Waiting);
                self.schedule(id, now);
                return Ok(());
            }
        };
        self.count_by("webhook_attempts_total", "kind", if attempt == 1 { "first" } else { "retry" });
        let e = self.events.get_mut(id).expect("checked above");
        e.last_outcome = match &outcome {
            AttemptOutcome::Response { status, .. } => status.to_string(),
            AttemptOutcome::TransportError { kind } => kind.clone(),
        };
        if let AttemptOutcome::TransportError { kind } = &outcome {
            let kind = kind.clone();
            self.count_reported("webhook_transport_errors_total", "kind", &kind);
        }
        if matches!(outcome, AttemptOutcome::Response { status: 410, .. }) {
            self.count("webhook_endpoint_disable_signals_total");
        }
        let e = &self.events[id];
        let known = self.policies[&e.policy_hash].policy.clone();
        if let Some(h) = known.health() {
            // The learned limit (limit.rs): "slow down" cuts it, a success grows it.
            let limit = &mut self.endpoints.get(&e.endpoint_id).limit;
            match &outcome {
                AttemptOutcome::Response { status: 429, .. }
                | AttemptOutcome::Response { status: 503, retry_after_ms: Some(_) } => {
                    limit.throttled(h.release.floor_per_s, now)
                }
                AttemptOutcome::Response { status: 200..=299, .. } => limit.succeeded(h.release.floor_per_s, now),
                _ => {}
            }
        }
        let e = &self.events[id];
        match known.step(&e.state(attempt), &outcome, probe, now) {
            Ok(StepResult::Decided { decision, call }) => {
                if let Some(call) = call {
                    self.call(call, Pending::Observe);
                }
                self.set_phase(id, Phase::Waiting);
                self.decided(id, decision);
            }
            Ok(StepResult::NeedsStore(call)) => {
                let call_id = self.call(call, Pending::Event(id.to_string()));
                self.set_phase(id, Phase::Settling { call_id, outcome, probe });
            }
            Err(err) => {
                self.set_phase(id, Phase::Waiting);
                self.stuck(id, &err);
            }
        }
        Ok(())
    }

    /// A store call's answer (a reply that is not the script's shape: failed, with a warning).
    pub(super) fn store_answer(&mut self, call_id: u64, answer: StoreAnswer) -> Result<(), EngineError> {
        let (call, pending) = self.calls.remove(&call_id).ok_or(EngineError::UnknownCall { call_id })?;
        let reply = match answer {
            StoreAnswer::Reply(ints) => match super::parse_reply(&call, &ints) {
                Ok(r) => Some(r),
                Err(message) => {
                    self.out.push_back(Output::Warn {
                        event_id: None,
                        message: format!("store call {call_id}: {message}"),
                    });
                    None
                }
            },
            StoreAnswer::Failed => None,
        };
        if reply.is_none() && call.op != CallOp::Probe {
            self.count("webhook_budget_store_errors_total");
        }
        if let Some(v) = reply.and_then(|r| r.view) {
            self.endpoints.get(&call.endpoint_id).observe(v);
        }
        let Pending::Event(id) = pending else { return Ok(()) };
        let Some(phase) = self.events.get(&id).map(|e| e.phase.clone()) else { return Ok(()) };
        self.set_phase(&id, Phase::Waiting);
        match phase {
            Phase::Probing { gate, view, .. } => self.probe_reply(&id, &call, gate, view, reply),
            Phase::Settling { outcome, probe, .. } => self.settle_reply(&id, &call, &outcome, probe, reply),
            Phase::Waiting | Phase::Sending { .. } => {}
        }
        Ok(())
    }

    fn probe_reply(
        &mut self,
        id: &str,
        call: &StoreCall,
        gate: crate::health::GateEvent,
        gate_view: Option<crate::health::HealthView>,
        reply: Option<CallReply>,
    ) {
        let now = self.now_ms;
        self.endpoints.get(&call.endpoint_id).probe_in_flight = false;
        let (granted, view) = match reply {
            Some(CallReply { granted: Some(g), view: Some(v), .. }) => (g, v),
            _ => {
                self.count_by("webhook_probe_calls_total", "granted", "error");
                return self.probe_answered(id, gate, false, gate_view.unwrap_or_default());
            }
        };
        self.count_by("webhook_probe_calls_total", "granted", if granted { "true" } else { "false" });
        // The probe window this answer falls in: no other probe call before its end.
        let known = self.policies[&self.events[id].policy_hash].policy.clone();
        let ep = self.endpoints.get(&call.endpoint_id);
        ep.probe_busy_until_ms = match known.after_probe(&gate, false, &view, &ep.pacer, now) {
            Ok((GateDecision::Hold { until_ms, .. }, _)) => until_ms,
            _ => 0,
        };
        self.probe_answered(id, gate, granted, view);
    }

    fn settle_reply(
        &mut self,
        id: &str,
        call: &StoreCall,
        outcome: &AttemptOutcome,
        probe: bool,
        reply: Option<CallReply>,
    ) {
        let _ = (call, probe);
        let now = self.now_ms;
        let e = &self.events[id];
        let known = self.policies[&e.policy_hash].policy.clone();
        let store_reply = match reply.and_then(|r| r.reservation) {
            Some(r) => StoreReply::Answered(r),
            None => StoreReply::Unavailable,
        };
        match known.finish(&e.state(e.attempts), outcome, now, &store_reply) {
            Ok(s) => {
                if s.budget_disagreement {
                    self.count("webhook_budget_disagreements_total");
                }
                match s.decision {
                    HealthDecision::Decided(d) => self.decided(id, d),
                    HealthDecision::Hold { until_ms, refresh_credentials } => {
                        self.count("webhook_budget_refusals_total");
                        let e = self.events.get_mut(id).expect("settling");
                        e.credentials_refreshed |= refresh_credentials;
                        e.refresh_next = refresh_credentials;
                        self.hold(id, until_ms, HoldReason::BudgetRefused);
                    }
                }
            }
            Err(err) => self.stuck(id, &err),
        }
    }

    /// Apply a decision: retry (due again), delivered, or dead letter.
    pub(crate) fn decided(&mut self, id: &str, d: Decision) {
        let now = self.now_ms;
        match d {
            Decision::Retry(r) => {
                let e = self.events.get_mut(id).expect("an open event");
                e.credentials_refreshed |= r.refresh_credentials;
                e.refresh_next = r.refresh_credentials;
                e.status = Status::Pending;
                e.next_attempt_at_ms = now.saturating_add(r.delay_ms);
                let at = e.next_attempt_at_ms;
                self.journal(id);
                self.schedule(id, at);
            }
            Decision::Stop(st) if st.reason == StopReason::Delivered => {
                let e = self.events.get_mut(id).expect("an open event");
                e.status = Status::Delivered;
                e.stop_reason = Some(StopReason::Delivered);
                e.finished_at_ms = now;
                self.journal(id);
                self.write_records();
                let e = self.events.remove(id).expect("an open event");
                if let Some((t, s)) = e.queued {
                    self.queue.remove(&(t, s, String::from(id)));
                }
                self.count("webhook_delivered_total");
                self.out.push_back(Output::Delivered { event_id: e.rec.event_id, attempts: e.rec.attempts });
            }
            Decision::Stop(st) => {
                if st.reason == StopReason::RetryBudgetExhausted {
                    self.count("webhook_budget_refusals_total");
                }
                let e = &self.events[id];
                let dl = st.dead_letter.unwrap_or_else(|| DeadLetter {
                    event_id: e.event_id.clone(),
                    endpoint_id: e.endpoint_id.clone(),
                    attempts: e.attempts,
                    elapsed_ms: now.saturating_sub(e.first_attempted_at_ms),
                    stop_reason: st.reason,
                });
                self.dead_letter(id, dl, st.disable_endpoint);
            }
        }
    }

    /// Hold `id` until `until_ms` (journaled before it is acknowledged).
    pub(crate) fn hold(&mut self, id: &str, until_ms: u64, reason: HoldReason) {
        if super::release::queued(reason) {
            return self.queue_hold(id, until_ms, reason);
        }
        self.leave_release(id);
        self.mark_held(id, until_ms, reason, true);
        self.schedule(id, until_ms);
    }

    /// The event is held until `until_ms` for `reason` (status, instants,
    /// the gauge); `said`: a new hold, journaled, counted in
    /// `webhook_holds_total{reason}` and told as an action `hold`.
    pub(crate) fn mark_held(&mut self, id: &str, until_ms: u64, reason: HoldReason, said: bool) {
        let now = self.now_ms;
        let e = self.events.get_mut(id).expect("an open event");
        e.status = Status::Held;
        e.held_until_ms = until_ms;
        e.hold_reason = Some(reason);
        e.held_since_ms = now;
        self.held_changed(true);
        if said {
            self.journal(id);
            self.count_by("webhook_holds_total", "reason", reason.as_str());
            self.out.push_back(Output::Hold { event_id: String::from(id), until_ms, reason });
        }
    }

    /// Stop `id` with `dl` (kept for replay, journaled).
    pub(crate) fn dead_letter(&mut self, id: &str, dl: DeadLetter, disable_endpoint: bool) {
        self.leave_release(id);
        let now = self.now_ms;
        let e = self.events.get_mut(id).expect("an open event");
        if let Some((t, s)) = e.queued.take() {
            self.queue.remove(&(t, s, String::from(id)));
        }
        e.status = Status::DeadLettered;
        e.stop_reason = Some(dl.stop_reason);
        e.dead_letter = Some(dl.clone());
        e.disable_endpoint = disable_endpoint;
        e.finished_at_ms = now;
        let held_ms = e.held_ms;
        self.journal(id);
        self.keep_dead(id);
        self.count_by("webhook_deadletter_total", "stop_reason", dl.stop_reason.as_str());
        self.out.push_back(Output::DeadLetter { dead_letter: dl, disable_endpoint, held_ms });
    }

    /// The policy refused to judge an admitted event (a bug or a corrupt
    /// record): said once, the event stays pending and meets its window's
    /// end at its deadline (never lost, never a busy loop).
    pub(crate) fn stuck(&mut self, id: &str, err: &PolicyError) {
        self.leave_release(id);
        let Some(e) = self.events.get(id) else { return };
        let deadline = e.deadline_ms;
        if self.now_ms >= deadline {
            let dl = DeadLetter {
                event_id: e.event_id.clone(),
                endpoint_id: e.endpoint_id.clone(),
                attempts: e.attempts,
                elapsed_ms: self.now_ms.saturating_sub(e.first_attempted_at_ms),
                stop_reason: StopReason::RetryWindowElapsed,
            };
            return self.dead_letter(id, dl, false);
        }
        self.out.push_back(Output::Warn {
            event_id: Some(id.to_string()),
            message: format!("the policy refused to judge it ({err}); it waits until its window ends"),
        });
        if let Some(e) = self.events.get_mut(id) {
            e.resumed = true;
        }
        self.schedule(id, deadline);
    }
}
