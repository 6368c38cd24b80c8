//! JSON ([`crate::json::Value`]) of format 3's inputs and outputs, in the
//! shapes of `tests/vectors/format3-*.json` (docs/health.md section 7). Decoding
//! is strict like [`crate::codec`]: unknown, missing or mistyped fields are
//! `invalid_input` naming the field.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::budget::BucketCounts;
use crate::codec::{self as c2, Fields};
use crate::error::{ErrorCode, PolicyError};
use crate::json::Value;
use crate::store::HeldBuckets;
use crate::text::hex16;

use super::gate::{GateDecision, GateEvent};
use super::pacer::{Pace, Pacer};
use super::section::{Health, Release};
use super::settle::{HealthDecision, HealthSettlement};
use super::state::{
    FailureBuckets, HealthOp, HealthOutcome, HealthReply, HealthRequest, HealthState, HealthView, HeldHealth,
};

fn shape(field: &str, message: &str) -> PolicyError {
    PolicyError::new(ErrorCode::InvalidInput, field, message)
}

fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn f64_value(x: f64) -> Value {
    Value::Float(x)
}

/// A non-negative finite double (integers accepted).
fn non_negative(f: &Fields, key: &str) -> Result<f64, PolicyError> {
    let x = f.f64(key)?;
    if x >= 0.0 && x.is_finite() {
        Ok(x)
    } else {
        Err(shape(key, "expected a finite number >= 0"))
    }
}

/// A section: the document reader's rules (`invalid_document`), or null.
pub fn section(v: &Value) -> Result<Option<Health>, PolicyError> {
    match v {
        Value::Null => Ok(None),
        v => Health::from_value(v).map(Some),
    }
}

/// The section with every default filled in.
pub fn section_to_value(h: &Health) -> Value {
    let circuit = h.circuit.map_or(Value::Null, |c| {
        obj([
            ("failure_ratio", f64_value(c.failure_ratio)),
            ("min_sample", c.min_sample.into()),
            ("cooldown_ms", c.cooldown_ms.into()),
            ("cooldown_max_ms", c.cooldown_max_ms.into()),
            ("probes", c.probes.into()),
            ("probe_interval_ms", c.probe_interval_ms.into()),
        ])
    });
    obj([
        ("hold_budget_refusals", h.hold_budget_refusals.into()),
        ("pause", obj([("max_ms", h.pause_max_ms.into())])),
        ("circuit", circuit),
        (
            "release",
            obj([("multiple", f64_value(h.release.multiple)), ("floor_per_s", f64_value(h.release.floor_per_s))]),
        ),
        ("cache_ms", h.cache_ms.into()),
    ])
}

/// The hash words as 16-hex-digit strings (exact in every JSON reader).
pub fn hash_words_to_value(h: &Health) -> Value {
    Value::Array(h.hash_words().into_iter().map(|w| Value::String(hex16(w))).collect())
}

/// `{multiple, floor_per_s}`, both required (shape: `invalid_input`),
/// validated as in a section: a value out of range is `invalid_document`
/// (`health.release.multiple`), as the component's `pace` judges it.
pub fn release(v: &Value) -> Result<Release, PolicyError> {
    let f = Fields::new(v, &["multiple", "floor_per_s"])?;
    let r = Release { multiple: f.f64("multiple")?, floor_per_s: f.f64("floor_per_s")? };
    Health { release: r, ..Health::default() }.validate().map_err(|e| e.within("health"))?;
    Ok(r)
}

pub fn request(v: &Value) -> Result<HealthRequest, PolicyError> {
    let f = Fields::new(v, &["op", "bucket", "outcome", "pause_until_ms", "probe"])?;
    let op = HealthOp::parse(f.str("op")?)
        .ok_or_else(|| shape("op", "expected one of: record, reserve, record_reserve, report, probe"))?;
    let outcome =
        HealthOutcome::parse(f.str("outcome")?).ok_or_else(|| shape("outcome", "expected success, failure or none"))?;
    let r = HealthRequest {
        op,
        bucket: f.u64("bucket")?,
        outcome,
        pause_until_ms: f.u64("pause_until_ms")?,
        probe: f.bool("probe")?,
    };
    if op == HealthOp::Probe && (r.outcome != HealthOutcome::None || r.pause_until_ms != 0 || r.probe) {
        return Err(shape("op", "a probe call follows no attempt: outcome none, pause_until_ms 0, probe false"));
    }
    Ok(r)
}

