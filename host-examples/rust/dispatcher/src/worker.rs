//! One attempt of one event, start to finish: admit (first attempts), send,
//! then the delivery step of contract 0.2 (the host library's `step`:
//! `evaluate`, at most ONE store call, `settle` when the decision was left
//! open), persist, and schedule
//! the retry or dead-letter with the reason. Reloaded events go through
//! `resume` first; `Retry-After` values through `parse-retry-after`. Every
//! rule is the component's: this file only moves values.
//!
//! * `evaluate` decided and named `record` (a first attempt that ends the
//!   chain): the record is sent, and its failure never changes the decision.
//! * `evaluate` left the decision open (`record_reserve` on a first attempt,
//!   `reserve` on a retry): the store's answer, or `unavailable` when the
//!   call failed or timed out, goes to `settle` (the budget fails closed).
//! * `settle` reports `budget_disagreement`: counted in
//!   `webhook_budget_disagreements_total` and logged (rate-limited); the
//!   store's verdict stands.

use retry_policy_core::{AttemptOutcome, Decision, DeliveryState, Policy, Resumption, StopReason};
use retry_policy_host::{HostError, PolicyInstance};
use serde_json::json;

use crate::compiled_cache::CompiledCache;
use crate::http_client::{Delivery, SendEdge};
use crate::shared::{NewEvent, Shared};
use crate::store::{EventRecord, HoldFields, Status};
use crate::transport_kind as kind;

pub(crate) fn log(msg: &str) {
    eprintln!("dispatcher: {}", crate::redact::log_line(msg));
}

/// Run a component call; a trap is retried once on the rebuilt instance.
pub(crate) fn retry_trap<T>(
    policy: &mut PolicyInstance,
    mut f: impl FnMut(&mut PolicyInstance) -> Result<T, HostError>,
) -> Result<T, HostError> {
    match f(policy) {
        Err(HostError::Trap(_)) => f(policy),
        r => r,
    }
}

/// Admit a new event (persisting its schedule and first-attempt instant),
/// then make its first attempt.
pub(crate) fn first_attempt(s: &Shared, policy: &mut PolicyInstance, cache: &mut CompiledCache, ev: NewEvent) {
    let now = s.now();
    // A class with `health`: `admit-compiled` on the worker's compiled handle
    // (compiled once per policy); else the document's admission as before.
    let current = s.policies.current();
    let admitted = match current.health_of(&ev.class) {
        Some(c) => cache.run(policy, &c.policy_hash, &c.policy, c.health.as_ref(), |i, cp| {
            i.admit_compiled(cp, &ev.class, &current.version, now)
        }),
        None => retry_trap(policy, |p| s.policies.admit(p, &ev.class, now)),
    };
    let admission = match admitted {
        Ok(a) => a,
        Err(e) => {
            log(&format!("event {}: cannot admit it: {e}; it is not started", ev.event_id));
            return;
        }
    };
    // The class policy behind the admission's hash: it travels with the event.
    let Some((admitted, health)) = s.policies.by_hash_health(&admission.policy_hash) else {
        log(&format!("event {}: its admitted policy is not known; it is not started", ev.event_id));
        return;
    };
    let rec = EventRecord {
        event_id: ev.event_id,
        endpoint_id: ev.endpoint_id,
        target: ev.target,
        class: ev.class,
        policy_version: admission.policy_version,
        policy_hash: admission.policy_hash,
        policy: admitted,
        first_attempted_at_ms: admission.first_attempted_at_ms,
        deadline_ms: admission.deadline_ms,
        max_attempts: admission.schedule.max_attempts,
        offsets_ms: admission.schedule.offsets_ms,
        attempts: 0,
        credentials_refreshed: false,
        next_attempt_at_ms: now,
        status: Status::Pending,
        last_outcome: String::new(),
        stop_reason: None,
        dead_letter: None,
        disable_endpoint: false,
        finished_at_ms: 0,
        body_b64: None,
        health,
        hold: HoldFields::default(),
    };
    persist(s, &rec);
    if rec.health.is_some() {
        // Format 3: counted in the endpoint's admissions, then gated (held false).
        s.endpoints.admitted(&rec.endpoint_id, &rec.policy.budget, now);
        return crate::health_worker::due(s, policy, cache, rec, false);
    }
    attempt(s, policy, rec);
}

