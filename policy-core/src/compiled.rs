//! A compiled policy (what the delivery engine keeps per class; ABI 0.3 exported it,
//! `docs/abi-1.0.md`): a class's policy and its
//! optional `health` section, validated once, then driven one step at a
//! time with only the event's state, the outcome, the time and the store's
//! reply. Format 2 (no section) and format 3 go through the same calls.
//!
//! ```text
//! attempt done ──► step ──► Decided { decision, call }   one call in all
//!                    │                  └─► a call to make, not waited for
//!                    └────► NeedsStore(call) ──► store ──► finish(reply)
//! ```
//!
//! * [`CompiledPolicy::step`] runs gates 1-5. When one fires the decision is
//!   known, and the store may still have to count it: `record` for a first
//!   attempt, and with `health` a `report` for a retry's attempt that failed
//!   or was a probe (docs/health.md section 3). Otherwise the budget must
//!   answer (`record_reserve` / `reserve`), and [`CompiledPolicy::finish`]
//!   turns the reply into retry, hold or stop.
//! * Every [`StoreCall`] carries what a store needs and nothing else: the
//!   key, the bucket, the budget, and with `health` the attempt's health
//!   class, pause and probe flag plus the circuit. A Redis adapter builds
//!   its `EVALSHA` from it, an in-memory store hands it to [`apply_call`].
//! * The gate before each send, the probe's follow-up and the one call not
//!   tied to an attempt (a `probe`) are methods too, so a host holds one
//!   value per class.

use alloc::string::String;

use crate::budget::Budget;
use crate::decide::{gates, AttemptOutcome, Decision, DeliveryState, Gates, Policy};
use crate::document::Admission;
use crate::error::{ErrorCode, PolicyError};
use crate::health::{
    self, Circuit, GateDecision, GateEvent, Health, HealthOp, HealthOutcome, HealthReply, HealthRequest, HealthView,
    HeldHealth, Pacer,
};
use crate::plan::{plan, Plan};
use crate::store::{self, StoreOp, StoreReply, StoreRequest};
use crate::text::hex16;

/// What a store call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallOp {
    /// Count a first attempt.
    Record,
    /// Judge a retry; count it if allowed.
    Reserve,
    /// `record`, then `reserve`, atomically.
    RecordReserve,
    /// Format 3: count only the attempt's health (a decided retry that failed or probed).
    Report,
    /// Format 3: ask for a probe permit while the circuit is open.
    Probe,
}

impl CallOp {
    fn budget_op(self) -> Option<StoreOp> {
        match self {
            CallOp::Record => Some(StoreOp::Record),
            CallOp::Reserve => Some(StoreOp::Reserve),
            CallOp::RecordReserve => Some(StoreOp::RecordReserve),
            CallOp::Report | CallOp::Probe => None,
        }
    }
}

/// The format-3 fields of a call (present exactly when the policy has `health`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HealthCall {
    /// The health class of the attempt this call follows (`none` if no attempt).
    pub outcome: HealthOutcome,
    /// 0, or the instant a `Retry-After` pause ends.
    pub pause_until_ms: u64,
    /// The attempt was a granted probe.
    pub probe: bool,
    /// The section's circuit (the store judges openings with it); none: no circuit.
    pub circuit: Option<Circuit>,
}

/// One store call, complete: a store needs nothing else to answer it.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreCall {
    pub op: CallOp,
    /// `store_key` of the endpoint and the budget's width.
    pub key: String,
    pub endpoint_id: String,
    /// `now_ms / budget.window_ms`.
    pub bucket: u64,
    /// The budget `reserve` judges with (its `window_ms` is the bucket width).
    pub budget: Budget,
    /// Format 3 only.
    pub health: Option<HealthCall>,
}

/// A store's answer to a [`StoreCall`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallReply {
    /// For `record`, `reserve`, `record_reserve`.
    pub reservation: Option<crate::store::Reservation>,
    /// For `probe`.
    pub granted: Option<bool>,
    /// Format 3: the endpoint's health after the call.
    pub view: Option<HealthView>,
}

