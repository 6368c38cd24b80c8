//! The send loop of a class with `health` (docs/health-dispatch.md section
//! 2): at each due instant the gate (first attempts included), a `probe`
//! call when it asks for one, a budget-held event's wake `reserve`, then the
//! attempt and `advance` / `finish` with the probe flag; holds are durable
//! (section 3: journaled `held` before anything else happens to them).
//! Every rule is the component's (`gate`, `after-probe`, `call-for`,
//! `settle-wake`, `advance`, `finish`, `normal-per-s`, `resume`); this file
//! moves values between them, the stores and the endpoint table.

use retry_policy_core::compiled::{CallOp, CallReply, StepResult, StoreCall};
use retry_policy_core::health::{
    GateDecision, GateEvent, HealthDecision, HealthView, HoldReason, Pacer, Wake, WakeDecision,
};
use retry_policy_core::{Resumption, StopReason, StoreReply};
use retry_policy_host::{HostError, PolicyInstance};

use crate::compiled_cache::CompiledCache;
use crate::metrics_health::ProbeResult;
use crate::shared::Shared;
use crate::store::{EventRecord, Status};
use crate::worker::{decided, finish, log, persist, retry_trap, send, state_of, store_failed, Sent};

/// One event is due (its first attempt, a retry, the end of a hold, a
/// resume or a replay): steps 1-4 of section 2.
pub(crate) fn due(
    s: &Shared,
    inst: &mut PolicyInstance,
    cache: &mut CompiledCache,
    mut rec: EventRecord,
    reloaded: bool,
) {
    let now = s.now();
    let was_held = rec.status == Status::Held;
    if was_held {
        // Leaving a hold, whatever the gate says next: the span ends now.
        rec.hold.held_ms = rec.hold.held_ms.saturating_add(now.saturating_sub(rec.hold.held_since_ms));
        (rec.hold.held_since_ms, rec.hold.held_until_ms, rec.hold.hold_reason) = (0, 0, None);
        rec.status = Status::Pending;
        s.metrics.health.held_change(-1);
    }
    if reloaded {
        match retry_trap(inst, |pi| pi.resume(&rec.policy, &state_of(&rec, rec.attempts), now)) {
            Ok(Resumption::Due) => {}
            Ok(Resumption::Stop(st)) => return finish(s, rec, st.reason, st.disable_endpoint, st.dead_letter, now),
            Err(e) => return refused(s, rec, "resume", &e),
        }
    }
    let ev = GateEvent {
        event_id: rec.event_id.clone(),
        endpoint_id: rec.endpoint_id.clone(),
        attempts: rec.attempts,
        first_attempted_at_ms: rec.first_attempted_at_ms,
        held: was_held || (rec.hold.replay_of.is_some() && rec.attempts == 0),
        held_ms: rec.hold.held_ms,
    };
    let mut answer = match gate(s, inst, cache, &rec, &ev, None, now) {
        Ok(a) => a,
        Err(e) => return refused(s, rec, "gate", &e),
    };
    if answer == GateDecision::Probe {
        answer = match probe(s, inst, cache, &rec, &ev, now) {
            Ok(a) => a,
            Err(e) => return refused(s, rec, "after-probe", &e),
        };
    }
    let probe_send = match answer {
        GateDecision::Send { probe } => probe,
        GateDecision::Stop { dead_letter, held_ms } => {
            rec.hold.held_ms = held_ms;
            return finish(s, rec, StopReason::RetryWindowElapsed, false, Some(dead_letter), now);
        }
        GateDecision::Hold { until_ms, reason } => return hold(s, rec, until_ms, reason, now),
        GateDecision::Probe => {
            // After a probe's answer the gate cannot ask again: read as refused.
            let interval = rec.health.and_then(|h| h.circuit).map_or(1000, |c| c.probe_interval_ms);
            let until = now.saturating_add(interval).min(rec.deadline_ms);
            return hold(s, rec, until, HoldReason::ProbeRefused, now);
        }
    };
    if rec.hold.needs_reserve {
        match wake(s, inst, cache, &rec, now) {
            Ok(WakeDecision::Send) => {
                (rec.hold.needs_reserve, rec.hold.wake_refusals) = (false, 0);
                // The reserve's own reply gates the send once more (docs/health-dispatch.md
                // step 3, draft 3 item 2): a pause or an opening it shows holds the event,
                // keeping the reservation (no second `reserve` at the next wake). Not for the
                // granted probe, and `held` false: the release token was spent at step 2.
                if !probe_send {
                    let again = GateEvent { held: false, ..ev.clone() };
                    match gate(s, inst, cache, &rec, &again, None, now) {
                        Ok(GateDecision::Hold { until_ms, reason }) => return hold(s, rec, until_ms, reason, now),
                        Ok(_) => {}
                        Err(e) => return refused(s, rec, "gate", &e),
                    }
                }
            }
            Ok(WakeDecision::Hold { until_ms, refusals }) => {
                rec.hold.wake_refusals = refusals;
                return hold(s, rec, until_ms, HoldReason::BudgetRefused, now);
            }
            Ok(WakeDecision::Stop { dead_letter }) => {
                return finish(s, rec, StopReason::BudgetUnavailable, false, Some(dead_letter), now)
            }
            Err(e) => return refused(s, rec, "settle-wake", &e),
        }
    }
    let policy = rec.policy;
    let Some(Sent { rec, outcome, now }) = send(s, inst, &policy, rec) else { return };
    after_attempt(s, inst, cache, rec, &outcome, probe_send, now);
}