/// Make the next attempt of a pending event. A `reloaded` event (from a
/// journal) is judged by `resume` first: it keeps the instant and schedule
/// it was admitted under, and one that used its attempts or its window is
/// dead-lettered without another request.
pub(crate) fn next_attempt(
    s: &Shared,
    policy: &mut PolicyInstance,
    cache: &mut CompiledCache,
    event_id: &str,
    reloaded: bool,
) {
    let Some(rec) = s.store.get(event_id) else {
        log(&format!("event {event_id} was scheduled but is not in the store"));
        return;
    };
    if !rec.is_open() {
        return;
    }
    if rec.health.is_some() || rec.status == Status::Held || rec.hold.replay_of.is_some() {
        // Format 3 (docs/health-dispatch.md section 2); replays are gated too.
        return crate::health_worker::due(s, policy, cache, rec, reloaded);
    }
    if reloaded {
        let Some(p) = s.policy_of(&rec) else {
            log(&format!("event {}: its class is not in the policy document; it stays pending", rec.event_id));
            return;
        };
        let now = s.now();
        match retry_trap(policy, |pi| pi.resume(&p, &state_of(&rec, rec.attempts), now)) {
            Ok(Resumption::Due) => {}
            Ok(Resumption::Stop(st)) => return finish(s, rec, st.reason, st.disable_endpoint, st.dead_letter, now),
            Err(e) => {
                log(&format!("event {}: the policy refused to resume it: {e}; it stays pending", rec.event_id));
                return;
            }
        }
    }
    attempt(s, policy, rec);
}

pub(crate) fn state_of(rec: &EventRecord, attempt: u32) -> DeliveryState {
    DeliveryState {
        event_id: rec.event_id.clone(),
        endpoint_id: rec.endpoint_id.clone(),
        attempt,
        max_attempts: rec.max_attempts,
        first_attempted_at_ms: rec.first_attempted_at_ms,
        credentials_refreshed: rec.credentials_refreshed,
    }
}

fn attempt(s: &Shared, policy: &mut PolicyInstance, rec: EventRecord) {
    let Some(p) = s.policy_of(&rec) else {
        log(&format!("event {}: its class is not in the policy document; it stays pending", rec.event_id));
        return;
    };
    let Some(Sent { mut rec, outcome, now }) = send(s, policy, &p, rec) else { return };
    let state = state_of(&rec, rec.attempts);
    match step(s, policy, &p, &state, &outcome, now) {
        Ok(d) => decided(s, rec, d, now),
        Err(e) => {
            // A refused input is a bug of ours (or a corrupt record), not the endpoint's.
            log(&format!("event {}: the policy refused the decision: {e}; it stays pending", rec.event_id));
            rec.status = Status::Pending;
            persist(s, &rec);
        }
    }
}

/// An attempt made: the record (its attempt counted) and what came back.
pub(crate) struct Sent {
    pub rec: EventRecord,
    pub outcome: AttemptOutcome,
    pub now: u64,
}