/// What [`CompiledPolicy::step`] hands back.
#[derive(Clone, Debug, PartialEq)]
pub enum StepResult {
    /// The decision; `call` (if any) is made without waiting on it.
    Decided { decision: Decision, call: Option<StoreCall> },
    /// Make this call, then [`CompiledPolicy::finish`] with its reply.
    NeedsStore(StoreCall),
}

/// A class's policy and section, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledPolicy {
    policy: Policy,
    health: Option<Health>,
    /// The schedule every admission carries, derived once (admitting an
    /// event is then a copy, not a derivation: hosts admit every event).
    plan: Plan,
    /// `policy_hash` of the policy and section, as admissions spell it.
    policy_hash: String,
}

fn invalid_input(field: &str, message: &str) -> PolicyError {
    PolicyError::new(ErrorCode::InvalidInput, field, message)
}

impl CompiledPolicy {
    /// Validate once (`policy` errors as format 2, the section's as
    /// `invalid_document` under `health.`).
    pub fn new(policy: Policy, health: Option<Health>) -> Result<Self, PolicyError> {
        policy.validate()?;
        if let Some(h) = &health {
            h.validate().map_err(|e| e.within("health"))?;
        }
        let plan = plan(&policy.backoff, policy.window_ms, policy.hard_cap)?;
        let policy_hash = policy_hash_hex(&policy, health.as_ref());
        Ok(CompiledPolicy { policy, health, plan, policy_hash })
    }

    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    pub fn health(&self) -> Option<&Health> {
        self.health.as_ref()
    }

    /// The schedule a new event is admitted under; the hash includes the section.
    pub fn admit(&self, class: &str, policy_version: &str, now_ms: u64) -> Result<Admission, PolicyError> {
        Ok(Admission {
            class: String::from(class),
            policy_version: String::from(policy_version),
            policy_hash: self.policy_hash.clone(),
            first_attempted_at_ms: now_ms,
            deadline_ms: now_ms.saturating_add(self.policy.window_ms),
            plan: self.plan.clone(),
        })
    }

    /// A call for `endpoint_id` at `now_ms`, health fields from the attempt.
    fn call(
        &self,
        op: CallOp,
        endpoint_id: &str,
        now_ms: u64,
        attempt: Option<(HealthOutcome, u64, bool)>,
    ) -> StoreCall {
        let budget = self.policy.budget;
        let request = StoreRequest {
            op: StoreOp::Record,
            endpoint_id: String::from(endpoint_id),
            window_ms: budget.window_ms,
            bucket: budget.bucket(now_ms),
        };
        let health = self.health.as_ref().map(|h| {
            let (outcome, pause_until_ms, probe) = attempt.unwrap_or((HealthOutcome::None, 0, false));
            HealthCall { outcome, pause_until_ms, probe, circuit: h.circuit }
        });
        StoreCall {
            op,
            key: store::store_key(&request),
            endpoint_id: request.endpoint_id,
            bucket: request.bucket,
            budget,
            health,
        }
    }

    /// Gates 1-5 and the one call this attempt needs (module docs). `probe`:
    /// the attempt was sent as a granted probe (format 3 only).
    pub fn step(
        &self,
        state: &DeliveryState,
        outcome: &AttemptOutcome,
        probe: bool,
        now_ms: u64,
    ) -> Result<StepResult, PolicyError> {
        let gated = gates(&self.policy, state, outcome, now_ms)?;
        let attempt = match &self.health {
            Some(h) => Some((health::health_outcome(outcome)?, health::pause_until_ms(h, outcome, now_ms), probe)),
            None if probe => return Err(invalid_input("probe", "a policy without `health` sends no probes")),
            None => None,
        };
        let first = state.attempt == 1;
        Ok(match gated {
            Gates::Decided(decision) => {
                let reports = attempt.is_some_and(|(o, _, p)| o == HealthOutcome::Failure || p);
                let op = if first { Some(CallOp::Record) } else { reports.then_some(CallOp::Report) };
                StepResult::Decided { decision, call: op.map(|op| self.call(op, &state.endpoint_id, now_ms, attempt)) }
            }
            Gates::NeedsBudget(_) => {
                let op = if first { CallOp::RecordReserve } else { CallOp::Reserve };
                StepResult::NeedsStore(self.call(op, &state.endpoint_id, now_ms, attempt))
            }
        })
    }

