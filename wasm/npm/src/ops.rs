//! The object path: every operation of the contract, one per vector `op`,
//! taking ONE plain JS object in the vector's `input` shape (snake_case
//! fields, `*_ms` integers) and answering in its `expect` shape. The JS
//! layer names the fields, the core's codec decodes them strictly (unknown,
//! missing, mistyped, out of range: `invalid_input` with the field's path),
//! the core decides, the codec encodes. Nothing here judges anything.

use retry_policy_core::codec::{self, Fields};
use retry_policy_core::json::Value;
use retry_policy_core::{self as core_, ErrorCode, HeldBuckets, Policy, PolicyError};
use wasm_bindgen::prelude::*;

use crate::convert::{from_js, to_js};
use crate::errors::OrThrow;

fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// Core errors name policy fields relative to the policy (`backoff.base_ms`)
/// and state fields bare (`attempt`); give them the argument they belong to.
fn scoped(e: PolicyError) -> PolicyError {
    match e.code {
        ErrorCode::InvalidState => e.within("state"),
        ErrorCode::InvalidStatus | ErrorCode::InvalidInput => e,
        _ => e.within("policy"),
    }
}

/// The fields of an op's input: `policy` is one of them unless the caller
/// holds a compiled one.
fn fields<'a>(
    v: &'a Value,
    compiled: Option<&Policy>,
    with: &'a [&'a str],
    without: &'a [&'a str],
) -> Result<Fields<'a>, PolicyError> {
    Fields::new(v, if compiled.is_some() { without } else { with })
}

fn policy_of(f: &Fields, compiled: Option<&Policy>) -> Result<Policy, PolicyError> {
    match compiled {
        Some(p) => Ok(*p),
        None => f.nested("policy", codec::policy),
    }
}

fn held(v: &Value) -> Result<HeldBuckets, PolicyError> {
    let f = Fields::new(v, &["bucket", "current", "previous"])?;
    Ok(HeldBuckets {
        bucket: f.u64("bucket")?,
        current: f.nested("current", codec::bucket_counts)?,
        previous: f.nested("previous", codec::bucket_counts)?,
    })
}

fn held_to_value(h: &HeldBuckets) -> Value {
    let b = |c: &core_::BucketCounts| obj([("total", c.total.into()), ("retries", c.retries.into())]);
    obj([("bucket", h.bucket.into()), ("current", b(&h.current)), ("previous", b(&h.previous))])
}

