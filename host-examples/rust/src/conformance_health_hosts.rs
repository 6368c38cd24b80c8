//! The two hosts of format 3's runner: `Native` (policy-core's `health`
//! module, the reference) and the component (`PolicyInstance`: compile,
//! the handle's call, discard).

use retry_policy_core::compiled::{CallOp, HealthCall, StoreCall};
use retry_policy_core::health::{self, Health, HealthOp, HealthReply, HealthRequest, HeldHealth};
use retry_policy_core::json::Value;
use retry_policy_core::{self as core_, PolicyError};

use super::super::{Answer, Native};
use crate::{HealthClass, HostError, PolicyInstance};

/// What a host must answer for format 3; errors are the policy's refusals.
pub trait HealthHost {
    /// The classes of a document (given as its JSON value).
    fn health_document(&mut self, doc: &Value) -> Answer<Vec<HealthClass>>;
    /// One store call on what the store holds (section, budget: the key's).
    fn health_apply(
        &mut self,
        r: &HealthRequest,
        s: &Health,
        b: &core_::Budget,
        now_ms: u64,
        held: &HeldHealth,
    ) -> Answer<(HealthReply, HeldHealth)>;
    /// `gate`, or `after_probe` when `probe` is `Some(granted)`.
    #[allow(clippy::too_many_arguments)]
    fn health_gate(
        &mut self,
        p: &core_::Policy,
        h: Option<&Health>,
        e: &health::GateEvent,
        probe: Option<bool>,
        v: Option<&health::HealthView>,
        pacer: &health::Pacer,
        now_ms: u64,
    ) -> Answer<(health::GateDecision, health::Pacer)>;
    #[allow(clippy::too_many_arguments)]
    fn health_settle(
        &mut self,
        p: &core_::Policy,
        h: Option<&Health>,
        s: &core_::DeliveryState,
        o: &core_::AttemptOutcome,
        now_ms: u64,
        r: &core_::StoreReply,
    ) -> Answer<health::HealthSettlement>;
    fn settle_wake(
        &mut self,
        p: &core_::Policy,
        w: &health::Wake,
        r: &core_::StoreReply,
        now_ms: u64,
    ) -> Answer<health::WakeDecision>;
    fn health_outcome(&mut self, o: &core_::AttemptOutcome) -> Answer<health::HealthOutcome>;
    fn pause_until(&mut self, h: &Health, o: &core_::AttemptOutcome, now_ms: u64) -> Answer<u64>;
    fn pace(&mut self, r: &health::Release, p: &health::Pacer, now_ms: u64) -> Answer<(health::Pace, health::Pacer)>;
    fn normal_per_s(&mut self, b: &core_::Budget, now_ms: u64, current: u64, previous: u64) -> Answer<f64>;
}

impl HealthHost for Native {
    fn health_document(&mut self, doc: &Value) -> Answer<Vec<HealthClass>> {
        let d = health::parse_document(doc.clone()).map_err(Ok)?;
        let mut classes = Vec::new();
        for (name, h) in &d.health {
            let policy = *d.document.class(name).map_err(Ok)?;
            classes.push(HealthClass {
                name: name.clone(),
                policy,
                health: *h,
                policy_hash: format!("{:016x}", health::policy_hash(&policy, h.as_ref())),
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
    fn settle_wake(
        &mut self,
        p: &core_::Policy,
        w: &health::Wake,
        r: &core_::StoreReply,
        n: u64,
    ) -> Answer<health::WakeDecision> {
        health::settle_wake(p, w, r, n).map_err(Ok)
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
        Ok(health::normal_per_s(b, n, c, p))
    }
}

fn host_err(e: HostError) -> Result<PolicyError, String> {
    match e {
        HostError::Policy(p) => Ok(p),
        other => Err(other.to_string()),
    }
}

impl PolicyInstance {
    /// `f` on `policy` + `section` compiled in this instance, discarded after.
    fn with_compiled<T>(
        &mut self,
        p: &core_::Policy,
        h: Option<&Health>,
        f: impl FnOnce(&mut Self, &crate::CompiledPolicy) -> Result<T, HostError>,
    ) -> Answer<T> {
        let c = self.compile(p, h).map_err(host_err)?;
        let r = f(self, &c);
        c.close(self).map_err(host_err)?;
        r.map_err(host_err)
    }
}

/// The component, in wasmtime.
impl HealthHost for PolicyInstance {
    fn health_document(&mut self, doc: &Value) -> Answer<Vec<HealthClass>> {
        let json = serde_json::to_string(doc).map_err(|e| Err(e.to_string()))?;
        self.load_health_document(&json).map(|d| d.classes).map_err(host_err)
    }
    fn health_apply(
        &mut self,
        r: &HealthRequest,
        s: &Health,
        b: &core_::Budget,
        n: u64,
        held: &HeldHealth,
    ) -> Answer<(HealthReply, HeldHealth)> {
        let op = match r.op {
            HealthOp::Budget(core_::StoreOp::Record) => CallOp::Record,
            HealthOp::Budget(core_::StoreOp::Reserve) => CallOp::Reserve,
            HealthOp::Budget(core_::StoreOp::RecordReserve) => CallOp::RecordReserve,
            HealthOp::Report => CallOp::Report,
            HealthOp::Probe => CallOp::Probe,
        };
        // apply-call reads neither the key nor the endpoint.
        let call = StoreCall {
            op,
            key: String::new(),
            endpoint_id: String::new(),
            bucket: r.bucket,
            budget: *b,
            health: Some(HealthCall {
                outcome: r.outcome,
                pause_until_ms: r.pause_until_ms,
                probe: r.probe,
                circuit: s.circuit,
            }),
        };
        let (reply, next) = self.apply_call(&call, n, held).map_err(host_err)?;
        let view = reply.view.ok_or_else(|| Err("apply-call answered a health call without a view".to_string()))?;
        Ok((HealthReply { reservation: reply.reservation, granted: reply.granted, view }, next))
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
        let (Some(granted), Some(view)) = (probe, v) else {
            return self.with_compiled(p, h, |i, c| i.gate(c, e, v, pacer, n));
        };
        self.with_compiled(p, h, |i, c| i.after_probe(c, e, granted, view, pacer, n))
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
        self.with_compiled(p, h, |i, c| i.finish(c, s, o, n, r))
    }
    fn settle_wake(
        &mut self,
        p: &core_::Policy,
        w: &health::Wake,
        r: &core_::StoreReply,
        n: u64,
    ) -> Answer<health::WakeDecision> {
        self.with_compiled(p, None, |i, c| i.settle_wake(c, w, r, n))
    }
    fn health_outcome(&mut self, o: &core_::AttemptOutcome) -> Answer<health::HealthOutcome> {
        self.health_outcome_of(o).map_err(host_err)
    }
    fn pause_until(&mut self, h: &Health, o: &core_::AttemptOutcome, n: u64) -> Answer<u64> {
        PolicyInstance::pause_until(self, h, o, n).map_err(host_err)
    }
    fn pace(&mut self, r: &health::Release, p: &health::Pacer, n: u64) -> Answer<(health::Pace, health::Pacer)> {
        PolicyInstance::pace(self, r, p, n).map_err(host_err)
    }
    fn normal_per_s(&mut self, b: &core_::Budget, n: u64, c: u64, p: u64) -> Answer<f64> {
        PolicyInstance::normal_per_s(self, b, n, c, p).map_err(host_err)
    }
}