/// Make attempt `rec.attempts + 1`: `None` when it was not made (the window
/// ended: dead-lettered; draining: left pending; abandoned at the drain
/// deadline), each handled here.
pub(crate) fn send(s: &Shared, policy: &mut PolicyInstance, p: &Policy, mut rec: EventRecord) -> Option<Sent> {
    let first = rec.attempts == 0;
    rec.attempts = rec.attempts.saturating_add(1);
    // A journaled payload (`body_b64`, journal format 1) is sent as recorded; else it is derived.
    let body = match rec.body_b64.as_deref().and_then(crate::journal_record::decode_body) {
        Some(b) => b,
        None => json!({"event_id": rec.event_id, "class": rec.class, "attempt": rec.attempts}).to_string().into_bytes(),
    };
    let attempt_no = rec.attempts.to_string();
    let first_at = rec.first_attempted_at_ms.to_string();
    let mut headers = vec![
        ("X-Event-Id", rec.event_id.as_str()),
        ("X-Attempt", attempt_no.as_str()),
        ("X-First-Attempted-At-Ms", first_at.as_str()),
    ];
    // The window's edge (docs/replica.md): after the wait, re-checked by the
    // client after the DNS lookup and the connection, before the write.
    let edge = SendEdge { deadline_ms: rec.deadline_ms, clock_offset_ms: s.config.clock_offset_ms };
    if edge.passed() {
        window_ended(s, policy, p, rec);
        return None;
    }
    // Draining: no new attempt starts; the event stays pending.
    if !s.drain.sending(&rec.event_id, rec.attempts) {
        keep_pending(s, rec);
        return None;
    }
    let send = |headers: &[(&str, &str)]| {
        s.metrics.delivery(|| s.http.post_before(&rec.target, headers, &body[..], Some(edge)))
    };
    // Standard Webhooks headers; without a secret the attempt is not sent
    // unsigned: it ends as the (terminal) kind `credentials_unavailable`.
    let signed = s.config.signer.as_ref().map(|g| g.headers(&rec.endpoint_id, &rec.event_id, s.now(), &body[..]));
    let delivery = match &signed {
        Some(Err(e)) => {
            log(&format!("event {}: not sent: {e}", rec.event_id));
            Delivery::Failed(kind::CREDENTIALS_UNAVAILABLE)
        }
        Some(Ok([id, ts, sig])) => {
            headers.extend([("webhook-id", id.as_str()), ("webhook-timestamp", ts.as_str())]);
            headers.push(("webhook-signature", sig.as_str()));
            send(&headers)
        }
        None => send(&headers),
    };
    if !s.drain.sent(&rec.event_id) {
        // Abandoned at the drain deadline: already recorded pending with
        // this attempt counted (`Dispatcher::drain`).
        return None;
    }
    if delivery == Delivery::NotSent {
        window_ended(s, policy, p, rec);
        return None;
    }
    s.metrics.attempted(first);
    let now = s.now();
    let outcome = match delivery {
        Delivery::Response { status, retry_after } => {
            rec.last_outcome = status.to_string();
            // An unusable value (or a trap) is no header: the policy's delay applies.
            let retry_after_ms =
                retry_after.and_then(|h| retry_trap(policy, |pi| pi.parse_retry_after(&h, now)).ok().flatten());
            AttemptOutcome::Response { status, retry_after_ms }
        }
        Delivery::NotSent => unreachable!("handled above"),
        Delivery::Failed(kind) => {
            rec.last_outcome = kind.to_string();
            s.metrics.transport_failure(kind);
            AttemptOutcome::TransportError { kind: kind.to_string() }
        }
    };
    Some(Sent { rec, outcome, now })
}

/// Act on a decision after an attempt: schedule the retry (credentials
/// refreshed first when asked) or stop the event.
pub(crate) fn decided(s: &Shared, mut rec: EventRecord, decision: Decision, now: u64) {
    match decision {
        Decision::Retry(r) => {
            rec.credentials_refreshed |= r.refresh_credentials;
            if let (true, Some(g)) = (r.refresh_credentials, &s.config.signer) {
                // A 401/403: reload this endpoint's secrets before the retry.
                if let Err(e) = g.refresh(&rec.endpoint_id) {
                    log(&format!("endpoint {}: cannot reload its signing secrets: {e}", rec.endpoint_id));
                }
            }
            rec.status = Status::Pending;
            rec.next_attempt_at_ms = now.saturating_add(r.delay_ms);
            persist(s, &rec);
            s.schedule(rec.event_id.clone(), rec.next_attempt_at_ms, false);
        }
        Decision::Stop(st) => finish(s, rec, st.reason, st.disable_endpoint, st.dead_letter, now),
    }
}