/// Run `op` on `v` (the input object); `compiled`: the policy is held.
pub fn run_value(op: &str, v: &Value, compiled: Option<&Policy>) -> Result<Value, PolicyError> {
    const STEP: [&str; 4] = ["policy", "state", "outcome", "now_ms"];
    match op {
        "plan" => {
            let f = Fields::new(v, &["backoff", "window_ms", "hard_cap"])?;
            let p = core_::plan(&f.nested("backoff", codec::backoff)?, f.u64("window_ms")?, f.u32("hard_cap")?)?;
            Ok(codec::plan_to_value(&p))
        }
        "delay" => {
            let f = Fields::new(v, &["backoff", "event_id", "retry_index"])?;
            let b = f.nested("backoff", codec::backoff)?;
            let ms = core_::delay(&b, f.str("event_id")?, f.u32("retry_index")?).map_err(|e| match e.code {
                ErrorCode::InvalidRetryIndex => e,
                _ => e.within("backoff"),
            })?;
            Ok(obj([("delay_ms", ms.into())]))
        }
        "classify_status" => {
            let n = Fields::new(v, &["status"])?.u64("status")?;
            let class = u16::try_from(n)
                .ok()
                .map(core_::classify_status)
                .unwrap_or_else(|| Err(PolicyError::new(ErrorCode::InvalidStatus, "status", "outside 100..=599")))?;
            Ok(obj([("outcome", class.as_str().into())]))
        }
        "classify_error" => {
            let f = Fields::new(v, &["error_kind"])?;
            Ok(obj([("outcome", core_::classify_error(f.str("error_kind")?).as_str().into())]))
        }
        "budget" => {
            let f = Fields::new(v, &["budget", "now_ms", "current", "previous"])?;
            let b = f.nested("budget", codec::budget)?;
            let now_ms = f.u64("now_ms")?;
            let counts = core_::BudgetCounts {
                current: f.nested("current", codec::bucket_counts)?,
                previous: f.nested("previous", codec::bucket_counts)?,
            };
            let allows = core_::budget_allows(&b, now_ms, &counts).map_err(|e| e.within("budget"))?;
            Ok(obj([("allows_retry", allows.into())]))
        }
        "decide" => {
            let f = fields(
                v,
                compiled,
                &["policy", "state", "outcome", "now_ms", "budget_counts"],
                &["state", "outcome", "now_ms", "budget_counts"],
            )?;
            let p = policy_of(&f, compiled)?;
            let (s, o, now_ms) =
                (f.nested("state", codec::state)?, f.nested("outcome", codec::outcome)?, f.u64("now_ms")?);
            // `null` counts: the store could not be read. Absent: a caller's mistake.
            if v.get("budget_counts").is_none() {
                return Err(PolicyError::new(
                    ErrorCode::InvalidInput,
                    "budget_counts",
                    "missing (pass null when the store could not be read)",
                ));
            }
            let counts = match f.opt("budget_counts") {
                Some(_) => Some(f.nested("budget_counts", codec::budget_counts)?),
                None => None,
            };
            let d = core_::decide_with(&p, &s, &o, now_ms, counts.as_ref()).map_err(scoped)?;
            Ok(codec::decision_to_value(&d))
        }
        "evaluate" => {
            let f = fields(v, compiled, &STEP, &STEP[1..])?;
            let p = policy_of(&f, compiled)?;
            let (s, o, now_ms) =
                (f.nested("state", codec::state)?, f.nested("outcome", codec::outcome)?, f.u64("now_ms")?);
            Ok(codec::step_to_value(&core_::evaluate(&p, &s, &o, now_ms).map_err(scoped)?))
        }
        "settle" => {
            let f = fields(
                v,
                compiled,
                &["policy", "state", "outcome", "now_ms", "reply"],
                &["state", "outcome", "now_ms", "reply"],
            )?;
            let p = policy_of(&f, compiled)?;
            let (s, o, now_ms) =
                (f.nested("state", codec::state)?, f.nested("outcome", codec::outcome)?, f.u64("now_ms")?);
            let reply = f.nested("reply", codec::store_reply)?;
            Ok(codec::settlement_to_value(&core_::settle(&p, &s, &o, now_ms, &reply).map_err(scoped)?))
        }
        "resume" => {
            let f = fields(v, compiled, &["policy", "state", "now_ms"], &["state", "now_ms"])?;
            let p = policy_of(&f, compiled)?;
            let (s, now_ms) = (f.nested("state", codec::state)?, f.u64("now_ms")?);
            Ok(codec::resumption_to_value(&core_::resume(&p, &s, now_ms).map_err(scoped)?))
        }
        "retry_after" => {
            let f = Fields::new(v, &["header", "now_ms"])?;
            Ok(codec::retry_after_to_value(core_::parse_retry_after(f.str("header")?, f.u64("now_ms")?)))
        }
        "store_key" => {
            let f = Fields::new(v, &["request"])?;
            Ok(core_::store_key(&f.nested("request", codec::store_request)?).as_str().into())
        }
        "store_apply" => {
            let f = Fields::new(v, &["request", "budget", "now_ms", "held"])?;
            let request = f.nested("request", codec::store_request)?;
            let budget = f.nested("budget", codec::budget)?;
            budget.validate().map_err(|e| e.within("budget"))?;
            let (now_ms, h) = (f.u64("now_ms")?, f.nested("held", held)?);
            let (reply, after) = core_::store_apply(&request, &budget, now_ms, &h);
            Ok(obj([("reply", codec::reservation_to_value(&reply)), ("held", held_to_value(&after))]))
        }
        other => Err(PolicyError::new(ErrorCode::InvalidInput, "op", format!("unknown operation `{other}`"))),
    }
}

/// Run one operation of the contract: `input` in the vector's input shape,
/// the answer in its expect shape. Throws a `PolicyError`.
#[wasm_bindgen]
pub fn run(op: &str, input: JsValue) -> Result<JsValue, JsValue> {
    from_js(&input).and_then(|v| run_value(op, &v, None)).map(|out| to_js(&out)).or_throw()
}
