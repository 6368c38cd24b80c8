//! What a host must answer to run the vectors (formats 1-2: [`Host`];
//! format 3: [`HealthHost`]), and [`Native`]: policy-core itself, the
//! reference every other host is compared with.

use alloc::string::String;
use alloc::vec::Vec;

use crate::health::{self, Health, HealthReply, HealthRequest, HeldHealth};
use crate::json::Value;
use crate::{self as core_, PolicyError};

/// `Err(Ok(e))`: the policy refused; `Err(Err(msg))`: the host failed.
pub type Answer<T> = Result<T, Result<PolicyError, String>>;

/// The answer of an op a host does not bind (ABI 1.0 no longer exports its
/// function: the host runs its cases through the component's `vector-case`,
/// see [`super::exported`]); reaching it is a runner bug, reported as one.
fn unbound<T>(op: &str) -> Answer<T> {
    Err(Err(alloc::format!("`{op}` is not bound by this host: run its cases through vector-case")))
}

/// One class of a format-3 document as `parse_document` answers it.
#[derive(Clone, Debug, PartialEq)]
pub struct DocClass {
    pub name: String,
    /// Its effective section (its own, else the document's; `None`: format 2).
    pub health: Option<Health>,
    /// FNV-1a 64 over the policy's and the section's words, 16 hex digits.
    pub policy_hash: String,
    /// The words the section adds to the hash (empty without one).
    pub hash_words: Vec<u64>,
}

/// Formats 1 and 2. The ops of functions ABI 1.0 no longer exports
/// (`delay`, `budget`, `decide`, `resume`) have default bodies that answer
/// "not bound": a host of the component leaves them out and runs those cases
/// through `vector-case` ([`super::exported`]); [`Native`] answers them all.
pub trait Host: HealthHost {
    fn plan(&mut self, b: &core_::Backoff, window_ms: u64, hard_cap: u32) -> Answer<core_::Plan>;
    fn delay(&mut self, _b: &core_::Backoff, _event_id: &str, _retry_index: u32) -> Answer<u64> {
        unbound("delay")
    }
    fn classify_status(&mut self, status: u16) -> Answer<core_::OutcomeClass>;
    fn classify_error(&mut self, kind: &str) -> Answer<core_::OutcomeClass>;
    fn budget(&mut self, _b: &core_::Budget, _now_ms: u64, _c: &core_::BudgetCounts) -> Answer<bool> {
        unbound("budget")
    }
    fn decide(
        &mut self,
        _p: &core_::Policy,
        _s: &core_::DeliveryState,
        _o: &core_::AttemptOutcome,
        _now_ms: u64,
        _counts: Option<&core_::BudgetCounts>,
    ) -> Answer<core_::Decision> {
        unbound("decide")
    }
    fn evaluate(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        now_ms: u64,
    ) -> Answer<core_::Step>;
    fn settle(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        now_ms: u64,
        r: &core_::StoreReply,
    ) -> Answer<core_::Settlement>;
    fn resume(&mut self, _p: &core_::Policy, _s: &core_::DeliveryState, _now_ms: u64) -> Answer<core_::Resumption> {
        unbound("resume")
    }
    fn retry_after(&mut self, header: &str, now_ms: u64) -> Answer<Option<u64>>;
}

/// Format 3; errors are the policy's refusals. Every op but
/// `parse_document` (`health_document`) has a default "not bound" body, as
/// in [`Host`]: ABI 1.0 exports only `load-health-document` of format 3.
pub trait HealthHost {
    /// The classes of a document (given as its JSON value).
    fn health_document(&mut self, doc: &Value) -> Answer<Vec<DocClass>>;
    /// One store call on what the store holds (section, budget: the key's).
    fn health_apply(
        &mut self,
        _r: &HealthRequest,
        _s: &Health,
        _b: &core_::Budget,
        _now_ms: u64,
        _held: &HeldHealth,
    ) -> Answer<(HealthReply, HeldHealth)> {
        unbound("apply")
    }
    /// `gate`, or `after_probe` when `probe` is `Some(granted)`.
    #[allow(clippy::too_many_arguments)]
    fn health_gate(
        &mut self,
        _p: &core_::Policy,
        _h: Option<&Health>,
        _e: &health::GateEvent,
        _probe: Option<bool>,
        _v: Option<&health::HealthView>,
        _pacer: &health::Pacer,
        _now_ms: u64,
    ) -> Answer<(health::GateDecision, health::Pacer)> {
        unbound("gate")
    }
    #[allow(clippy::too_many_arguments)]
    fn health_settle(
        &mut self,
        _p: &core_::Policy,
        _h: Option<&Health>,
        _s: &core_::DeliveryState,
        _o: &core_::AttemptOutcome,
        _now_ms: u64,
        _r: &core_::StoreReply,
    ) -> Answer<health::HealthSettlement> {
        unbound("settle")
    }
    fn health_outcome(&mut self, _o: &core_::AttemptOutcome) -> Answer<health::HealthOutcome> {
        unbound("health_outcome")
    }
    fn pause_until(&mut self, _h: &Health, _o: &core_::AttemptOutcome, _now_ms: u64) -> Answer<u64> {
        unbound("pause_until")
    }
    fn pace(
        &mut self,
        _r: &health::Release,
        _p: &health::Pacer,
        _now_ms: u64,
    ) -> Answer<(health::Pace, health::Pacer)> {
        unbound("pace")
    }
    fn normal_per_s(&mut self, _b: &core_::Budget, _now_ms: u64, _current: u64, _previous: u64) -> Answer<f64> {
        unbound("normal_per_s")
    }
}