/// Step 4 after the attempt: `advance` (and `finish` once its call answered).
fn after_attempt(
    s: &Shared,
    inst: &mut PolicyInstance,
    cache: &mut CompiledCache,
    mut rec: EventRecord,
    outcome: &retry_policy_core::AttemptOutcome,
    probe: bool,
    now: u64,
) {
    let state = state_of(&rec, rec.attempts);
    let (hash, policy, health) = (rec.policy_hash.clone(), rec.policy, rec.health);
    let advanced = cache.run(inst, &hash, &policy, health.as_ref(), |i, c| i.advance(c, &state, outcome, probe, now));
    match advanced {
        Ok(StepResult::Decided { decision, call }) => {
            if let Some(call) = call {
                // Owed, not waited on for the decision (its view is kept).
                let _ = store_call(s, inst, &call, now);
            }
            decided(s, rec, decision, now)
        }
        Ok(StepResult::NeedsStore(call)) => {
            let reply = match store_call(s, inst, &call, now) {
                Ok(CallReply { reservation: Some(r), .. }) => StoreReply::Answered(r),
                _ => StoreReply::Unavailable,
            };
            let finished =
                cache.run(inst, &hash, &policy, health.as_ref(), |i, c| i.finish(c, &state, outcome, now, &reply));
            let finished = match finished {
                Ok(f) => f,
                Err(e) => return refused(s, rec, "finish", &e),
            };
            if finished.budget_disagreement {
                s.metrics.budget_disagreement();
            }
            match finished.decision {
                HealthDecision::Decided(d) => decided(s, rec, d, now),
                HealthDecision::Hold { until_ms, refresh_credentials } => {
                    rec.credentials_refreshed |= refresh_credentials;
                    if let (true, Some(g)) = (refresh_credentials, &s.config.signer) {
                        if let Err(e) = g.refresh(&rec.endpoint_id) {
                            log(&format!("endpoint {}: cannot reload its signing secrets: {e}", rec.endpoint_id));
                        }
                    }
                    (rec.hold.needs_reserve, rec.hold.wake_refusals) = (true, 0);
                    hold(s, rec, until_ms, HoldReason::BudgetRefused, now)
                }
            }
        }
        Err(e) => refused(s, rec, "advance", &e),
    }
}

/// `gate` (or, with `probed = Some((granted, view))`, `after-probe`) on the
/// endpoint's view and pacer; the pacer it returns is kept. The pacer's
/// `normal_per_s` is set first from the endpoint's admissions rolled to now.
fn gate(
    s: &Shared,
    inst: &mut PolicyInstance,
    cache: &mut CompiledCache,
    rec: &EventRecord,
    ev: &GateEvent,
    probed: Option<(bool, HealthView)>,
    now: u64,
) -> Result<GateDecision, HostError> {
    let mut table = s.endpoints.lock();
    let kept = *table.entry(&rec.endpoint_id);
    let admissions = kept.admissions.rolled(now / rec.policy.budget.window_ms.max(1));
    let budget = rec.policy.budget;
    let normal_per_s = retry_trap(inst, |i| i.normal_per_s(&budget, now, admissions.current, admissions.previous))?;
    let pacer = Pacer { normal_per_s, ..kept.pacer };
    let (hash, policy, health) = (&rec.policy_hash, rec.policy, rec.health);
    let (decision, pacer) = cache.run(inst, hash, &policy, health.as_ref(), |i, c| match &probed {
        None => i.gate(c, ev, kept.view.as_ref(), &pacer, now),
        Some((granted, view)) => i.after_probe(c, ev, *granted, view, &pacer, now),
    })?;
    let e = table.entry(&rec.endpoint_id);
    (e.pacer, e.admissions) = (pacer, admissions);
    Ok(decision)
}

