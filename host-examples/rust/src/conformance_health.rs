//! Format 3's vectors (`tests/vectors/format3-*.json`, format
//! "webhook-retry-policy/health-vectors 1", docs/health.md section 7)
//! through a host: `native` runs policy-core's `health` module (the
//! reference, as `policy-core/tests/health_vectors.rs`), `wasmtime` the
//! component: `load-health-document`, `apply-call` call by call, `compile`
//! then `gate` / `after-probe` / `finish` / `settle-wake` (discarded after),
//! `pace`, `normal-per-s`, `health-outcome-of`, `pause-until`. Inputs are
//! decoded and results encoded with policy-core's `health::codec`; a decode
//! refusal is an answer `{error, field}`, as in the reference.

use retry_policy_core::codec::{self as c2, Fields};
use retry_policy_core::compiled::{CallOp, HealthCall, StoreCall};
use retry_policy_core::health::{self, codec, Health, HealthOp, HealthReply, HealthRequest, HeldHealth};
use retry_policy_core::json::Value;
use retry_policy_core::{self as core_, PolicyError};

use super::{Answer, Native};
use crate::{HealthClass, HostError, PolicyInstance};

/// The format string of a format-3 vector file.
pub const FORMAT: &str = "webhook-retry-policy/health-vectors 1";

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

fn obj(pairs: Vec<(&str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// Equal as JSON: numbers by value, object members in any order (the reference's rule).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && same(v, v2)))
        }
        (Value::Int(_) | Value::NegInt(_) | Value::Float(_), Value::Int(_) | Value::NegInt(_) | Value::Float(_)) => {
            a.as_f64() == b.as_f64() && (a.as_u64() == b.as_u64())
        }
        _ => a == b,
    }
}

/// A decode refusal or the policy's: `{error, field}`; a host failure: `Err`.
type Out = Result<Value, Result<PolicyError, String>>;

fn section(f: &Fields, key: &str) -> Result<Option<Health>, PolicyError> {
    codec::section(f.req(key).unwrap_or(&Value::Null)).map_err(|e| e.within(key))
}

fn need<T>(v: Option<T>, what: &str) -> Result<T, Result<PolicyError, String>> {
    v.ok_or_else(|| Err(format!("broken vector: {what}")))
}

fn class_to_value(c: &HealthClass) -> Value {
    let words = c.health.map_or(Value::Null, |_| {
        Value::Array(c.hash_words.iter().map(|w| Value::String(format!("{w:016x}"))).collect())
    });
    obj(vec![
        ("name", c.name.as_str().into()),
        ("health", c.health.as_ref().map_or(Value::Null, codec::section_to_value)),
        ("hash_words", words),
        ("policy_hash", c.policy_hash.as_str().into()),
    ])
}

fn view(f: &Fields) -> Result<Option<health::HealthView>, PolicyError> {
    f.opt("view").map(|v| codec::view(v).map_err(|e| e.within("view"))).transpose()
}

fn calls<'a>(f: &Fields<'a>) -> Result<&'a Vec<Value>, Result<PolicyError, String>> {
    match f.req("calls").map_err(Ok)? {
        Value::Array(items) => Ok(items),
        _ => Err(Err("broken vector: calls is not a list".into())),
    }
}

