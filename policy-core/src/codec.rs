//! JSON ([`crate::json::Value`]) decoding and encoding of every input and
//! output, in the field names of the conformance contract (snake_case,
//! `*_ms` integers). Decoding is strict: unknown fields, missing fields,
//! wrong types and out-of-range integers are refused with `invalid_input`
//! naming the field's full path (`policy.backoff.factor`). Every host that
//! speaks JSON (the npm package, the CLI, the conformance runners) goes
//! through here, so none of them re-implements the checks.

use crate::text::{cat, dec, list};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::json::Value;

use crate::backoff::{Backoff, Jitter};
use crate::budget::{BucketCounts, Budget, BudgetCounts};
use crate::decide::{AttemptOutcome, DeadLetter, Decision, DeliveryState, Policy};
use crate::error::{ErrorCode, PolicyError};
use crate::plan::Plan;
use crate::step::{Resumption, Settlement, Step};
use crate::store::{Reservation, StoreOp, StoreReply, StoreRequest};

fn shape(field: &str, message: impl Into<String>) -> PolicyError {
    PolicyError::new(ErrorCode::InvalidInput, field, message)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::NegInt(_) | Value::Float(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON object being read field by field; `finish` refuses leftovers.
pub struct Fields<'a> {
    map: &'a [(String, Value)],
    allowed: &'a [&'a str],
}

impl<'a> Fields<'a> {
    /// `value` must be an object whose keys are all in `allowed`.
    pub fn new(value: &'a Value, allowed: &'a [&'a str]) -> Result<Self, PolicyError> {
        let Value::Object(map) = value else {
            return Err(shape("", cat(&["expected an object, got ", type_name(value)])));
        };
        if let Some((k, _)) = map.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            return Err(shape(k, cat(&["unknown field (expected one of: ", &list(allowed.iter().copied()), ")"])));
        }
        Ok(Fields { map, allowed })
    }

    pub fn opt(&self, key: &str) -> Option<&'a Value> {
        debug_assert!(self.allowed.contains(&key));
        self.map.iter().find(|(k, _)| k == key).map(|(_, v)| v).filter(|v| **v != Value::Null)
    }

    pub fn req(&self, key: &str) -> Result<&'a Value, PolicyError> {
        self.opt(key).ok_or_else(|| shape(key, "missing field"))
    }

    pub fn u64(&self, key: &str) -> Result<u64, PolicyError> {
        as_u64(self.req(key)?).map_err(|e| e.within(key))
    }

    pub fn u32(&self, key: &str) -> Result<u32, PolicyError> {
        let n = self.u64(key)?;
        u32::try_from(n).map_err(|_| shape(key, cat(&[&dec(n), " does not fit in 32 bits"])))
    }

    pub fn f64(&self, key: &str) -> Result<f64, PolicyError> {
        let v = self.req(key)?;
        v.as_f64().ok_or_else(|| shape(key, cat(&["expected a number, got ", type_name(v)])))
    }

    pub fn bool(&self, key: &str) -> Result<bool, PolicyError> {
        match self.req(key)? {
            Value::Bool(b) => Ok(*b),
            v => Err(shape(key, cat(&["expected a boolean, got ", type_name(v)]))),
        }
    }

    pub fn str(&self, key: &str) -> Result<&'a str, PolicyError> {
        match self.req(key)? {
            Value::String(s) => Ok(s),
            v => Err(shape(key, cat(&["expected a string, got ", type_name(v)]))),
        }
    }

    /// Decode a nested object with `f`, prefixing its errors with `key`.
    pub fn nested<T>(&self, key: &str, f: impl FnOnce(&'a Value) -> Result<T, PolicyError>) -> Result<T, PolicyError> {
        f(self.req(key)?).map_err(|e| e.within(key))
    }
}

/// A non-negative integer below 2^64 (no fractions, no negatives).
pub fn as_u64(v: &Value) -> Result<u64, PolicyError> {
    let got = match v {
        Value::NegInt(_) => "a negative number",
        Value::Float(f) if *f < 0.0 => "a negative number",
        Value::Float(f) if *f >= 9_007_199_254_740_992.0 => "a number above 2^53 (pass it as an integer or a bigint)",
        Value::Float(_) => "a fractional number",
        other => type_name(other),
    };
    v.as_u64().ok_or_else(|| shape("", cat(&["expected a non-negative integer, got ", got])))
}

