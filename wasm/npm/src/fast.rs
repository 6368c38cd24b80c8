//! The fast path: a policy decoded and validated once (`CompiledPolicy`),
//! and one wasm call per operation with scalars in and scalars out (a code
//! returned, numbers in a small `Float64Array`-readable buffer), so no
//! object is converted on the way in or out.
//!
//! The JS layer (`lib/compiled.cjs`) sends every input shape its types
//! allow this way. Whatever the scalars cannot say, or any policy error,
//! comes back as `REFUSED`, and the JS layer re-runs the call on the object
//! path (`ops.rs`), the single source of every error: both paths accept and
//! refuse exactly the same inputs.

use std::cell::Cell;

use retry_policy_core::codec;
use retry_policy_core::{
    self as core_, AttemptOutcome, BucketCounts, Budget, BudgetCounts, Decision, DeliveryState, HeldBuckets, Policy,
    Reservation, Resumption, StopReason, StoreOp, StoreReply, StoreRequest,
};
use wasm_bindgen::prelude::*;

use crate::convert::{from_js, to_js};
use crate::errors::OrThrow;
use crate::ops::run_value;

/// Result codes: bits 0-3 the decision (0 none / due, 1 retry, 2 + i the
/// stop `StopReason::ALL[i]`), bits 4-5 the store op (0 none, 1 record,
/// 2 reserve, 3 record_reserve), bit 6 `budget_disagreement`.
pub const REFUSED: u32 = 128;

/// Modes of `CompiledPolicy::step`.
const EVALUATE: u32 = 0;
const SETTLE: u32 = 1;
const DECIDE: u32 = 2;
const RESUME: u32 = 3;

/// Result buffer slots.
const OUT_DELAY_MS: usize = 0;
const OUT_REFRESH_CREDENTIALS: usize = 1;
const OUT_DISABLE_ENDPOINT: usize = 2;
const OUT_ELAPSED_MS: usize = 3;
const OUT_HAS_DEAD_LETTER: usize = 4;
const OUT_ATTEMPTS: usize = 5;
const OUT_WINDOW_MS: usize = 6;
const OUT_BUCKET: usize = 7;
const OUT_LEN: usize = 10;

thread_local! {
    static OUT: Cell<[f64; OUT_LEN]> = const { Cell::new([0.0; OUT_LEN]) };
}

/// Address of the result buffer (`OUT_LEN` f64 slots).
#[wasm_bindgen(js_name = outPtr)]
pub fn out_ptr() -> usize {
    OUT.with(|c| c.as_ptr() as usize)
}

fn write(slots: &[(usize, f64)]) {
    let mut out = [0.0; OUT_LEN];
    for &(i, v) in slots {
        out[i] = v;
    }
    OUT.with(|c| c.set(out));
}

const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// A non-negative safe integer, else `None` (the object path reports it).
fn int(x: f64) -> Option<u64> {
    ((0.0..=MAX_SAFE_INTEGER).contains(&x) && x.trunc() == x).then_some(x as u64)
}

fn int32(x: f64) -> Option<u32> {
    u32::try_from(int(x)?).ok()
}

fn counts([ct, cr, pt, pr]: [f64; 4]) -> Option<BudgetCounts> {
    Some(BudgetCounts {
        current: BucketCounts { total: int(ct)?, retries: int(cr)? },
        previous: BucketCounts { total: int(pt)?, retries: int(pr)? },
    })
}

fn op_code(op: StoreOp) -> u32 {
    match op {
        StoreOp::Record => 1,
        StoreOp::Reserve => 2,
        StoreOp::RecordReserve => 3,
    }
}