fn run_op(host: &mut dyn HealthHost, op: &str, input: &Value) -> Out {
    let keys: &[&str] = match op {
        "parse_document" => &["document"],
        "apply" => &["section", "budget", "held", "calls"],
        "gate" => &["policy", "health", "event", "view", "pacer", "now_ms"],
        "after_probe" => &["policy", "health", "event", "granted", "view", "pacer", "now_ms"],
        "settle" => &["policy", "health", "state", "outcome", "now_ms", "reply"],
        "settle_wake" => &["policy", "wake", "reply", "now_ms"],
        "health_outcome" => &["outcome"],
        "pause_until" => &["health", "outcome", "now_ms"],
        "pace" => &["release", "pacer", "calls"],
        "normal_per_s" => &["budget", "now_ms", "current", "previous"],
        other => return Err(Err(format!("unknown op `{other}`"))),
    };
    let f = Fields::new(input, keys).map_err(Ok)?;
    match op {
        "parse_document" => {
            let classes = host.health_document(f.req("document").map_err(Ok)?)?;
            Ok(obj(vec![("classes", Value::Array(classes.iter().map(class_to_value).collect()))]))
        }
        "apply" => {
            let s = need(section(&f, "section").map_err(Ok)?, "a store case has a section")?;
            let budget = f.nested("budget", c2::budget).map_err(Ok)?;
            let mut held = f.nested("held", codec::held).map_err(Ok)?;
            let mut replies = Vec::new();
            for call in calls(&f)? {
                let c = Fields::new(call, &["now_ms", "request"]).map_err(Ok)?;
                let request = c.nested("request", codec::request).map_err(Ok)?;
                let (reply, next) = host.health_apply(&request, &s, &budget, c.u64("now_ms").map_err(Ok)?, &held)?;
                replies.push(codec::reply_to_value(&reply));
                held = next;
            }
            Ok(obj(vec![("replies", Value::Array(replies)), ("held", codec::held_to_value(&held))]))
        }
        "gate" | "after_probe" => {
            let policy = f.nested("policy", c2::policy).map_err(Ok)?;
            let h = section(&f, "health").map_err(Ok)?;
            let event = f.nested("event", codec::gate_event).map_err(Ok)?;
            let pacer = f.nested("pacer", codec::pacer).map_err(Ok)?;
            let now_ms = f.u64("now_ms").map_err(Ok)?;
            let v = view(&f).map_err(Ok)?;
            let probe = if op == "after_probe" {
                need(h.as_ref(), "after_probe has a section")?;
                need(v.as_ref(), "after_probe has the reply's view")?;
                Some(f.bool("granted").map_err(Ok)?)
            } else {
                None
            };
            let (d, p) = host.health_gate(&policy, h.as_ref(), &event, probe, v.as_ref(), &pacer, now_ms)?;
            Ok(obj(vec![("decision", codec::gate_decision_to_value(&d)), ("pacer", codec::pacer_to_value(&p))]))
        }
        "settle" => {
            let s = host.health_settle(
                &f.nested("policy", c2::policy).map_err(Ok)?,
                section(&f, "health").map_err(Ok)?.as_ref(),
                &f.nested("state", c2::state).map_err(Ok)?,
                &f.nested("outcome", c2::outcome).map_err(Ok)?,
                f.u64("now_ms").map_err(Ok)?,
                &f.nested("reply", c2::store_reply).map_err(Ok)?,
            )?;
            Ok(codec::settlement_to_value(&s))
        }
        "settle_wake" => {
            let d = host.settle_wake(
                &f.nested("policy", c2::policy).map_err(Ok)?,
                &f.nested("wake", codec::wake).map_err(Ok)?,
                &f.nested("reply", c2::store_reply).map_err(Ok)?,
                f.u64("now_ms").map_err(Ok)?,
            )?;
            Ok(codec::wake_decision_to_value(&d))
        }
        "health_outcome" => {
            let o = host.health_outcome(&f.nested("outcome", c2::outcome).map_err(Ok)?)?;
            Ok(obj(vec![("outcome", o.as_str().into())]))
        }
        "pause_until" => {
            let h = need(section(&f, "health").map_err(Ok)?, "pause_until has a section")?;
            let o = f.nested("outcome", c2::outcome).map_err(Ok)?;
            let until = host.pause_until(&h, &o, f.u64("now_ms").map_err(Ok)?)?;
            Ok(obj(vec![("pause_until_ms", until.into())]))
        }
        "pace" => {
            let release = f.nested("release", codec::release).map_err(Ok)?;
            let mut pacer = f.nested("pacer", codec::pacer).map_err(Ok)?;
            let mut results = Vec::new();
            for now in calls(&f)? {
                let (r, next) = host.pace(&release, &pacer, c2::as_u64(now).map_err(Ok)?)?;
                results.push(codec::pace_to_value(&r));
                pacer = next;
            }
            Ok(obj(vec![("results", Value::Array(results)), ("pacer", codec::pacer_to_value(&pacer))]))
        }
        _ => {
            let budget = f.nested("budget", c2::budget).map_err(Ok)?;
            let (n, c, p) =
                (f.u64("now_ms").map_err(Ok)?, f.u64("current").map_err(Ok)?, f.u64("previous").map_err(Ok)?);
            Ok(obj(vec![("normal_per_s", Value::Float(host.normal_per_s(&budget, n, c, p)?))]))
        }
    }
}

/// One case's actual result, in the `expect` shape (a refusal as `{error, field}`).
pub fn run_case(host: &mut dyn HealthHost, op: &str, input: &Value) -> Result<Value, String> {
    match run_op(host, op, input) {
        Ok(v) => Ok(v),
        Err(Ok(e)) => Ok(codec::error_to_value(&e)),
        Err(Err(msg)) => Err(msg),
    }
}
