//! One attempt of one event, start to finish: admit (first attempts), send,
//! decide with the component, settle the budget (one round trip at most),
//! persist, then schedule the retry or dead-letter with the reason.
//!
//! The decision flow is `fleet/README.md`'s: the pure `decide-with` with no
//! counts first; only when that says `budget_unavailable` (gates 1-5 want a
//! retry) is the store asked to reserve one, and `decide-with` runs again on
//! the counts the reservation was judged on. A store error keeps the first
//! answer: `budget_unavailable`, the budget fails closed.

use retry_policy_core::{AttemptOutcome, DeadLetter, Decision, DeliveryState, ErrorCode, StopReason};
use retry_policy_host::{HostError, PolicyInstance};
use serde_json::json;

use crate::budget_store::StoreError;
use crate::dispatcher::{now_ms, NewEvent, Shared};
use crate::http_client::HttpClient;
use crate::store::{EventRecord, Status};

fn log(msg: &str) {
    eprintln!("dispatcher: {msg}");
}

/// Admit a new event (persisting its schedule and first-attempt instant),
/// then make its first attempt.
pub(crate) fn first_attempt(s: &Shared, policy: &mut PolicyInstance, http: &mut HttpClient, ev: NewEvent) {
    let now = now_ms();
    let admission = match policy.admit(&s.doc, &ev.class, now).or_else(|e| match e {
        HostError::Trap(_) => policy.admit(&s.doc, &ev.class, now), // the instance was rebuilt
        e => Err(e),
    }) {
        Ok(a) => a,
        Err(e) => {
            log(&format!("event {}: cannot admit it: {e}; it is not started", ev.event_id));
            return;
        }
    };
    let rec = EventRecord {
        event_id: ev.event_id,
        endpoint_id: ev.endpoint_id,
        target: ev.target,
        class: ev.class,
        policy_version: admission.policy_version,
        policy_hash: admission.policy_hash,
        first_attempted_at_ms: admission.first_attempted_at_ms,
        deadline_ms: admission.deadline_ms,
        max_attempts: admission.schedule.max_attempts,
        offsets_ms: admission.schedule.offsets_ms,
        expected_span_ms: admission.schedule.expected_span_ms,
        worst_case_span_ms: admission.schedule.worst_case_span_ms,
        attempts: 0,
        credentials_refreshed: false,
        next_attempt_at_ms: now,
        status: Status::Pending,
        last_outcome: String::new(),
        stop_reason: None,
        dead_letter: None,
        disable_endpoint: false,
        finished_at_ms: 0,
    };
    persist(s, &rec);
    attempt(s, policy, http, rec);
}

/// Make the next attempt of a pending event. An event re-loaded from the
/// store keeps the instant and schedule it was admitted under: if it has
/// used its attempts or its deadline has passed, it is dead-lettered now,
/// without another attempt.
pub(crate) fn next_attempt(s: &Shared, policy: &mut PolicyInstance, http: &mut HttpClient, event_id: &str) {
    let Some(rec) = s.store.get(event_id) else {
        log(&format!("event {event_id} was scheduled but is not in the store"));
        return;
    };
    if rec.status != Status::Pending {
        return;
    }
    let now = now_ms();
    let expired = if rec.attempts >= rec.max_attempts {
        Some(StopReason::MaxAttemptsExhausted)
    } else if now > rec.deadline_ms {
        Some(StopReason::RetryWindowElapsed)
    } else {
        None
    };
    if let Some(reason) = expired {
        let dl = DeadLetter {
            event_id: rec.event_id.clone(),
            endpoint_id: rec.endpoint_id.clone(),
            attempts: rec.attempts,
            elapsed_ms: now.saturating_sub(rec.first_attempted_at_ms),
            stop_reason: reason,
        };
        finish(s, rec, reason, false, Some(dl), now);
        return;
    }
    attempt(s, policy, http, rec);
}