fn held_buckets(v: &Value) -> Result<HeldBuckets, PolicyError> {
    let f = Fields::new(v, &["bucket", "current", "previous"])?;
    Ok(HeldBuckets {
        bucket: f.u64("bucket")?,
        current: f.nested("current", c2::bucket_counts)?,
        previous: f.nested("previous", c2::bucket_counts)?,
    })
}

fn failures(v: &Value) -> Result<FailureBuckets, PolicyError> {
    let f = Fields::new(v, &["bucket", "current", "previous"])?;
    Ok(FailureBuckets { bucket: f.u64("bucket")?, current: f.u64("current")?, previous: f.u64("previous")? })
}

fn health_state(v: &Value) -> Result<HealthState, PolicyError> {
    let keys = [
        "failures",
        "paused_until_ms",
        "opened_at_ms",
        "cooldown_ms",
        "probe_window",
        "probes_granted",
        "closed_at_ms",
        "consecutive_failures",
        "probes_in_flight",
        "probe_busy_until_ms",
    ];
    let f = Fields::new(v, &keys)?;
    Ok(HealthState {
        failures: f.nested("failures", failures)?,
        paused_until_ms: f.u64("paused_until_ms")?,
        opened_at_ms: f.u64("opened_at_ms")?,
        cooldown_ms: f.u64("cooldown_ms")?,
        probe_window: f.u64("probe_window")?,
        probes_granted: f.u32("probes_granted")?,
        closed_at_ms: f.u64("closed_at_ms")?,
        consecutive_failures: f.u64("consecutive_failures")?,
        probes_in_flight: f.u32("probes_in_flight")?,
        probe_busy_until_ms: f.u64("probe_busy_until_ms")?,
    })
}

pub fn held(v: &Value) -> Result<HeldHealth, PolicyError> {
    let f = Fields::new(v, &["buckets", "health"])?;
    Ok(HeldHealth { buckets: f.nested("buckets", held_buckets)?, health: f.nested("health", health_state)? })
}

fn counts_to_value(b: &BucketCounts) -> Value {
    obj([("total", b.total.into()), ("retries", b.retries.into())])
}

pub fn held_to_value(h: &HeldHealth) -> Value {
    let b = &h.buckets;
    let s = &h.health;
    obj([
        (
            "buckets",
            obj([
                ("bucket", b.bucket.into()),
                ("current", counts_to_value(&b.current)),
                ("previous", counts_to_value(&b.previous)),
            ]),
        ),
        (
            "health",
            obj([
                (
                    "failures",
                    obj([
                        ("bucket", s.failures.bucket.into()),
                        ("current", s.failures.current.into()),
                        ("previous", s.failures.previous.into()),
                    ]),
                ),
                ("paused_until_ms", s.paused_until_ms.into()),
                ("opened_at_ms", s.opened_at_ms.into()),
                ("cooldown_ms", s.cooldown_ms.into()),
                ("probe_window", s.probe_window.into()),
                ("probes_granted", s.probes_granted.into()),
                ("closed_at_ms", s.closed_at_ms.into()),
                ("consecutive_failures", s.consecutive_failures.into()),
                ("probes_in_flight", s.probes_in_flight.into()),
                ("probe_busy_until_ms", s.probe_busy_until_ms.into()),
            ]),
        ),
    ])
}

pub fn view(v: &Value) -> Result<HealthView, PolicyError> {
    let f = Fields::new(v, &["paused_until_ms", "opened_at_ms", "cooldown_ms", "closed_at_ms", "as_of_ms"])?;
    Ok(HealthView {
        paused_until_ms: f.u64("paused_until_ms")?,
        opened_at_ms: f.u64("opened_at_ms")?,
        cooldown_ms: f.u64("cooldown_ms")?,
        closed_at_ms: f.u64("closed_at_ms")?,
        as_of_ms: f.u64("as_of_ms")?,
    })
}