    /// The decision once the store answered [`StepResult::NeedsStore`]'s call.
    pub fn finish(
        &self,
        state: &DeliveryState,
        outcome: &AttemptOutcome,
        now_ms: u64,
        reply: &StoreReply,
    ) -> Result<health::HealthSettlement, PolicyError> {
        health::settle(&self.policy, self.health.as_ref(), state, outcome, now_ms, reply)
    }

    /// The gate before a send (docs/health.md section 4).
    pub fn gate(
        &self,
        event: &GateEvent,
        view: Option<&HealthView>,
        pacer: &Pacer,
        now_ms: u64,
    ) -> Result<(GateDecision, Pacer), PolicyError> {
        health::gate(&self.policy, self.health.as_ref(), event, view, pacer, now_ms)
    }

    /// After gate 5's `probe` call.
    pub fn after_probe(
        &self,
        event: &GateEvent,
        granted: bool,
        view: &HealthView,
        pacer: &Pacer,
        now_ms: u64,
    ) -> Result<(GateDecision, Pacer), PolicyError> {
        let h =
            self.health.as_ref().ok_or_else(|| invalid_input("health", "a policy without `health` has no probes"))?;
        health::after_probe(&self.policy, h, event, granted, view, pacer, now_ms)
    }

    /// The one call not tied to an attempt: a gate's `probe` (outcome
    /// `none`). Any other op is `invalid_input` (since draft 6 a held
    /// retry's wake makes no `reserve`).
    pub fn call_for(&self, op: CallOp, endpoint_id: &str, now_ms: u64) -> Result<StoreCall, PolicyError> {
        match op {
            CallOp::Probe if self.health.is_some() => Ok(self.call(op, endpoint_id, now_ms, None)),
            CallOp::Probe => Err(invalid_input("op", "a policy without `health` makes no probe calls")),
            _ => Err(invalid_input("op", "only `probe` is made outside an attempt")),
        }
    }
}

/// An in-memory store's answer to `call` on what it holds for the call's
/// key (the Redis script's rule, format 2 or 3 by the call's `health`).
/// A call no policy produces (`report`/`probe` without health fields, a
/// probe carrying an outcome) is `invalid_input`; the budget and circuit
/// are validated as in a policy.
pub fn apply_call(call: &StoreCall, now_ms: u64, held: &HeldHealth) -> Result<(CallReply, HeldHealth), PolicyError> {
    call.budget.validate().map_err(|e| e.within("call.budget"))?;
    let Some(hc) = &call.health else {
        let op =
            call.op.budget_op().ok_or_else(|| invalid_input("call.op", "`report` and `probe` need health fields"))?;
        let request =
            StoreRequest { op, endpoint_id: String::new(), window_ms: call.budget.window_ms, bucket: call.bucket };
        let (reservation, buckets) = store::apply(&request, &call.budget, now_ms, &held.buckets);
        let reply = CallReply { reservation: Some(reservation), granted: None, view: None };
        return Ok((reply, HeldHealth { buckets, ..*held }));
    };
    let section = Health { circuit: hc.circuit, ..Health::default() };
    section.validate().map_err(|e| PolicyError { code: ErrorCode::InvalidInput, ..e.within("call.health") })?;
    if call.op == CallOp::Probe && (hc.outcome != HealthOutcome::None || hc.pause_until_ms != 0 || hc.probe) {
        return Err(invalid_input("call.health", "a `probe` call carries outcome `none`, no pause and probe false"));
    }
    let op = match call.op.budget_op() {
        Some(op) => HealthOp::Budget(op),
        None if call.op == CallOp::Report => HealthOp::Report,
        None => HealthOp::Probe,
    };
    let request = HealthRequest {
        op,
        bucket: call.bucket,
        outcome: hc.outcome,
        pause_until_ms: hc.pause_until_ms,
        probe: hc.probe,
    };
    let (HealthReply { reservation, granted, view }, next) =
        health::apply(&request, &section, &call.budget, now_ms, held);
    Ok((CallReply { reservation, granted, view: Some(view) }, next))
}

/// `policy_hash` of a policy and its section, as 16 hex digits (what an
/// admission carries).
pub fn policy_hash_hex(policy: &Policy, health: Option<&Health>) -> String {
    hex16(health::policy_hash(policy, health))
}
