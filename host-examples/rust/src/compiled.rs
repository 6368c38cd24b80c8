//! ABI 0.3's compiled policy: [`CompiledPolicy`] owns one handle of the
//! component's `compile`, and the instance's methods that take it
//! (`advance`/`finish`, the format-3 gate, probes, wakes and calls).
//! Every rule runs in the component; this file only moves values.
//!
//! A handle lives in the instance that compiled it (each instance has its
//! own table, at most 65535 live handles). So a [`CompiledPolicy`] is tied
//! to its [`PolicyInstance`]: using it with another instance, or after a
//! trap replaced the instance, is refused (`invalid_input`, field
//! `handle`) — compile again. Dropping it releases the handle: the instance
//! calls `discard` for every dropped handle before its next `compile`, so a
//! drop never needs the instance. [`CompiledPolicy::close`] discards at once.

use std::sync::{Arc, Mutex};

use retry_policy_core as core_;
use retry_policy_core::compiled::{CallOp, CallReply, StepResult, StoreCall};
use retry_policy_core::health::{
    GateDecision, GateEvent, Health, HealthOutcome, HealthSettlement, HealthView, HeldHealth, Pace, Pacer, Release,
    Wake, WakeDecision,
};

use crate::bindings::wit;
use crate::convert::{from_wit as f2, to_wit as t2};
use crate::convert_health::{from_wit, to_wit};
use crate::engine::{HostError, PolicyInstance};

/// The handles one instance has handed out and those dropped since its
/// last `compile` (discarded then).
#[derive(Default, Debug)]
pub(crate) struct HandleTable {
    released: Mutex<Vec<u32>>,
}

/// A policy (and its optional `health` section) validated once by the
/// component and kept there: build it with [`PolicyInstance::compile`],
/// once per policy and instance (per class of a document:
/// [`PolicyInstance::compile_document`]), then pass it to the instance's
/// `advance`, `finish`, `gate`, ... calls. `Send + Sync`; dropping it
/// releases the handle (module docs).
#[derive(Debug)]
pub struct CompiledPolicy {
    handle: u32,
    table: Arc<HandleTable>,
    live: bool,
    policy: core_::Policy,
    health: Option<Health>,
}

impl CompiledPolicy {
    /// The policy it was compiled from.
    pub fn policy(&self) -> &core_::Policy {
        &self.policy
    }

    /// Its `health` section (`None`: format 2).
    pub fn health(&self) -> Option<&Health> {
        self.health.as_ref()
    }

    /// The component's handle (for logs; valid only in its instance).
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// Discard the handle now (instead of at the instance's next `compile`).
    pub fn close(mut self, instance: &mut PolicyInstance) -> Result<(), HostError> {
        let handle = instance.handle_of(&self)?;
        self.live = false;
        instance.call(|b, s| b.webhook_retry_policy_policy().call_discard(s, handle))
    }
}

impl Drop for CompiledPolicy {
    fn drop(&mut self) {
        if self.live {
            // A poisoned lock only loses the release; the instance's
            // table still ends with the instance.
            if let Ok(mut released) = self.table.released.lock() {
                released.push(self.handle);
            }
        }
    }
}

/// A class of a format-3 document ([`PolicyInstance::load_health_document`]).
#[derive(Clone, Debug, PartialEq)]
pub struct HealthClass {
    pub name: String,
    pub policy: core_::Policy,
    /// Its effective section (its own, else the document's; `None`: format 2).
    pub health: Option<Health>,
    /// FNV-1a 64 over the policy's and the section's words, 16 hex digits.
    pub policy_hash: String,
    /// The words the section adds to the hash (empty without one).
    pub hash_words: Vec<u64>,
}

/// A validated format-3 document: its version and classes, in document order.
#[derive(Clone, Debug, PartialEq)]
pub struct HealthDocument {
    pub version: String,
    pub classes: Vec<HealthClass>,
}

impl HealthDocument {
    /// The format-2 view: the same version and class policies, without the
    /// `health` sections (what format-2 callers such as `admit` take).
    pub fn policy_document(&self) -> wit::PolicyDocument {
        let classes = self
            .classes
            .iter()
            .map(|c| wit::EventClass { name: c.name.clone(), policy: t2::policy(&c.policy) })
            .collect();
        wit::PolicyDocument { version: self.version.clone(), classes }
    }

    /// The names of the classes that have a `health` section (their own or
    /// the document's), in document order; empty for format 2.
    pub fn health_classes(&self) -> Vec<String> {
        self.classes.iter().filter(|c| c.health.is_some()).map(|c| c.name.clone()).collect()
    }
}

fn refused<T>(r: Result<T, wit::PolicyError>) -> Result<T, HostError> {
    r.map_err(|e| HostError::Policy(f2::error(e)))
}