/// The decision's code bits, its numbers written to `slots`.
fn decision_code(d: &Decision, slots: &mut Vec<(usize, f64)>) -> u32 {
    match d {
        Decision::Retry(r) => {
            slots.push((OUT_DELAY_MS, r.delay_ms as f64));
            slots.push((OUT_REFRESH_CREDENTIALS, f64::from(u8::from(r.refresh_credentials))));
            1
        }
        Decision::Stop(s) => {
            slots.push((OUT_DISABLE_ENDPOINT, f64::from(u8::from(s.disable_endpoint))));
            if let Some(dl) = &s.dead_letter {
                slots.push((OUT_HAS_DEAD_LETTER, 1.0));
                slots.push((OUT_ELAPSED_MS, dl.elapsed_ms as f64));
                slots.push((OUT_ATTEMPTS, f64::from(dl.attempts)));
            }
            2 + StopReason::ALL.iter().position(|r| *r == s.reason).unwrap_or(0) as u32
        }
    }
}

#[wasm_bindgen]
pub struct CompiledPolicy {
    policy: Policy,
}

impl CompiledPolicy {
    pub fn from_policy(policy: Policy) -> CompiledPolicy {
        CompiledPolicy { policy }
    }
}

#[wasm_bindgen]
impl CompiledPolicy {
    /// Decode (codec) and validate a policy `{backoff, window_ms, hard_cap, budget}`.
    #[wasm_bindgen(constructor)]
    pub fn new(policy: JsValue) -> Result<CompiledPolicy, JsValue> {
        let run = || {
            let p = codec::policy(&from_js(&policy)?).map_err(|e| e.within("policy"))?;
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

    /// The object path under this policy: `input` without its `policy`.
    pub fn run(&self, op: &str, input: JsValue) -> Result<JsValue, JsValue> {
        from_js(&input).and_then(|v| run_value(op, &v, Some(&self.policy))).map(|out| to_js(&out)).or_throw()
    }

    /// The fast path of `evaluate` / `settle` / `decide` / `resume`
    /// (`mode`). `retry_after_ms < 0`: none; `error_kind` set: a transport
    /// error (`status` ignored). `reply`: settle 0 unavailable, 1 not
    /// reserved, 2 reserved; decide 0 counts null, 1 given.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &self,
        mode: u32,
        event_id: String,
        attempt: f64,
        max_attempts: f64,
        first_attempted_at_ms: f64,
        credentials_refreshed: bool,
        status: f64,
        retry_after_ms: f64,
        error_kind: Option<String>,
        now_ms: f64,
        reply: u32,
        ct: f64,
        cr: f64,
        pt: f64,
        pr: f64,
    ) -> u32 {
        let state = (event_id, attempt, max_attempts, first_attempted_at_ms, credentials_refreshed);
        self.fast(mode, state, (status, retry_after_ms, error_kind), now_ms, reply, [ct, cr, pt, pr]).unwrap_or(REFUSED)
    }
}

type StateArgs = (String, f64, f64, f64, bool);

impl CompiledPolicy {
    fn fast(
        &self,
        mode: u32,
        (event_id, attempt, max_attempts, first_ms, credentials_refreshed): StateArgs,
        (status, retry_after_ms, error_kind): (f64, f64, Option<String>),
        now_ms: f64,
        reply: u32,
        raw_counts: [f64; 4],
    ) -> Option<u32> {
        let state = DeliveryState {
            event_id,
            // Only dead letters and store requests carry it; the JS layer fills it in.
            endpoint_id: String::new(),
            attempt: int32(attempt)?,
            max_attempts: int32(max_attempts)?,
            first_attempted_at_ms: int(first_ms)?,
            credentials_refreshed,
        };
        let now_ms = int(now_ms)?;
        let mut slots = Vec::with_capacity(8);
        if mode == RESUME {
            let code = match core_::resume(&self.policy, &state, now_ms).ok()? {
                Resumption::Due => 0,
                Resumption::Stop(s) => decision_code(&Decision::Stop(s), &mut slots),
            };
            write(&slots);
            return Some(code);
        }
        let outcome = match error_kind {
            Some(kind) => AttemptOutcome::TransportError { kind },
            None => AttemptOutcome::Response {
                status: u16::try_from(int(status)?).ok()?,
                retry_after_ms: if retry_after_ms < 0.0 { None } else { Some(int(retry_after_ms)?) },
            },
        };
        let code = match mode {
            EVALUATE => {
                let step = core_::evaluate(&self.policy, &state, &outcome, now_ms).ok()?;
                let mut code = step.decision.as_ref().map_or(0, |d| decision_code(d, &mut slots));
                if let Some(r) = &step.store {
                    slots.push((OUT_WINDOW_MS, r.window_ms as f64));
                    slots.push((OUT_BUCKET, r.bucket as f64));
                    code |= op_code(r.op) << 4;
                }
                code
            }
            SETTLE => {
                let reply = match reply {
                    0 => StoreReply::Unavailable,
                    1 | 2 => StoreReply::Answered(Reservation { reserved: reply == 2, counts: counts(raw_counts)? }),
                    _ => return None,
                };
                let s = core_::settle(&self.policy, &state, &outcome, now_ms, &reply).ok()?;
                decision_code(&s.decision, &mut slots) | (u32::from(s.budget_disagreement) << 6)
            }
            DECIDE => {
                let c = match reply {
                    0 => None,
                    1 => Some(counts(raw_counts)?),
                    _ => return None,
                };
                let d = core_::decide_with(&self.policy, &state, &outcome, now_ms, c.as_ref()).ok()?;
                decision_code(&d, &mut slots)
            }
            _ => return None,
        };
        write(&slots);
        Some(code)
    }
}

/// A policy in the contract's shape.
pub fn policy_to_value(p: &Policy) -> retry_policy_core::json::Value {
    use retry_policy_core::json::Value;
    let (b, g) = (&p.backoff, &p.budget);
    let obj = |pairs: Vec<(&str, Value)>| Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect());
    obj(vec![
        (
            "backoff",
            obj(vec![
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
            obj(vec![
                ("ratio", Value::Float(g.ratio)),
                ("window_ms", g.window_ms.into()),
                ("min_sample", g.min_sample.into()),
                ("sliding", g.sliding.into()),
            ]),
        ),
    ])
}

/// The fast path of `storeApply`: `op` 1 record, 2 reserve, 3
/// record_reserve; the budget and what is held as scalars. Returns 0/1
/// (`reserved`) with the judged counts in slots 0-3 and the held buckets
/// in slots 4-8 (bucket, then counts), or `REFUSED`.
#[allow(clippy::too_many_arguments)]
#[wasm_bindgen(js_name = storeApplyFast)]
pub fn store_apply_fast(
    op: u32,
    window_ms: f64,
    bucket: f64,
    now_ms: f64,
    ratio: f64,
    budget_window_ms: f64,
    min_sample: f64,
    sliding: bool,
    held_bucket: f64,
    ct: f64,
    cr: f64,
    pt: f64,
    pr: f64,
) -> u32 {
    let run = || -> Option<u32> {
        let op =
            [StoreOp::Record, StoreOp::Reserve, StoreOp::RecordReserve].get(op.checked_sub(1)? as usize).copied()?;
        let request = StoreRequest { op, endpoint_id: String::new(), window_ms: int(window_ms)?, bucket: int(bucket)? };
        let budget = Budget { ratio, window_ms: int(budget_window_ms)?, min_sample: int(min_sample)?, sliding };
        budget.validate().ok()?;
        let c = counts([ct, cr, pt, pr])?;
        let held = HeldBuckets { bucket: int(held_bucket)?, current: c.current, previous: c.previous };
        let (reply, after) = core_::store_apply(&request, &budget, int(now_ms)?, &held);
        let (j, h) = (&reply.counts, &after);
        write(&[
            (0, j.current.total as f64),
            (1, j.current.retries as f64),
            (2, j.previous.total as f64),
            (3, j.previous.retries as f64),
            (4, h.bucket as f64),
            (5, h.current.total as f64),
            (6, h.current.retries as f64),
            (7, h.previous.total as f64),
            (8, h.previous.retries as f64),
        ]);
        Some(u32::from(reply.reserved))
    };
    run().unwrap_or(REFUSED)
}