pub fn backoff(v: &Value) -> Result<Backoff, PolicyError> {
    let f = Fields::new(v, &["base_ms", "factor", "cap_ms", "jitter"])?;
    Ok(Backoff {
        base_ms: f.u64("base_ms")?,
        factor: f.f64("factor")?,
        cap_ms: f.u64("cap_ms")?,
        jitter: Jitter::parse(f.str("jitter")?)?,
    })
}

pub fn budget(v: &Value) -> Result<Budget, PolicyError> {
    let f = Fields::new(v, &["ratio", "window_ms", "min_sample", "sliding"])?;
    Ok(Budget {
        ratio: f.f64("ratio")?,
        window_ms: f.u64("window_ms")?,
        min_sample: f.u64("min_sample")?,
        sliding: f.bool("sliding")?,
    })
}

pub fn policy(v: &Value) -> Result<Policy, PolicyError> {
    let f = Fields::new(v, &["backoff", "window_ms", "hard_cap", "budget"])?;
    Ok(Policy {
        backoff: f.nested("backoff", backoff)?,
        window_ms: f.u64("window_ms")?,
        hard_cap: f.u32("hard_cap")?,
        budget: f.nested("budget", budget)?,
    })
}

pub fn state(v: &Value) -> Result<DeliveryState, PolicyError> {
    let f = Fields::new(
        v,
        &["event_id", "endpoint_id", "attempt", "max_attempts", "first_attempted_at_ms", "credentials_refreshed"],
    )?;
    Ok(DeliveryState {
        event_id: f.str("event_id")?.to_string(),
        endpoint_id: f.str("endpoint_id")?.to_string(),
        attempt: f.u32("attempt")?,
        max_attempts: f.u32("max_attempts")?,
        first_attempted_at_ms: f.u64("first_attempted_at_ms")?,
        credentials_refreshed: f.bool("credentials_refreshed")?,
    })
}

/// `{status, retry_after_ms?}` or `{error_kind}`, exactly one of them.
pub fn outcome(v: &Value) -> Result<AttemptOutcome, PolicyError> {
    let f = Fields::new(v, &["status", "retry_after_ms", "error_kind"])?;
    match (f.opt("status"), f.opt("error_kind")) {
        (Some(_), None) => {
            // A status beyond 16 bits is as invalid as 600: it saturates to
            // 65535, so `invalid_status` comes in the contract's validation
            // order (policy, then state, then status), as for any bad status.
            let status = u16::try_from(f.u64("status")?).unwrap_or(u16::MAX);
            let retry_after_ms = match f.opt("retry_after_ms") {
                Some(ra) => Some(as_u64(ra).map_err(|e| e.within("retry_after_ms"))?),
                None => None,
            };
            Ok(AttemptOutcome::Response { status, retry_after_ms })
        }
        (None, Some(_)) if f.opt("retry_after_ms").is_none() => {
            Ok(AttemptOutcome::TransportError { kind: f.str("error_kind")?.to_string() })
        }
        (None, Some(_)) => Err(shape("retry_after_ms", "only a status outcome carries retry_after_ms")),
        _ => Err(shape("", "an outcome has exactly one of `status` or `error_kind`")),
    }
}

pub fn bucket_counts(v: &Value) -> Result<BucketCounts, PolicyError> {
    let f = Fields::new(v, &["total", "retries"])?;
    Ok(BucketCounts { total: f.u64("total")?, retries: f.u64("retries")? })
}

pub fn budget_counts(v: &Value) -> Result<BudgetCounts, PolicyError> {
    let f = Fields::new(v, &["current", "previous"])?;
    Ok(BudgetCounts { current: f.nested("current", bucket_counts)?, previous: f.nested("previous", bucket_counts)? })
}

fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

pub fn plan_to_value(p: &Plan) -> Value {
    obj([
        ("max_attempts", p.max_attempts.into()),
        ("expected_span_ms", p.expected_span_ms.into()),
        ("offsets_ms", Value::Array(p.offsets_ms.iter().map(|&o| o.into()).collect::<Vec<_>>())),
        ("worst_case_span_ms", p.worst_case_span_ms.into()),
        ("limited_by", p.limited_by.as_str().into()),
    ])
}

pub fn dead_letter_to_value(d: &DeadLetter) -> Value {
    obj([
        ("event_id", d.event_id.as_str().into()),
        ("endpoint_id", d.endpoint_id.as_str().into()),
        ("attempts", d.attempts.into()),
        ("elapsed_ms", d.elapsed_ms.into()),
        ("stop_reason", d.stop_reason.as_str().into()),
    ])
}

