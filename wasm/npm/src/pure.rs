//! The pure functions of the contract, one per vector `op`, taking plain JS
//! data in the contract's shape (snake_case fields, `*_ms` integers).

use retry_policy_core::codec::{self, Fields};
use retry_policy_core::{budget_allows as core_budget_allows, classify_error as core_classify_error};
use retry_policy_core::{classify_status as core_classify_status, decide_with, evaluate, ErrorCode, Policy, PolicyError};
use wasm_bindgen::prelude::*;

use crate::args::{self, args, names};
use crate::compiled::step_to_value;
use crate::convert::to_js;
use crate::errors::OrThrow;

/// Derive max attempts and the schedule from a window.
#[wasm_bindgen]
pub fn plan(backoff: JsValue, window_ms: JsValue, hard_cap: JsValue) -> Result<JsValue, JsValue> {
    let pairs = [("backoff", &backoff), ("window_ms", &window_ms), ("hard_cap", &hard_cap)];
    let run = || {
        let v = args(&pairs)?;
        let keys = names(&pairs);
        let f = Fields::new(&v, &keys)?;
        let p = retry_policy_core::plan(&f.nested("backoff", codec::backoff)?, f.u64("window_ms")?, f.u32("hard_cap")?)?;
        Ok(to_js(&codec::plan_to_value(&p)))
    };
    run().or_throw()
}

/// The jittered delay of retry `retry_index` for an event, in milliseconds.
#[wasm_bindgen]
pub fn delay(backoff: JsValue, event_id: JsValue, retry_index: JsValue) -> Result<JsValue, JsValue> {
    let pairs = [("backoff", &backoff), ("event_id", &event_id), ("retry_index", &retry_index)];
    let run = || {
        let v = args(&pairs)?;
        let keys = names(&pairs);
        let f = Fields::new(&v, &keys)?;
        let b = f.nested("backoff", codec::backoff)?;
        let ms = retry_policy_core::delay(&b, f.str("event_id")?, f.u32("retry_index")?)?;
        Ok(to_js(&ms.into()))
    };
    run().or_throw()
}

/// `success`, `retryable` or `terminal` for an HTTP status (100..=599).
#[wasm_bindgen(js_name = classifyStatus)]
pub fn classify_status(status: JsValue) -> Result<String, JsValue> {
    let pairs = [("status", &status)];
    let run = || {
        let v = args(&pairs)?;
        let keys = names(&pairs);
        let n = Fields::new(&v, &keys)?.u64("status")?;
        let status = u16::try_from(n).map_err(|_| {
            PolicyError::new(ErrorCode::InvalidStatus, "status", format!("HTTP status {n} is outside 100..=599"))
        })?;
        Ok(core_classify_status(status)?.as_str().to_string())
    };
    run().or_throw()
}

/// `retryable` or `terminal` for a transport error kind (unknown: terminal).
#[wasm_bindgen(js_name = classifyError)]
pub fn classify_error(error_kind: JsValue) -> Result<String, JsValue> {
    let pairs = [("error_kind", &error_kind)];
    let run = || {
        let v = args(&pairs)?;
        let keys = names(&pairs);
        let f = Fields::new(&v, &keys)?;
        Ok(core_classify_error(f.str("error_kind")?).as_str().to_string())
    };
    run().or_throw()
}

/// Whether one more retry fits the budget, given the counts.
#[wasm_bindgen(js_name = budgetAllows)]
pub fn budget_allows(budget: JsValue, now_ms: JsValue, counts: JsValue) -> Result<bool, JsValue> {
    let pairs = [("budget", &budget), ("now_ms", &now_ms), ("counts", &counts)];
    let run = || {
        let v = args(&pairs)?;
        let keys = names(&pairs);
        let f = Fields::new(&v, &keys)?;
        let b = f.nested("budget", codec::budget)?;
        let c = f.nested("counts", codec::budget_counts)?;
        let now_ms = f.u64("now_ms")?;
        core_budget_allows(&b, now_ms, &c).map_err(|e| e.within("budget"))
    };
    run().or_throw()
}

/// The pure decision: `now_ms` and the budget counts (null: the store could
/// not be read) are inputs. Records nothing.
#[wasm_bindgen]
pub fn decide(
    policy: JsValue,
    state: JsValue,
    outcome: JsValue,
    now_ms: JsValue,
    budget_counts: JsValue,
) -> Result<JsValue, JsValue> {
    let pairs = [
        ("policy", &policy),
        ("state", &state),
        ("outcome", &outcome),
        ("now_ms", &now_ms),
        ("budget_counts", &budget_counts),
    ];
    run_decide(None, &pairs, Some(&budget_counts)).or_throw()
}

/// Shared by every object-path decision: decode the arguments in `pairs`
/// (`policy` too unless `compiled` is given), then `decide_with` when
/// `counts_raw` is given, else `evaluate` (gates 1-5 only).
#[inline(never)]
pub fn run_decide(
    compiled: Option<&Policy>,
    pairs: &[(&'static str, &JsValue)],
    counts_raw: Option<&JsValue>,
) -> Result<JsValue, PolicyError> {
    let v = args(pairs)?;
    let keys: Vec<&str> = pairs.iter().map(|(name, _)| *name).collect();
    let f = Fields::new(&v, &keys)?;
    let decoded;
    let policy = match compiled {
        Some(p) => p,
        None => {
            decoded = f.nested("policy", codec::policy)?;
            &decoded
        }
    };
    let (s, o) = (args::state(&f)?, args::outcome(&f)?);
    let now_ms = f.u64("now_ms")?;
    let out = match counts_raw {
        Some(raw) => {
            let counts = args::budget_counts(raw, &f)?;
            let d = decide_with(policy, &s, &o, now_ms, counts.as_ref()).map_err(scope_decide_error)?;
            codec::decision_to_value(&d)
        }
        None => step_to_value(&evaluate(policy, &s, &o, now_ms).map_err(scope_decide_error)?),
    };
    Ok(to_js(&out))
}

/// Core's decide errors name policy fields relative to the policy
/// (`backoff.base_ms`) and state fields bare (`attempt`); give them the
/// argument they belong to.
pub fn scope_decide_error(e: PolicyError) -> PolicyError {
    let outer = match e.code {
        ErrorCode::InvalidState => "state",
        ErrorCode::InvalidStatus => return e, // already `outcome.status`
        ErrorCode::InvalidInput => return e,
        _ => "policy",
    };
    e.within(outer)
}