fn attempt(s: &Shared, policy: &mut PolicyInstance, http: &mut HttpClient, mut rec: EventRecord) {
    let first = rec.attempts == 0;
    rec.attempts += 1;
    let body = json!({"event_id": rec.event_id, "class": rec.class, "attempt": rec.attempts}).to_string();
    let attempt_no = rec.attempts.to_string();
    let first_at = rec.first_attempted_at_ms.to_string();
    let headers = [("X-Event-Id", rec.event_id.as_str()), ("X-Attempt", attempt_no.as_str()), ("X-First-Attempted-At-Ms", first_at.as_str())];
    let outcome = http.post(&rec.target, &headers, body.as_bytes());
    s.metrics.attempted(first);
    rec.last_outcome = match &outcome {
        AttemptOutcome::Response { status, .. } => status.to_string(),
        AttemptOutcome::TransportError { kind } => kind.clone(),
    };
    let now = now_ms();
    let Some(policy_of_class) = s.classes.get(&rec.class).copied() else {
        log(&format!("event {}: class {} vanished", rec.event_id, rec.class));
        return;
    };
    let state = DeliveryState {
        event_id: rec.event_id.clone(),
        endpoint_id: rec.endpoint_id.clone(),
        attempt: rec.attempts,
        max_attempts: rec.max_attempts,
        first_attempted_at_ms: rec.first_attempted_at_ms,
        credentials_refreshed: rec.credentials_refreshed,
    };
    let decide = |policy: &mut PolicyInstance, counts| decide_robust(policy, &policy_of_class, &state, &outcome, now, counts);
    let mut decision = match decide(policy, None) {
        Ok(d) => d,
        Err(e) => {
            log(&format!("event {}: the policy refused the decision: {e}; it stays pending", rec.event_id));
            persist(s, &rec);
            return;
        }
    };
    let wants_budget = matches!(&decision, Decision::Stop(st) if st.reason == StopReason::BudgetUnavailable);
    match s.budget.settle(policy, &rec.endpoint_id, &policy_of_class.budget, now, first, wants_budget) {
        Ok(Some(counts)) => match decide(policy, Some(counts)) {
            Ok(d) => decision = d,
            Err(e) => log(&format!("event {}: deciding on the budget counts failed: {e}", rec.event_id)),
        },
        Ok(None) => {}
        Err(e) => {
            // Logged at the 1st, 2nd, 4th, 8th... error: an outage is not a log flood.
            let n = s.metrics.budget_store_error();
            if n.is_power_of_two() {
                match e {
                    StoreError::Unavailable(m) => log(&format!("budget store error #{n} (retries fail closed): {m}")),
                    StoreError::Policy(m) => log(&format!("budget check error #{n}: {m}")),
                }
            }
        }
    }
    match decision {
        Decision::Retry(r) => {
            rec.credentials_refreshed |= r.refresh_credentials;
            rec.next_attempt_at_ms = now.saturating_add(r.delay_ms);
            persist(s, &rec);
            s.schedule(rec.event_id.clone(), rec.next_attempt_at_ms);
        }
        Decision::Stop(st) => finish(s, rec, st.reason, st.disable_endpoint, st.dead_letter, now),
    }
}

/// `decide-with`; a trap is retried once on the rebuilt instance, and a
/// status outside 100..=599 (`invalid_status`) is a protocol error of the
/// endpoint, decided as the transport error `remote_protocol_error`.
fn decide_robust(
    policy: &mut PolicyInstance,
    p: &retry_policy_core::Policy,
    state: &DeliveryState,
    outcome: &AttemptOutcome,
    now: u64,
    counts: Option<retry_policy_core::BudgetCounts>,
) -> Result<Decision, HostError> {
    let r = match policy.decide_with(p, state, outcome, now, counts.as_ref()) {
        Err(HostError::Trap(_)) => policy.decide_with(p, state, outcome, now, counts.as_ref()),
        r => r,
    };
    match r {
        Err(HostError::Policy(e)) if e.code == ErrorCode::InvalidStatus => {
            let garbled = AttemptOutcome::TransportError { kind: "remote_protocol_error".into() };
            policy.decide_with(p, state, &garbled, now, counts.as_ref())
        }
        r => r,
    }
}

fn finish(s: &Shared, mut rec: EventRecord, reason: StopReason, disable: bool, dl: Option<DeadLetter>, now: u64) {
    rec.status = if reason == StopReason::Delivered { Status::Delivered } else { Status::DeadLettered };
    rec.stop_reason = Some(reason);
    rec.dead_letter = dl;
    rec.disable_endpoint = disable;
    rec.finished_at_ms = now;
    persist(s, &rec);
    s.metrics.stopped(reason, disable);
}

fn persist(s: &Shared, rec: &EventRecord) {
    if let Err(e) = s.store.put(rec) {
        log(&format!("event {}: {e}", rec.event_id));
    }
}
