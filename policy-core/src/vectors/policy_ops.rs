//! Formats 1 and 2: one case's actual answer, in the vectors' `expect`
//! shape. A semantic refusal while decoding an input (an unknown jitter is
//! `invalid_backoff`) is an answer; a shape error is a broken vector.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;

use super::host::{Answer, Host};
use crate::codec::{self, Fields};
use crate::json::Value;
use crate::{self as core_, PolicyError};

/// Decoding a case's input: a semantic refusal (unknown jitter is
/// `invalid_backoff`) is an answer; a shape error is a broken vector.
enum Input<T> {
    Ok(T),
    Refused(PolicyError),
}

fn input<T>(r: Result<T, PolicyError>) -> Result<Input<T>, String> {
    match r {
        Ok(v) => Ok(Input::Ok(v)),
        Err(e) if e.code == core_::ErrorCode::InvalidInput => Err(format!("broken vector: {e}")),
        Err(e) => Ok(Input::Refused(e)),
    }
}

fn answer<T>(r: Answer<T>, enc: impl FnOnce(&T) -> Value) -> Result<Value, String> {
    match r {
        Ok(v) => Ok(enc(&v)),
        Err(Ok(e)) => Ok(Value::Object(vec![("error".into(), e.code.as_str().into())])),
        Err(Err(msg)) => Err(msg),
    }
}

macro_rules! take {
    ($e:expr) => {
        match input($e)? {
            Input::Ok(v) => v,
            Input::Refused(e) => return Ok(Value::Object(vec![("error".into(), e.code.as_str().into())])),
        }
    };
}

/// The actual result of one case, in the vectors' `expect` shape.
pub fn run_case(host: &mut dyn Host, op: &str, v: &Value) -> Result<Value, String> {
    let class = |c: &core_::OutcomeClass| Value::Object(vec![("outcome".into(), c.as_str().into())]);
    match op {
        "plan" => {
            let f = Fields::new(v, &["backoff", "window_ms", "hard_cap"]).map_err(|e| e.to_string())?;
            let b = take!(f.nested("backoff", codec::backoff));
            let (w, h) = (take!(f.u64("window_ms")), take!(f.u32("hard_cap")));
            answer(host.plan(&b, w, h), codec::plan_to_value)
        }
        "delay" => {
            let f = Fields::new(v, &["backoff", "event_id", "retry_index"]).map_err(|e| e.to_string())?;
            let b = take!(f.nested("backoff", codec::backoff));
            let (id, i) = (take!(f.str("event_id")), take!(f.u32("retry_index")));
            answer(host.delay(&b, id, i), |d| Value::Object(vec![("delay_ms".into(), (*d).into())]))
        }
        "classify_status" => {
            let f = Fields::new(v, &["status"]).map_err(|e| e.to_string())?;
            let s = take!(f.u64("status"));
            match u16::try_from(s) {
                Ok(s) => answer(host.classify_status(s), class),
                Err(_) => Ok(Value::Object(vec![("error".into(), "invalid_status".into())])),
            }
        }
        "classify_error" => {
            let f = Fields::new(v, &["error_kind"]).map_err(|e| e.to_string())?;
            answer(host.classify_error(take!(f.str("error_kind"))), class)
        }
        "budget" => {
            let f = Fields::new(v, &["budget", "now_ms", "current", "previous"]).map_err(|e| e.to_string())?;
            let b = take!(f.nested("budget", codec::budget));
            let n = take!(f.u64("now_ms"));
            let c = core_::BudgetCounts {
                current: take!(f.nested("current", codec::bucket_counts)),
                previous: take!(f.nested("previous", codec::bucket_counts)),
            };
            answer(host.budget(&b, n, &c), |a| Value::Object(vec![("allows_retry".into(), (*a).into())]))
        }
        "decide" => {
            let f = Fields::new(v, &["policy", "state", "outcome", "now_ms", "budget_counts"])
                .map_err(|e| e.to_string())?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let o = take!(f.nested("outcome", codec::outcome));
            let n = take!(f.u64("now_ms"));
            if v.get("budget_counts").is_none() {
                return Err("broken vector: missing field `budget_counts` (null means unreadable)".into());
            }
            let c = match f.opt("budget_counts") {
                Some(_) => Some(take!(f.nested("budget_counts", codec::budget_counts))),
                None => None,
            };
            answer(host.decide(&p, &s, &o, n, c.as_ref()), codec::decision_to_value)
        }
        "evaluate" | "settle" => {
            let settle = op == "settle";
            let keys: &[&str] = if settle {
                &["policy", "state", "outcome", "now_ms", "reply"]
            } else {
                &["policy", "state", "outcome", "now_ms"]
            };
            let f = Fields::new(v, keys).map_err(|e| e.to_string())?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let o = take!(f.nested("outcome", codec::outcome));
            let n = take!(f.u64("now_ms"));
            if settle {
                let r = take!(f.nested("reply", codec::store_reply));
                answer(host.settle(&p, &s, &o, n, &r), codec::settlement_to_value)
            } else {
                answer(host.evaluate(&p, &s, &o, n), codec::step_to_value)
            }
        }
        "resume" => {
            let f = Fields::new(v, &["policy", "state", "now_ms"]).map_err(|e| e.to_string())?;
            let p = take!(f.nested("policy", codec::policy));
            let s = take!(f.nested("state", codec::state));
            let n = take!(f.u64("now_ms"));
            answer(host.resume(&p, &s, n), codec::resumption_to_value)
        }
        "retry_after" => {
            let f = Fields::new(v, &["header", "now_ms"]).map_err(|e| e.to_string())?;
            let (h, n) = (take!(f.str("header")), take!(f.u64("now_ms")));
            answer(host.retry_after(h, n), |ms| codec::retry_after_to_value(*ms))
        }
        other => Err(format!("unknown op `{other}`")),
    }
}
