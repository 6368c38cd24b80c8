//! Format 3's answers from the component (`PolicyInstance`: compile, the
//! handle's call, discard), for policy-core's shared runner
//! (`retry_policy_core::vectors`; `Native` is policy-core itself).

use retry_policy_core as core_;
use retry_policy_core::compiled::{CallOp, HealthCall, StoreCall};
use retry_policy_core::health::{self, Health, HealthOp, HealthReply, HealthRequest, HeldHealth};
use retry_policy_core::json::Value;
use retry_policy_core::vectors::{self, Answer, DocClass};

use super::host_err;
use crate::{HostError, PolicyInstance};

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
impl vectors::HealthHost for PolicyInstance {
    fn health_document(&mut self, doc: &Value) -> Answer<Vec<DocClass>> {
        let json = serde_json::to_string(doc).map_err(|e| Err(e.to_string()))?;
        let doc = self.load_health_document(&json).map_err(host_err)?;
        let class = |c: crate::HealthClass| DocClass {
            name: c.name,
            health: c.health,
            policy_hash: c.policy_hash,
            hash_words: c.hash_words,
        };
        Ok(doc.classes.into_iter().map(class).collect())
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