/// The gate asked for a probe: the `probe` call, then `after-probe` on its
/// view (a failed call is not granted, judged on the view the gate had).
/// One probe call per replica, endpoint and probe window: while one is in
/// flight or its window lasts, no call (`after-probe` with `false`, which
/// holds the event until the next window).
fn probe(
    s: &Shared,
    inst: &mut PolicyInstance,
    cache: &mut CompiledCache,
    rec: &EventRecord,
    ev: &GateEvent,
    now: u64,
) -> Result<GateDecision, HostError> {
    let gate_view = s.endpoints.lock().peek(&rec.endpoint_id).and_then(|e| e.view).unwrap_or_default();
    if !s.endpoints.try_probe(&rec.endpoint_id, now) {
        return gate(s, inst, cache, rec, ev, Some((false, gate_view)), now);
    }
    let (hash, policy, health) = (&rec.policy_hash, rec.policy, rec.health);
    let call =
        cache.run(inst, hash, &policy, health.as_ref(), |i, c| i.call_for(c, CallOp::Probe, &rec.endpoint_id, now));
    let call = match call {
        Ok(c) => c,
        Err(e) => {
            s.endpoints.probe_done(&rec.endpoint_id, None);
            return Err(e);
        }
    };
    let (granted, view, answered) = match store_call(s, inst, &call, now) {
        Ok(r) => {
            let granted = r.granted == Some(true);
            s.metrics.health.probe_call(if granted { ProbeResult::Granted } else { ProbeResult::Refused });
            (granted, r.view.unwrap_or(gate_view), true)
        }
        Err(_) => {
            s.metrics.health.probe_call(ProbeResult::Error);
            (false, gate_view, false)
        }
    };
    // The end of this probe window: what a refused probe would be held to.
    let busy_until = answered.then(|| {
        let pacer = s.endpoints.lock().peek(&rec.endpoint_id).map(|e| e.pacer).unwrap_or_default();
        match cache.run(inst, hash, &policy, health.as_ref(), |i, c| i.after_probe(c, ev, false, &view, &pacer, now)) {
            Ok((GateDecision::Hold { until_ms, .. }, _)) => until_ms,
            _ => 0,
        }
    });
    s.endpoints.probe_done(&rec.endpoint_id, busy_until);
    gate(s, inst, cache, rec, ev, Some((granted, view)), now)
}

/// A budget-held event's wake: its `reserve` call, then `settle-wake`.
fn wake(
    s: &Shared,
    inst: &mut PolicyInstance,
    cache: &mut CompiledCache,
    rec: &EventRecord,
    now: u64,
) -> Result<WakeDecision, HostError> {
    let (hash, policy, health) = (&rec.policy_hash, rec.policy, rec.health);
    let call = cache
        .run(inst, hash, &policy, health.as_ref(), |i, c| i.call_for(c, CallOp::Reserve, &rec.endpoint_id, now))?;
    s.metrics.health.wake_call();
    let reply = match store_call(s, inst, &call, now) {
        Ok(CallReply { reservation: Some(r), .. }) => StoreReply::Answered(r),
        _ => StoreReply::Unavailable,
    };
    let w = Wake {
        event_id: rec.event_id.clone(),
        endpoint_id: rec.endpoint_id.clone(),
        attempts: rec.attempts,
        first_attempted_at_ms: rec.first_attempted_at_ms,
        refusals: rec.hold.wake_refusals,
    };
    cache.run(inst, hash, &policy, health.as_ref(), |i, c| i.settle_wake(c, &w, &reply, now))
}

/// One whole store call, timed and counted; its view is kept for the
/// endpoint, a failure counted (and changes nothing).
fn store_call(s: &Shared, inst: &mut PolicyInstance, call: &StoreCall, now: u64) -> Result<CallReply, String> {
    let reply = s.metrics.budget_store_call_whole(call, || s.budget.call_whole(inst, call, now));
    match &reply {
        Ok(r) => s.endpoints.keep_view(&call.endpoint_id, r.view),
        Err(e) => store_failed(s, e),
    }
    reply
}

/// Hold the event until `until_ms`: journaled `held` first, then counted
/// and scheduled (section 3).
fn hold(s: &Shared, mut rec: EventRecord, until_ms: u64, reason: HoldReason, now: u64) {
    rec.status = Status::Held;
    rec.hold.hold_reason = Some(reason);
    rec.hold.held_until_ms = until_ms;
    rec.hold.held_since_ms = now;
    rec.next_attempt_at_ms = until_ms;
    persist(s, &rec);
    s.metrics.health.hold(reason);
    s.metrics.health.held_change(1);
    s.schedule(rec.event_id.clone(), until_ms, false);
}

/// The component refused an input (a bug of ours or a corrupt record, not
/// the endpoint's): logged, the event stays pending on record.
fn refused(s: &Shared, mut rec: EventRecord, what: &str, e: &HostError) {
    log(&format!("event {}: the policy refused `{what}`: {e}; it stays pending", rec.event_id));
    rec.status = Status::Pending;
    persist(s, &rec);
}