/// The attempt `rec.attempts` was not sent: the event's window ended. The
/// component's `resume` names the stop (`retry_window_elapsed`) and builds
/// the dead letter from the attempts actually made.
pub(crate) fn window_ended(s: &Shared, policy: &mut PolicyInstance, p: &Policy, mut rec: EventRecord) {
    rec.attempts = rec.attempts.saturating_sub(1);
    let now = s.now();
    match retry_trap(policy, |pi| pi.resume(p, &state_of(&rec, rec.attempts), now)) {
        Ok(Resumption::Stop(st)) => finish(s, rec, st.reason, st.disable_endpoint, st.dead_letter, now),
        other => {
            // Not reachable by the policy's own rule (elapsed >= window);
            // the edge was passed by this clock, so the event stops anyway.
            log(&format!("event {}: past its window, resume answered {other:?}", rec.event_id));
            let dl = retry_policy_core::DeadLetter {
                event_id: rec.event_id.clone(),
                endpoint_id: rec.endpoint_id.clone(),
                attempts: rec.attempts,
                elapsed_ms: now.saturating_sub(rec.first_attempted_at_ms),
                stop_reason: StopReason::RetryWindowElapsed,
            };
            finish(s, rec, StopReason::RetryWindowElapsed, false, Some(dl), now)
        }
    }
}

/// The attempt `rec.attempts` was not started (draining): the event stays
/// pending, due now, for whoever resumes its journal.
fn keep_pending(s: &Shared, mut rec: EventRecord) {
    rec.attempts = rec.attempts.saturating_sub(1);
    rec.status = Status::Pending;
    rec.next_attempt_at_ms = s.now();
    persist(s, &rec);
}

/// The step (the host library's `step_via`): `evaluate`, at most ONE call
/// of this dispatcher's budget store, `settle` when still open.
fn step(
    s: &Shared,
    policy: &mut PolicyInstance,
    p: &Policy,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    now: u64,
) -> Result<Decision, HostError> {
    let done = policy.step_via(p, state, outcome, now, |pi, request| {
        s.metrics.budget_store_call(request, || s.budget.call(pi, request, &p.budget, now))
    })?;
    if let Some(e) = &done.store_error {
        store_failed(s, e);
    }
    if done.budget_disagreement {
        let n = s.metrics.budget_disagreement();
        if n.is_power_of_two() {
            log(&format!(
                "budget disagreement #{n} on endpoint {}: the store's verdict differs from the policy's rule on the same counts (an old script?); the store's verdict stands",
                state.endpoint_id
            ));
        }
    }
    Ok(done.decision)
}

/// Count a failed store call; logged at the 1st, 2nd, 4th, 8th...: an
/// outage is not a log flood.
pub(crate) fn store_failed(s: &Shared, e: &str) {
    let n = s.metrics.budget_store_error();
    if n.is_power_of_two() {
        log(&format!("budget store error #{n} (pending retries fail closed): {e}"));
    }
}

pub(crate) fn finish(
    s: &Shared,
    mut rec: EventRecord,
    reason: StopReason,
    disable: bool,
    dl: Option<retry_policy_core::DeadLetter>,
    now: u64,
) {
    rec.status = if reason == StopReason::Delivered { Status::Delivered } else { Status::DeadLettered };
    rec.stop_reason = Some(reason);
    rec.dead_letter = dl;
    rec.disable_endpoint = disable;
    rec.finished_at_ms = now;
    // Not held any more (journal format 2: the hold fields are zero unless held).
    (rec.hold.hold_reason, rec.hold.held_until_ms, rec.hold.held_since_ms) = (None, 0, 0);
    // A finished event is never sent again: its record (the dead letter)
    // keeps the target without userinfo, query or fragment.
    rec.target = crate::redact::target(&rec.target);
    persist(s, &rec);
    s.metrics.stopped(reason, disable);
}

pub(crate) fn persist(s: &Shared, rec: &EventRecord) {
    if let Err(e) = s.store.put(rec) {
        log(&format!("event {}: {e}", rec.event_id));
    }
}