/// The contract's shape: `{stop_reason, disable_endpoint, dead_letter?}` for
/// a stop, `{stop_reason: null, disable_endpoint: false, retry}` for a retry.
pub fn decision_to_value(d: &Decision) -> Value {
    match d {
        Decision::Retry(r) => obj([
            ("stop_reason", Value::Null),
            ("disable_endpoint", false.into()),
            ("retry", obj([("delay_ms", r.delay_ms.into()), ("refresh_credentials", r.refresh_credentials.into())])),
        ]),
        Decision::Stop(s) => {
            let mut v =
                obj([("stop_reason", s.reason.as_str().into()), ("disable_endpoint", s.disable_endpoint.into())]);
            if let (Some(dl), Value::Object(m)) = (&s.dead_letter, &mut v) {
                m.push(("dead_letter".to_string(), dead_letter_to_value(dl)));
            }
            v
        }
    }
}

pub fn error_to_value(e: &PolicyError) -> Value {
    obj([("error", e.code.as_str().into()), ("field", e.field.as_str().into()), ("message", e.message.as_str().into())])
}

/// `{op, endpoint_id, window_ms, bucket}`.
pub fn store_request_to_value(r: &StoreRequest) -> Value {
    obj([
        ("op", r.op.as_str().into()),
        ("endpoint_id", r.endpoint_id.as_str().into()),
        ("window_ms", r.window_ms.into()),
        ("bucket", r.bucket.into()),
    ])
}

pub fn store_request(v: &Value) -> Result<StoreRequest, PolicyError> {
    let f = Fields::new(v, &["op", "endpoint_id", "window_ms", "bucket"])?;
    let op = f.str("op")?;
    Ok(StoreRequest {
        op: StoreOp::parse(op).ok_or_else(|| shape("op", "expected one of: record, reserve, record_reserve"))?,
        endpoint_id: f.str("endpoint_id")?.to_string(),
        window_ms: f.u64("window_ms")?,
        bucket: f.u64("bucket")?,
    })
}

fn counts_to_value(c: &BudgetCounts) -> Value {
    let b = |b: &BucketCounts| obj([("total", b.total.into()), ("retries", b.retries.into())]);
    obj([("current", b(&c.current)), ("previous", b(&c.previous))])
}

/// `{reserved, counts}`.
pub fn reservation_to_value(r: &Reservation) -> Value {
    obj([("reserved", r.reserved.into()), ("counts", counts_to_value(&r.counts))])
}

/// `{"unavailable": true}` or `{reserved, counts}`.
pub fn store_reply(v: &Value) -> Result<StoreReply, PolicyError> {
    let f = Fields::new(v, &["unavailable", "reserved", "counts"])?;
    match (f.opt("unavailable"), f.opt("reserved"), f.opt("counts")) {
        (Some(_), None, None) if f.bool("unavailable")? => Ok(StoreReply::Unavailable),
        (None, Some(_), Some(_)) => Ok(StoreReply::Answered(Reservation {
            reserved: f.bool("reserved")?,
            counts: f.nested("counts", budget_counts)?,
        })),
        _ => Err(shape(
            "",
            "a reply is {\"unavailable\": true} or {\"reserved\": bool, \"counts\": {current, previous}}",
        )),
    }
}

fn opt_value<T>(v: &Option<T>, f: impl Fn(&T) -> Value) -> Value {
    v.as_ref().map_or(Value::Null, f)
}

/// `{decision, store}`.
pub fn step_to_value(s: &Step) -> Value {
    obj([
        ("decision", opt_value(&s.decision, decision_to_value)),
        ("store", opt_value(&s.store, store_request_to_value)),
    ])
}

/// `{decision, budget_disagreement}`.
pub fn settlement_to_value(s: &Settlement) -> Value {
    obj([("decision", decision_to_value(&s.decision)), ("budget_disagreement", s.budget_disagreement.into())])
}

/// `{"due": true}` or a stop in the decide shape.
pub fn resumption_to_value(r: &Resumption) -> Value {
    match r {
        Resumption::Due => obj([("due", true.into())]),
        Resumption::Stop(s) => decision_to_value(&Decision::Stop(s.clone())),
    }
}

/// `{retry_after_ms}`: a number or null.
pub fn retry_after_to_value(ms: Option<u64>) -> Value {
    obj([("retry_after_ms", ms.map_or(Value::Null, Value::from))])
}
