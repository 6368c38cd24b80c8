//! A policy decoded and validated once, held on the Rust side.
//!
//! Two ways to decide with it:
//!
//! * `decide` / `evaluate`: plain JS objects in, plain JS objects out
//!   (serde-wasm-bindgen + codec), every input shape accepted by the codec.
//! * `decideFast`: the per-decision state as scalars, results written to a
//!   small `Float64Array`-readable buffer, one call per decision and no
//!   object conversion. The JS layer uses it only for canonical, well-typed
//!   inputs; on `REFUSED` it re-runs the call through `decide`/`evaluate`,
//!   which is the single source of every error.

use std::cell::Cell;

use retry_policy_core::codec::{self, Fields};
use retry_policy_core::{
    evaluate, AttemptOutcome, BucketCounts, BudgetCounts, Decision, DeliveryState, Policy, Step, StopReason,
};
use retry_policy_core::json::Value;
use wasm_bindgen::prelude::*;

use crate::args::args;
use crate::convert::{from_js, obj, to_js};
use crate::errors::OrThrow;
use crate::pure::run_decide;

/// `decideFast` results: 0 = retry, 1..=6 = stop with `StopReason::ALL[code - 1]`.
pub const RETRY: u32 = 0;
/// Gates 1-5 want a retry; the budget must be read (`out[OUT_WINDOW_MS]`, `out[OUT_BUCKET]`).
pub const NEEDS_BUDGET: u32 = 7;
/// An input outside the fast path's scalar ranges, or a policy error: use the object path.
pub const REFUSED: u32 = 8;

/// Slots of the result buffer.
pub const OUT_DELAY_MS: usize = 0;
pub const OUT_REFRESH_CREDENTIALS: usize = 1;
pub const OUT_DISABLE_ENDPOINT: usize = 2;
pub const OUT_ELAPSED_MS: usize = 3;
pub const OUT_HAS_DEAD_LETTER: usize = 4;
pub const OUT_ATTEMPTS: usize = 5;
pub const OUT_WINDOW_MS: usize = 6;
pub const OUT_BUCKET: usize = 7;
const OUT_LEN: usize = 8;

/// `decideFast` `counts_mode`.
const COUNTS_NONE: u32 = 0;
const COUNTS_GIVEN: u32 = 1;
const COUNTS_EVALUATE_ONLY: u32 = 2;

const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A non-negative safe integer, else `None` (the object path then reports it).
fn int(x: f64) -> Option<u64> {
    (x >= 0.0 && x <= MAX_SAFE_INTEGER && x.trunc() == x).then_some(x as u64)
}

pub fn policy_to_value(p: &Policy) -> Value {
    let (b, g) = (&p.backoff, &p.budget);
    obj([
        (
            "backoff",
            obj([
                ("base_ms", b.base_ms.into()),
                ("factor", Value::Float(b.factor)),
                ("cap_ms", b.cap_ms.into()),
                ("jitter", b.jitter.as_str().into()),
            ]),
        ),
        ("window_ms", p.window_ms.into()),
        ("hard_cap", p.hard_cap.into()),
        (
            "budget",
            obj([
                ("ratio", Value::Float(g.ratio)),
                ("window_ms", g.window_ms.into()),
                ("min_sample", g.min_sample.into()),
                ("sliding", g.sliding.into()),
            ]),
        ),
    ])
}

fn bucket_to_value(window_ms: u64, bucket: u64) -> Value {
    obj([("window_ms", window_ms.into()), ("bucket", bucket.into())])
}

/// What `evaluate` returns on the object path: `{decision}` or
/// `{needs_budget: {window_ms, bucket}}`.
pub fn step_to_value(step: &Step) -> Value {
    match step {
        Step::Decided(d) => obj([("decision", codec::decision_to_value(d))]),
        Step::NeedsBudget(p) => obj([("needs_budget", bucket_to_value(p.budget.window_ms, p.bucket()))]),
    }
}

#[wasm_bindgen]
pub struct CompiledPolicy {
    policy: Policy,
    out: Cell<[f64; OUT_LEN]>,
}

impl CompiledPolicy {
    pub fn from_policy(policy: Policy) -> CompiledPolicy {
        CompiledPolicy { policy, out: Cell::new([0.0; OUT_LEN]) }
    }

    fn write(&self, slots: &[(usize, f64)]) {
        let mut out = [0.0; OUT_LEN];
        for &(i, v) in slots {
            out[i] = v;
        }
        self.out.set(out);
    }

    fn write_decision(&self, d: &Decision) -> u32 {
        match d {
            Decision::Retry(r) => {
                self.write(&[
                    (OUT_DELAY_MS, r.delay_ms as f64),
                    (OUT_REFRESH_CREDENTIALS, f64::from(u8::from(r.refresh_credentials))),
                ]);
                RETRY
            }
            Decision::Stop(s) => {
                let (elapsed_ms, attempts) = s.dead_letter.as_ref().map_or((0, 0), |d| (d.elapsed_ms, d.attempts));
                self.write(&[
                    (OUT_DISABLE_ENDPOINT, f64::from(u8::from(s.disable_endpoint))),
                    (OUT_ELAPSED_MS, elapsed_ms as f64),
                    (OUT_HAS_DEAD_LETTER, f64::from(u8::from(s.dead_letter.is_some()))),
                    (OUT_ATTEMPTS, f64::from(attempts)),
                ]);
                let index = StopReason::ALL.iter().position(|r| *r == s.reason).unwrap_or(0);
                index as u32 + 1
            }
        }
    }

}