/// policy-core, natively: the reference.
pub struct Native;

impl Host for Native {
    fn plan(&mut self, b: &core_::Backoff, w: u64, h: u32) -> Answer<core_::Plan> {
        core_::plan(b, w, h).map_err(Ok)
    }
    fn delay(&mut self, b: &core_::Backoff, id: &str, i: u32) -> Answer<u64> {
        core_::delay(b, id, i).map_err(Ok)
    }
    fn classify_status(&mut self, s: u16) -> Answer<core_::OutcomeClass> {
        core_::classify_status(s).map_err(Ok)
    }
    fn classify_error(&mut self, k: &str) -> Answer<core_::OutcomeClass> {
        Ok(core_::classify_error(k))
    }
    fn budget(&mut self, b: &core_::Budget, n: u64, c: &core_::BudgetCounts) -> Answer<bool> {
        core_::budget_allows(b, n, c).map_err(Ok)
    }
    fn decide(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
        c: Option<&core_::BudgetCounts>,
    ) -> Answer<core_::Decision> {
        core_::decide_with(p, s, o, n, c).map_err(Ok)
    }
    fn evaluate(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
    ) -> Answer<core_::Step> {
        core_::evaluate(p, s, o, n).map_err(Ok)
    }
    fn settle(
        &mut self,
        p: &core_::Policy,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
        r: &core_::StoreReply,
    ) -> Answer<core_::Settlement> {
        core_::settle(p, s, o, n, r).map_err(Ok)
    }
    fn resume(&mut self, p: &core_::Policy, s: &core_::DeliveryState, n: u64) -> Answer<core_::Resumption> {
        core_::resume(p, s, n).map_err(Ok)
    }
    fn retry_after(&mut self, h: &str, n: u64) -> Answer<Option<u64>> {
        Ok(core_::parse_retry_after(h, n))
    }
}

impl HealthHost for Native {
    fn health_document(&mut self, doc: &Value) -> Answer<Vec<DocClass>> {
        let d = health::parse_document(doc.clone()).map_err(Ok)?;
        let mut classes = Vec::new();
        for (name, h) in &d.health {
            let policy = *d.document.class(name).map_err(Ok)?;
            classes.push(DocClass {
                name: name.clone(),
                health: *h,
                policy_hash: alloc::format!("{:016x}", health::policy_hash(&policy, h.as_ref())),
                hash_words: h.as_ref().map(Health::hash_words).unwrap_or_default(),
            });
        }
        Ok(classes)
    }
    fn health_apply(
        &mut self,
        r: &HealthRequest,
        s: &Health,
        b: &core_::Budget,
        n: u64,
        held: &HeldHealth,
    ) -> Answer<(HealthReply, HeldHealth)> {
        Ok(health::apply(r, s, b, n, held))
    }
    fn health_gate(
        &mut self,
        p: &core_::Policy,
        h: Option<&Health>,
        e: &health::GateEvent,
        probe: Option<bool>,
        v: Option<&health::HealthView>,
        pacer: &health::Pacer,
        n: u64,
    ) -> Answer<(health::GateDecision, health::Pacer)> {
        match (probe, h, v) {
            (None, _, _) => health::gate(p, h, e, v, pacer, n).map_err(Ok),
            (Some(g), Some(h), Some(v)) => health::after_probe(p, h, e, g, v, pacer, n).map_err(Ok),
            _ => Err(Err("broken vector: after_probe needs a section and a view".into())),
        }
    }
    fn health_settle(
        &mut self,
        p: &core_::Policy,
        h: Option<&Health>,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        n: u64,
        r: &core_::StoreReply,
    ) -> Answer<health::HealthSettlement> {
        health::settle(p, h, s, o, n, r).map_err(Ok)
    }
    fn health_outcome(&mut self, o: &core_::AttemptOutcome) -> Answer<health::HealthOutcome> {
        health::health_outcome(o).map_err(Ok)
    }
    fn pause_until(&mut self, h: &Health, o: &core_::AttemptOutcome, n: u64) -> Answer<u64> {
        Ok(health::pause_until_ms(h, o, n))
    }
    fn pace(&mut self, r: &health::Release, p: &health::Pacer, n: u64) -> Answer<(health::Pace, health::Pacer)> {
        Ok(health::pace(p, r, n))
    }
    fn normal_per_s(&mut self, b: &core_::Budget, n: u64, c: u64, p: u64) -> Answer<f64> {
        // docs/health.md: an invalid budget is `invalid_budget`, as the component answers.
        b.validate().map_err(|e| Ok(e.within("budget")))?;
        Ok(health::normal_per_s(b, n, c, p))
    }
}