impl PolicyInstance {
    fn handle_of(&self, c: &CompiledPolicy) -> Result<u32, HostError> {
        if c.live && Arc::ptr_eq(&c.table, &self.handles) {
            Ok(c.handle)
        } else {
            Err(HostError::Policy(core_::PolicyError::new(
                core_::ErrorCode::InvalidInput,
                "handle",
                "compiled in another instance, or before a trap replaced this one: compile again",
            )))
        }
    }

    /// Discard every handle dropped since the last call.
    fn release_dropped(&mut self) -> Result<(), HostError> {
        let dropped = std::mem::take(&mut *self.handles.released.lock().unwrap_or_else(|p| p.into_inner()));
        for handle in dropped {
            self.call(|b, s| b.webhook_retry_policy_policy().call_discard(s, handle))?;
        }
        Ok(())
    }

    /// Validate `policy` and its `health` section once, in the component
    /// (format-2 errors as `load_document`'s, the section's under `health.`).
    pub fn compile(&mut self, policy: &core_::Policy, health: Option<&Health>) -> Result<CompiledPolicy, HostError> {
        self.release_dropped()?;
        let (p, h) = (t2::policy(policy), health.map(to_wit::health));
        let handle = refused(self.call(|b, s| b.webhook_retry_policy_policy().call_compile(s, p, h))?)?;
        Ok(CompiledPolicy {
            handle,
            table: Arc::clone(&self.handles),
            live: true,
            policy: *policy,
            health: health.copied(),
        })
    }

    /// One compiled policy per class of a format-3 document, in its order.
    pub fn compile_document(&mut self, doc: &HealthDocument) -> Result<Vec<(String, CompiledPolicy)>, HostError> {
        doc.classes.iter().map(|c| Ok((c.name.clone(), self.compile(&c.policy, c.health.as_ref())?))).collect()
    }

    /// One compiled policy per class of a format-2 document from
    /// [`PolicyInstance::load_document`] (no `health`), in its order.
    pub fn compile_classes(&mut self, doc: &wit::PolicyDocument) -> Result<Vec<(String, CompiledPolicy)>, HostError> {
        doc.classes.iter().map(|c| Ok((c.name.clone(), self.compile(&f2::policy(&c.policy), None)?))).collect()
    }

    /// The schedule a new event is admitted under (the hash covers the section).
    pub fn admit_compiled(
        &mut self,
        c: &CompiledPolicy,
        class: &str,
        policy_version: &str,
        now_ms: u64,
    ) -> Result<wit::Admission, HostError> {
        let h = self.handle_of(c)?;
        refused(
            self.call(|b, s| b.webhook_retry_policy_policy().call_admit_compiled(s, h, class, policy_version, now_ms))?,
        )
    }

    /// After an attempt: gates 1-5 and the one store call it needs.
    /// `Decided`: done in this call (make its `call`, if any, without waiting
    /// on it); `NeedsStore`: make the call, then [`PolicyInstance::finish`].
    pub fn advance(
        &mut self,
        c: &CompiledPolicy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        probe: bool,
        now_ms: u64,
    ) -> Result<StepResult, HostError> {
        let h = self.handle_of(c)?;
        self.advance_handle(h, state, outcome, probe, now_ms)
    }