#[wasm_bindgen]
impl CompiledPolicy {
    /// Decode (codec) and validate a policy `{backoff, window_ms, hard_cap, budget}`.
    #[wasm_bindgen(constructor)]
    pub fn new(policy: JsValue) -> Result<CompiledPolicy, JsValue> {
        let run = || {
            let p = codec::policy(&from_js(&policy, "policy")?).map_err(|e| e.within("policy"))?;
            p.validate().map_err(|e| e.within("policy"))?;
            Ok(CompiledPolicy::from_policy(p))
        };
        run().or_throw()
    }

    /// The policy in the contract's shape.
    #[wasm_bindgen(js_name = toValue)]
    pub fn to_value(&self) -> JsValue {
        to_js(&policy_to_value(&self.policy))
    }

    /// Object path of `decide_with` (null counts: store unreadable).
    pub fn decide(&self, state: JsValue, outcome: JsValue, now_ms: JsValue, budget_counts: JsValue) -> Result<JsValue, JsValue> {
        let pairs = [("state", &state), ("outcome", &outcome), ("now_ms", &now_ms), ("budget_counts", &budget_counts)];
        run_decide(Some(&self.policy), &pairs, Some(&budget_counts)).or_throw()
    }

    /// Object path of gates 1-5: `{decision}` or `{needs_budget: {window_ms, bucket}}`.
    pub fn evaluate(&self, state: JsValue, outcome: JsValue, now_ms: JsValue) -> Result<JsValue, JsValue> {
        run_decide(Some(&self.policy), &[("state", &state), ("outcome", &outcome), ("now_ms", &now_ms)], None).or_throw()
    }

    /// The budget bucket `now_ms` falls in, with the budget window:
    /// `{window_ms, bucket}` (for counting first attempts).
    #[wasm_bindgen(js_name = budgetBucket)]
    pub fn budget_bucket(&self, now_ms: JsValue) -> Result<JsValue, JsValue> {
        let run = || {
            let v = args(&[("now_ms", &now_ms)])?;
            let now_ms = Fields::new(&v, &["now_ms"])?.u64("now_ms")?;
            let b = &self.policy.budget;
            Ok(to_js(&bucket_to_value(b.window_ms, b.bucket(now_ms))))
        };
        run().or_throw()
    }

    /// Address of the result buffer (8 f64 slots, see `OUT_*`).
    #[wasm_bindgen(js_name = outPtr)]
    pub fn out_ptr(&self) -> usize {
        self.out.as_ptr() as usize
    }

    /// Fast path: one call per decision, scalars in, a code out and the
    /// numbers in the result buffer. `retry_after_ms < 0` means none;
    /// `error_kind` set means a transport error (then `status` is ignored).
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = decideFast)]
    pub fn decide_fast(
        &self,
        event_id: String,
        attempt: f64,
        max_attempts: f64,
        first_attempted_at_ms: f64,
        credentials_refreshed: bool,
        status: f64,
        retry_after_ms: f64,
        error_kind: Option<String>,
        now_ms: f64,
        counts_mode: u32,
        current_total: f64,
        current_retries: f64,
        previous_total: f64,
        previous_retries: f64,
    ) -> u32 {
        self.fast(
            event_id,
            [attempt, max_attempts, first_attempted_at_ms, now_ms],
            credentials_refreshed,
            (status, retry_after_ms, error_kind),
            counts_mode,
            [current_total, current_retries, previous_total, previous_retries],
        )
        .unwrap_or(REFUSED)
    }
}

impl CompiledPolicy {
    fn fast(
        &self,
        event_id: String,
        [attempt, max_attempts, first_ms, now_ms]: [f64; 4],
        credentials_refreshed: bool,
        (status, retry_after_ms, error_kind): (f64, f64, Option<String>),
        counts_mode: u32,
        counts: [f64; 4],
    ) -> Option<u32> {
        let outcome = match error_kind {
            Some(kind) => AttemptOutcome::TransportError { kind },
            None => AttemptOutcome::Response {
                status: u16::try_from(int(status)?).ok()?,
                retry_after_ms: if retry_after_ms < 0.0 { None } else { Some(int(retry_after_ms)?) },
            },
        };
        let state = DeliveryState {
            event_id,
            // Only the dead letter carries it, and the JS layer fills it in.
            endpoint_id: String::new(),
            attempt: u32::try_from(int(attempt)?).ok()?,
            max_attempts: u32::try_from(int(max_attempts)?).ok()?,
            first_attempted_at_ms: int(first_ms)?,
            credentials_refreshed,
        };
        // Like the object path, decode every input before any gate runs.
        let counts = match counts_mode {
            COUNTS_NONE | COUNTS_EVALUATE_ONLY => None,
            COUNTS_GIVEN => {
                let [ct, cr, pt, pr] = counts;
                Some(BudgetCounts {
                    current: BucketCounts { total: int(ct)?, retries: int(cr)? },
                    previous: BucketCounts { total: int(pt)?, retries: int(pr)? },
                })
            }
            _ => return None,
        };
        let now_ms = int(now_ms)?;
        let pending = match evaluate(&self.policy, &state, &outcome, now_ms).ok()? {
            Step::Decided(d) => return Some(self.write_decision(&d)),
            Step::NeedsBudget(p) => p,
        };
        if counts_mode == COUNTS_EVALUATE_ONLY {
            self.write(&[(OUT_WINDOW_MS, pending.budget.window_ms as f64), (OUT_BUCKET, pending.bucket() as f64)]);
            return Some(NEEDS_BUDGET);
        }
        Some(self.write_decision(&pending.resolve(counts.as_ref())))
    }
}