pub fn view_to_value(v: &HealthView) -> Value {
    obj([
        ("paused_until_ms", v.paused_until_ms.into()),
        ("opened_at_ms", v.opened_at_ms.into()),
        ("cooldown_ms", v.cooldown_ms.into()),
        ("closed_at_ms", v.closed_at_ms.into()),
        ("as_of_ms", v.as_of_ms.into()),
    ])
}

/// `{reservation, granted, view}` (null where an op has none).
pub fn reply_to_value(r: &HealthReply) -> Value {
    obj([
        ("reservation", r.reservation.as_ref().map_or(Value::Null, c2::reservation_to_value)),
        ("granted", r.granted.map_or(Value::Null, Value::from)),
        ("view", view_to_value(&r.view)),
    ])
}

pub fn pacer(v: &Value) -> Result<Pacer, PolicyError> {
    let f = Fields::new(v, &["tokens", "updated_ms", "normal_per_s"])?;
    let p = Pacer {
        tokens: non_negative(&f, "tokens")?,
        updated_ms: f.u64("updated_ms")?,
        normal_per_s: non_negative(&f, "normal_per_s")?,
    };
    p.validate()?;
    Ok(p)
}

pub fn pacer_to_value(p: &Pacer) -> Value {
    obj([
        ("tokens", f64_value(p.tokens)),
        ("updated_ms", p.updated_ms.into()),
        ("normal_per_s", f64_value(p.normal_per_s)),
    ])
}

pub fn pace_to_value(p: &Pace) -> Value {
    match p {
        Pace::Send => obj([("action", "send".into())]),
        Pace::Wait { until_ms } => obj([("action", "wait".into()), ("until_ms", (*until_ms).into())]),
    }
}

pub fn gate_event(v: &Value) -> Result<GateEvent, PolicyError> {
    let keys = ["event_id", "endpoint_id", "attempts", "first_attempted_at_ms", "held", "held_ms"];
    let f = Fields::new(v, &keys)?;
    Ok(GateEvent {
        event_id: f.str("event_id")?.to_string(),
        endpoint_id: f.str("endpoint_id")?.to_string(),
        attempts: f.u32("attempts")?,
        first_attempted_at_ms: f.u64("first_attempted_at_ms")?,
        held: f.bool("held")?,
        held_ms: f.u64("held_ms")?,
    })
}

/// `{action: send, probe}`, `{action: probe}`, `{action: hold, until_ms,
/// reason}` or `{action: stop, stop_reason, dead_letter, held_ms}`.
pub fn gate_decision_to_value(d: &GateDecision) -> Value {
    match d {
        GateDecision::Send { probe } => obj([("action", "send".into()), ("probe", (*probe).into())]),
        GateDecision::Probe => obj([("action", "probe".into())]),
        GateDecision::Hold { until_ms, reason } => {
            obj([("action", "hold".into()), ("until_ms", (*until_ms).into()), ("reason", reason.as_str().into())])
        }
        GateDecision::Stop { dead_letter, held_ms } => obj([
            ("action", "stop".into()),
            ("stop_reason", dead_letter.stop_reason.as_str().into()),
            ("dead_letter", c2::dead_letter_to_value(dead_letter)),
            ("held_ms", (*held_ms).into()),
        ]),
    }
}

/// `{decision, budget_disagreement}`; a hold's decision is `{hold: {until_ms,
/// refresh_credentials}}`, any other format 2's decision shape.
pub fn settlement_to_value(s: &HealthSettlement) -> Value {
    let decision = match &s.decision {
        HealthDecision::Decided(d) => c2::decision_to_value(d),
        HealthDecision::Hold { until_ms, refresh_credentials } => obj([(
            "hold",
            obj([("until_ms", (*until_ms).into()), ("refresh_credentials", (*refresh_credentials).into())]),
        )]),
    };
    obj([("decision", decision), ("budget_disagreement", s.budget_disagreement.into())])
}

/// An error as the vectors expect it: `{error, field}`.
pub fn error_to_value(e: &PolicyError) -> Value {
    obj([("error", e.code.as_str().into()), ("field", e.field.as_str().into())])
}

/// A list of values.
pub fn list(items: Vec<Value>) -> Value {
    Value::Array(items)
}

/// A string value.
pub fn string(s: String) -> Value {
    Value::String(s)
}