    pub(crate) fn advance_handle(
        &mut self,
        h: u32,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        probe: bool,
        now_ms: u64,
    ) -> Result<StepResult, HostError> {
        let (st, o) = (t2::state(state), t2::outcome(outcome));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_advance(s, h, &st, &o, probe, now_ms))?;
        refused(r).map(from_wit::advance)
    }

    /// The verdict (retry, hold or stop) once the store answered `advance`'s call.
    pub fn finish(
        &mut self,
        c: &CompiledPolicy,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
        reply: &core_::StoreReply,
    ) -> Result<HealthSettlement, HostError> {
        let h = self.handle_of(c)?;
        self.finish_handle(h, state, outcome, now_ms, reply)
    }

    pub(crate) fn finish_handle(
        &mut self,
        h: u32,
        state: &core_::DeliveryState,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
        reply: &core_::StoreReply,
    ) -> Result<HealthSettlement, HostError> {
        let (st, o, rp) = (t2::state(state), t2::outcome(outcome), t2::reply(reply));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_finish(s, h, &st, &o, now_ms, rp))?;
        refused(r).map(from_wit::finished)
    }

    /// The gate before every send: send, probe, hold or stop, and the pacer to keep.
    pub fn gate(
        &mut self,
        c: &CompiledPolicy,
        event: &GateEvent,
        view: Option<&HealthView>,
        pacer: &Pacer,
        now_ms: u64,
    ) -> Result<(GateDecision, Pacer), HostError> {
        let h = self.handle_of(c)?;
        let (e, v, p) = (to_wit::gate_event(event), view.map(to_wit::view), to_wit::pacer(pacer));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_gate(s, h, &e, v, p, now_ms))?;
        refused(r).map(from_wit::gate_answer)
    }

    /// The gate once the `probe` call answered (`granted`, and the reply's view).
    #[allow(clippy::too_many_arguments)]
    pub fn after_probe(
        &mut self,
        c: &CompiledPolicy,
        event: &GateEvent,
        granted: bool,
        view: &HealthView,
        pacer: &Pacer,
        now_ms: u64,
    ) -> Result<(GateDecision, Pacer), HostError> {
        let h = self.handle_of(c)?;
        let (e, v, p) = (to_wit::gate_event(event), to_wit::view(view), to_wit::pacer(pacer));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_after_probe(s, h, &e, granted, v, p, now_ms))?;
        refused(r).map(from_wit::gate_answer)
    }

    /// A budget-held retry's wake, once its `reserve` call answered.
    pub fn settle_wake(
        &mut self,
        c: &CompiledPolicy,
        wake: &Wake,
        reply: &core_::StoreReply,
        now_ms: u64,
    ) -> Result<WakeDecision, HostError> {
        let h = self.handle_of(c)?;
        let (w, rp) = (to_wit::wake(wake), t2::reply(reply));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_settle_wake(s, h, &w, rp, now_ms))?;
        refused(r).map(from_wit::wake_verdict)
    }

    /// A call not tied to an attempt: `Reserve` (a wake) or `Probe` (the gate asked).
    pub fn call_for(
        &mut self,
        c: &CompiledPolicy,
        op: CallOp,
        endpoint_id: &str,
        now_ms: u64,
    ) -> Result<StoreCall, HostError> {
        let h = self.handle_of(c)?;
        let o = to_wit::call_op(op);
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_call_for(s, h, o, endpoint_id, now_ms))?;
        refused(r).map(from_wit::store_call)
    }

    /// An in-memory store's answer to `call` on what it holds for the call's
    /// key (formats 2 and 3); write the returned `HeldHealth` back.
    pub fn apply_call(
        &mut self,
        call: &StoreCall,
        now_ms: u64,
        held: &HeldHealth,
    ) -> Result<(CallReply, HeldHealth), HostError> {
        let (c, h) = (to_wit::store_call(call), to_wit::held_health(held));
        let r = self.call(|b, s| b.webhook_retry_policy_policy().call_apply_call(s, &c, now_ms, h))?;
        refused(r).map(from_wit::call_applied)
    }

    /// Parse a format-3 document (format 2 with optional `health` sections), in the component.
    pub fn load_health_document(&mut self, json: &str) -> Result<HealthDocument, HostError> {
        let doc = refused(self.call(|b, s| b.webhook_retry_policy_policy().call_load_health_document(s, json))?)?;
        let classes = doc
            .classes
            .into_iter()
            .map(|c| HealthClass {
                name: c.name,
                policy: f2::policy(&c.policy),
                health: c.health.map(from_wit::health),
                policy_hash: c.policy_hash,
                hash_words: c.hash_words,
            })
            .collect();
        Ok(HealthDocument { version: doc.version, classes })
    }

    /// Release pacing alone (what `gate` runs for a held event).
    pub fn pace(&mut self, release: &Release, pacer: &Pacer, now_ms: u64) -> Result<(Pace, Pacer), HostError> {
        let (r, p) = (to_wit::release(release), to_wit::pacer(pacer));
        refused(self.call(|b, s| b.webhook_retry_policy_policy().call_pace(s, r, p, now_ms))?).map(from_wit::paced)
    }

    /// A replica's admission rate to an endpoint from its two newest buckets of admissions.
    pub fn normal_per_s(
        &mut self,
        budget: &core_::Budget,
        now_ms: u64,
        current: u64,
        previous: u64,
    ) -> Result<f64, HostError> {
        let b = t2::budget(budget);
        refused(self.call(|bi, s| bi.webhook_retry_policy_policy().call_normal_per_s(s, b, now_ms, current, previous))?)
    }

    /// The health class of an outcome (what an attempt's call carries).
    pub fn health_outcome_of(&mut self, outcome: &core_::AttemptOutcome) -> Result<HealthOutcome, HostError> {
        let o = t2::outcome(outcome);
        refused(self.call(|b, s| b.webhook_retry_policy_policy().call_health_outcome_of(s, &o))?)
            .map(from_wit::health_outcome)
    }

    /// The pause an outcome asks for (`now_ms + min(retry-after, pause-max-ms)`
    /// for a 429/503 with one, else 0).
    pub fn pause_until(
        &mut self,
        health: &Health,
        outcome: &core_::AttemptOutcome,
        now_ms: u64,
    ) -> Result<u64, HostError> {
        let (h, o) = (to_wit::health(health), t2::outcome(outcome));
        refused(self.call(|b, s| b.webhook_retry_policy_policy().call_pause_until(s, h, &o, now_ms))?)
    }
}
