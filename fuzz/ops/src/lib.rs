//! Structured inputs for every policy-core operation, biased to the
//! contract's boundaries, and the invariants every answer must keep.
//!
//! * [`Case::arbitrary`] builds a policy, a state, an outcome, `now_ms`, a
//!   store reply, counts, a retry index, a `Retry-After` header and what an
//!   in-memory store holds, from fuzzer bytes. Each value is drawn half the
//!   time from a table of boundaries (attempt 0/1/99/100/101/u32::MAX,
//!   factor 1 + ulp, ratio 0/-0/1/1 + ulp/NaN, window 0/30 days/+1, ...).
//! * [`check_native`] runs every operation natively and panics when an
//!   invariant of the contract breaks (the fuzzer reports the panic).
//! * [`Answers`] is every operation's answer on one case, comparable
//!   between hosts: the differential runner computes it natively and through
//!   the component and requires equality (same value, or same code + field).
//! * [`health`] and [`health_check`]: the same for ABI 0.3 (the compiled
//!   policy's lifecycle, format 3's functions and the in-memory store's
//!   `apply_call`) on a [`HealthCase`], which starts with a [`Case`].

use arbitrary::{Arbitrary, Result, Unstructured};
use retry_policy_core as core_;

pub mod health;
pub mod health_check;
pub use health::{native_health, HealthAnswers, HealthCase};
pub use health_check::check_health;
use retry_policy_core::{
    AttemptOutcome, Backoff, BucketCounts, Budget, BudgetCounts, Decision, DeliveryState, HeldBuckets, Jitter,
    Policy, Reservation, StopReason, StoreOp, StoreReply, StoreRequest,
};

const U64_EDGES: &[u64] = &[
    0,
    1,
    2,
    99,
    100,
    101,
    999,
    1000,
    1999,
    2000,
    59_999,
    60_000,
    60_001,
    300_000,
    900_000,
    86_399_999,
    86_400_000,
    86_400_001,
    2_591_999_999,
    2_592_000_000,
    2_592_000_001,
    1_700_000_000_000,
    1_700_000_000_080,
    (1 << 32) - 1,
    1 << 32,
    (1 << 53) - 1,
    1 << 53,
    (1 << 63) - 1,
    1 << 63,
    u64::MAX - 1,
    u64::MAX,
];

const U32_EDGES: &[u32] = &[0, 1, 2, 15, 16, 17, 98, 99, 100, 101, 1000, u32::MAX - 1, u32::MAX];

const STATUSES: &[u16] =
    &[0, 99, 100, 101, 199, 200, 204, 299, 300, 301, 399, 400, 401, 403, 404, 408, 409, 410, 425, 429, 499, 500, 501, 502, 503, 504, 505, 599, 600, 999, 65535];

const ERROR_KINDS: &[&str] = &[
    "connect_timeout",
    "connect_refused",
    "dns_failure",
    "tls_handshake",
    "read_timeout",
    "connection_reset",
    "body_too_large",
    "redirect",
    "invalid_url",
    "",
    "CONNECT_TIMEOUT",
    "connect-timeout",
    "\u{0}",
    "é",
];

const HEADERS: &[&str] = &[
    "",
    " ",
    "0",
    "1",
    "120",
    " 120\t",
    "\n120",
    "\u{a0}120",
    "+1",
    "-1",
    "1.5",
    "1e3",
    "٣",
    "²",
    "１２",
    "9007199254740991",
    "9007199254740992",
    "99999999999999999999999",
    "Sun, 06 Nov 1994 08:49:37 GMT",
    "Sun, 06 Nov 1994 08:49:37 UTC",
    "Sunday, 06-Nov-94 08:49:37 GMT",
    "Sun Nov  6 08:49:37 1994",
    "Thu, 29 Feb 2024 00:00:00 GMT",
    "Thu, 29 Feb 2023 00:00:00 GMT",
    "Tue, 29 Feb 2000 00:00:00 GMT",
    "Tue, 29 Feb 1900 00:00:00 GMT",
    "Wed, 31 Dec 2025 23:59:60 GMT",
    "Wed, 31 Dec 2025 23:59:61 GMT",
    "Wed, 31 Dec 2025 24:00:00 GMT",
    "Mon, 01 Jan 0000 00:00:00 GMT",
    "Fri, 31 Dec 9999 23:59:59 GMT",
    "Mon, 31 Apr 2026 00:00:00 GMT",
    "Mon, 00 Jan 2026 00:00:00 GMT",
    "mon, 01 Jan 2026 00:00:00 GMT",
    "Mon, 01 jan 2026 00:00:00 GMT",
];

fn factor_edges() -> [f64; 16] {
    let one_ulp = f64::from_bits(1.0f64.to_bits() + 1);
    let two_ulp = f64::from_bits(1.0f64.to_bits() + 2);
    [
        1.0,
        one_ulp,
        two_ulp,
        1.000000000000001,
        1.0000001,
        1.5,
        2.0,
        2.0000000000000004,
        10.0,
        1e308,
        f64::MAX,
        f64::INFINITY,
        f64::NAN,
        0.9999999999999999,
        -0.0,
        0.0,
    ]
}

fn ratio_edges() -> [f64; 12] {
    [
        0.0,
        -0.0,
        5e-324,
        1e-300,
        0.1,
        0.30000000000000004,
        0.5,
        0.9999999999999999,
        1.0,
        1.0000000000000002,
        f64::NAN,
        f64::INFINITY,
    ]
}

fn pick<T: Copy>(u: &mut Unstructured, table: &[T]) -> Result<T> {
    Ok(table[u.choose_index(table.len())?])
}

/// A u64: a boundary, a small number, or any.
pub fn edge_u64(u: &mut Unstructured) -> Result<u64> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => pick(u, U64_EDGES)?,
        2 => u64::from(u.arbitrary::<u16>()?),
        _ => u.arbitrary()?,
    })
}

pub fn edge_u32(u: &mut Unstructured) -> Result<u32> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => pick(u, U32_EDGES)?,
        2 => u32::from(u.arbitrary::<u8>()?),
        _ => u.arbitrary()?,
    })
}

fn edge_f64(u: &mut Unstructured, table: &[f64]) -> Result<f64> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 | 1 => pick(u, table)?,
        2 => 1.0 + f64::from(u.arbitrary::<u16>()?) / 4096.0,
        _ => f64::from_bits(u.arbitrary()?),
    })
}

fn small_string(u: &mut Unstructured) -> Result<String> {
    Ok(match u.int_in_range(0..=3u8)? {
        0 => String::from("evt_1"),
        1 => String::new(),
        2 => pick(u, &["ep_42", "{}", "a:b", "é", "\u{1F600}", "evt_9007199254740993"])?.to_string(),
        _ => {
            let s: &str = u.arbitrary()?;
            s.chars().take(64).collect()
        }
    })
}

fn jitter(u: &mut Unstructured) -> Result<Jitter> {
    pick(u, &[Jitter::None, Jitter::Full, Jitter::Equal])
}

fn backoff(u: &mut Unstructured) -> Result<Backoff> {
    if u.ratio(1, 4)? {
        return Ok(Backoff { base_ms: 2000, factor: 2.0, cap_ms: 300_000, jitter: jitter(u)? });
    }
    Ok(Backoff { base_ms: edge_u64(u)?, factor: edge_f64(u, &factor_edges())?, cap_ms: edge_u64(u)?, jitter: jitter(u)? })
}

fn budget(u: &mut Unstructured) -> Result<Budget> {
    if u.ratio(1, 4)? {
        return Ok(Budget::default());
    }
    Ok(Budget {
        ratio: edge_f64(u, &ratio_edges())?,
        window_ms: edge_u64(u)?,
        min_sample: match u.int_in_range(0..=2u8)? {
            0 => pick(u, &[0, 1, 49, 50, 51])?,
            _ => edge_u64(u)?,
        },
        sliding: u.arbitrary()?,
    })
}

fn counts(u: &mut Unstructured) -> Result<BucketCounts> {
    Ok(match u.int_in_range(0..=2u8)? {
        0 => BucketCounts { total: pick(u, &[0, 1, 48, 49, 50, 51, 99, 100, 101])?, retries: pick(u, &[0, 1, 4, 5, 9, 10, 11])? },
        1 => BucketCounts { total: u64::from(u.arbitrary::<u16>()?), retries: u64::from(u.arbitrary::<u8>()?) },
        _ => BucketCounts { total: edge_u64(u)?, retries: edge_u64(u)? },
    })
}

/// Everything one round of operations needs.
#[derive(Clone, Debug)]
pub struct Case {
    pub policy: Policy,
    pub state: DeliveryState,
    pub outcome: AttemptOutcome,
    pub now_ms: u64,
    pub reply: StoreReply,
    pub counts: Option<BudgetCounts>,
    pub retry_index: u32,
    pub header: String,
    pub held: HeldBuckets,
    pub store_op: StoreOp,
}

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let policy = Policy {
            backoff: backoff(u)?,
            window_ms: edge_u64(u)?,
            hard_cap: edge_u32(u)?,
            budget: budget(u)?,
        };
        let first = edge_u64(u)?;
        let state = DeliveryState {
            event_id: small_string(u)?,
            endpoint_id: small_string(u)?,
            attempt: edge_u32(u)?,
            max_attempts: edge_u32(u)?,
            first_attempted_at_ms: first,
            credentials_refreshed: u.arbitrary()?,
        };
        let outcome = if u.ratio(3, 4)? {
            let status = if u.ratio(3, 4)? { pick(u, STATUSES)? } else { u.arbitrary()? };
            let retry_after_ms = if u.arbitrary()? { Some(edge_u64(u)?) } else { None };
            AttemptOutcome::Response { status, retry_after_ms }
        } else {
            let kind = if u.ratio(3, 4)? { pick(u, ERROR_KINDS)?.to_string() } else { small_string(u)? };
            AttemptOutcome::TransportError { kind }
        };
        // now: relative to the first attempt most of the time, so gates 4-5
        // and the budget are reached.
        let now_ms = match u.int_in_range(0..=3u8)? {
            0 | 1 => first.saturating_add(edge_u64(u)? % (policy.window_ms.saturating_add(2)).max(1)),
            2 => first.saturating_sub(u64::from(u.arbitrary::<u16>()?)),
            _ => edge_u64(u)?,
        };
        let c = BudgetCounts { current: counts(u)?, previous: counts(u)? };
        let reply = if u.ratio(1, 4)? {
            StoreReply::Unavailable
        } else {
            StoreReply::Answered(Reservation { reserved: u.arbitrary()?, counts: c })
        };
        let counts = if u.ratio(1, 5)? { None } else { Some(BudgetCounts { current: counts(u)?, previous: counts(u)? }) };
        let header = match u.int_in_range(0..=2u8)? {
            0 => pick(u, HEADERS)?.to_string(),
            1 => imf_date(u)?,
            _ => {
                let s: &str = u.arbitrary()?;
                s.chars().take(80).collect()
            }
        };
        let held_bucket = match u.int_in_range(0..=2u8)? {
            0 => policy.budget.bucket(now_ms),
            1 => policy.budget.bucket(now_ms).saturating_sub(u64::from(u.int_in_range(0..=3u8)?)).saturating_add(u64::from(u.int_in_range(0..=1u8)?)),
            _ => edge_u64(u)?,
        };
        let held = HeldBuckets { bucket: held_bucket, current: counts_or_default(u)?, previous: counts_or_default(u)? };
        Ok(Case {
            policy,
            state,
            outcome,
            now_ms,
            reply,
            counts,
            retry_index: edge_u32(u)?,
            header,
            held,
            store_op: pick(u, &[StoreOp::Record, StoreOp::Reserve, StoreOp::RecordReserve])?,
        })
    }
}

fn counts_or_default(u: &mut Unstructured) -> Result<BucketCounts> {
    if u.arbitrary()? {
        counts(u)
    } else {
        Ok(BucketCounts::default())
    }
}

/// An IMF-fixdate-shaped string with every field near its range.
pub fn imf_date(u: &mut Unstructured) -> Result<String> {
    const DAYS: [&str; 8] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Foo"];
    const MONTHS: [&str; 13] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "JAN"];
    let day = u.int_in_range(0..=32u32)?;
    let year = match u.int_in_range(0..=3u8)? {
        0 => pick(u, &[0u32, 1, 1900, 1970, 1999, 2000, 2024, 2025, 2100, 2400, 9999])?,
        _ => u.int_in_range(0..=9999u32)?,
    };
    Ok(format!(
        "{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT",
        pick(u, &DAYS)?,
        day,
        pick(u, &MONTHS)?,
        year,
        u.int_in_range(0..=24u32)?,
        u.int_in_range(0..=60u32)?,
        u.int_in_range(0..=61u32)?,
    ))
}

/// A refusal, as hosts must agree on it: the code and the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: &'static str,
    pub field: String,
}

pub type Ans<T> = core::result::Result<T, Refusal>;

pub fn refusal(e: core_::PolicyError) -> Refusal {
    Refusal { code: e.code.as_str(), field: e.field }
}

/// Every operation's answer on one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Answers {
    pub plan: Ans<core_::Plan>,
    pub delay: Ans<u64>,
    pub classify_status: Ans<core_::OutcomeClass>,
    pub classify_error: Ans<core_::OutcomeClass>,
    pub budget: Ans<bool>,
    pub decide: Ans<Decision>,
    pub evaluate: Ans<core_::Step>,
    pub settle: Ans<core_::Settlement>,
    pub resume: Ans<core_::Resumption>,
    pub retry_after: Ans<Option<u64>>,
    pub store_key: Ans<String>,
    pub store_apply: Ans<(Reservation, HeldBuckets)>,
}

impl Case {
    pub fn status(&self) -> u16 {
        match self.outcome {
            AttemptOutcome::Response { status, .. } => status,
            AttemptOutcome::TransportError { .. } => 503,
        }
    }

    pub fn error_kind(&self) -> &str {
        match &self.outcome {
            AttemptOutcome::TransportError { kind } => kind,
            AttemptOutcome::Response { .. } => "connect_timeout",
        }
    }

    pub fn request(&self) -> StoreRequest {
        StoreRequest {
            op: self.store_op,
            endpoint_id: self.state.endpoint_id.clone(),
            window_ms: self.policy.budget.window_ms,
            bucket: self.policy.budget.bucket(self.now_ms),
        }
    }
}

/// Every operation natively.
pub fn native(c: &Case) -> Answers {
    let p = &c.policy;
    let valid_budget = p.budget.validate().is_ok();
    Answers {
        plan: core_::plan(&p.backoff, p.window_ms, p.hard_cap).map_err(refusal),
        delay: core_::delay(&p.backoff, &c.state.event_id, c.retry_index).map_err(refusal),
        classify_status: core_::classify_status(c.status()).map_err(refusal),
        classify_error: Ok(core_::classify_error(c.error_kind())),
        budget: core_::budget_allows(&p.budget, c.now_ms, c.counts.as_ref().unwrap_or(&BudgetCounts::default()))
            .map_err(refusal),
        decide: core_::decide_with(p, &c.state, &c.outcome, c.now_ms, c.counts.as_ref()).map_err(refusal),
        evaluate: core_::evaluate(p, &c.state, &c.outcome, c.now_ms).map_err(refusal),
        settle: core_::settle(p, &c.state, &c.outcome, c.now_ms, &c.reply).map_err(refusal),
        resume: core_::resume(p, &c.state, c.now_ms).map_err(refusal),
        retry_after: Ok(core_::parse_retry_after(&c.header, c.now_ms)),
        store_key: Ok(core_::store_key(&c.request())),
        // The store's rule is meant for a validated budget; hosts only call
        // it with one (a request only comes from a validated evaluate).
        store_apply: if valid_budget {
            Ok(core_::store_apply(&c.request(), &p.budget, c.now_ms, &c.held))
        } else {
            Err(Refusal { code: "skipped", field: String::new() })
        },
    }
}

fn elapsed(c: &Case) -> u64 {
    c.now_ms.saturating_sub(c.state.first_attempted_at_ms)
}

fn check_retry(c: &Case, r: &core_::Retry, what: &str) {
    let e = elapsed(c);
    assert!(e.saturating_add(r.delay_ms) <= c.policy.window_ms, "{what}: retry past the window: {c:?} -> {r:?}");
    assert!(c.state.attempt < c.state.max_attempts, "{what}: retry with no attempts left: {c:?}");
    let jittered = c.policy.backoff.delay_ms(&c.state.event_id, c.state.attempt - 1);
    let ra = match c.outcome {
        AttemptOutcome::Response { retry_after_ms, .. } => retry_after_ms,
        _ => None,
    };
    assert_eq!(r.delay_ms, ra.map_or(jittered, |ra| jittered.max(ra)), "{what}: delay is not max(jitter, Retry-After)");
    assert!(jittered <= c.policy.backoff.cap_ms, "{what}: jittered delay above the cap");
    let auth = matches!(c.outcome, AttemptOutcome::Response { status: 401 | 403, .. });
    assert_eq!(r.refresh_credentials, auth, "{what}: refresh_credentials");
}

fn check_stop(c: &Case, d: &Decision, what: &str) {
    if let Decision::Stop(s) = d {
        match (&s.dead_letter, s.reason) {
            (None, StopReason::Delivered) => {}
            (Some(dl), r) if r != StopReason::Delivered => {
                assert_eq!(dl.stop_reason, r, "{what}: dead letter reason");
                assert_eq!(dl.attempts, c.state.attempt, "{what}: dead letter attempts");
                assert_eq!(dl.elapsed_ms, elapsed(c), "{what}: dead letter elapsed");
                assert_eq!(dl.event_id, c.state.event_id, "{what}: dead letter event");
                assert_eq!(dl.endpoint_id, c.state.endpoint_id, "{what}: dead letter endpoint");
            }
            other => panic!("{what}: dead letter {other:?} for {c:?}"),
        }
        assert!(!s.disable_endpoint || matches!(c.outcome, AttemptOutcome::Response { status: 410, .. }));
    }
}

/// Run every operation natively and check the contract's invariants;
/// panics (for the fuzzer) when one breaks. Returns the answers.
pub fn check_native(c: &Case) -> Answers {
    let a = native(c);
    let p = &c.policy;

    // The three step entry points validate identically.
    match (&a.evaluate, &a.settle, &a.decide) {
        (Ok(_), Ok(_), Ok(_)) => {}
        (Err(e1), Err(e2), Err(e3)) => assert!(e1 == e2 && e2 == e3, "errors differ: {e1:?} {e2:?} {e3:?}"),
        other => panic!("evaluate/settle/decide disagree on validity: {other:?} for {c:?}"),
    }

    if let Ok(step) = &a.evaluate {
        let first = c.state.attempt == 1;
        if let Some(r) = &step.store {
            assert_eq!(r.bucket, c.now_ms / p.budget.window_ms, "evaluate: bucket != now / window");
            assert_eq!(r.window_ms, p.budget.window_ms);
            assert_eq!(r.endpoint_id, c.state.endpoint_id);
        }
        match &step.decision {
            Some(d) => {
                assert_eq!(step.store.as_ref().map(|r| r.op), first.then_some(StoreOp::Record), "evaluate: store op");
                assert!(!matches!(d, Decision::Retry(_)), "evaluate decided a retry without the budget");
                check_stop(c, d, "evaluate");
            }
            None => {
                let want = if first { StoreOp::RecordReserve } else { StoreOp::Reserve };
                assert_eq!(step.store.as_ref().map(|r| r.op), Some(want), "evaluate: open step's store op");
            }
        }
        let s = a.settle.as_ref().expect("checked above");
        match (&step.decision, &c.reply) {
            (Some(d), _) => {
                assert_eq!(&s.decision, d, "settle after a gate fired");
                assert!(!s.budget_disagreement);
            }
            (None, StoreReply::Unavailable) => {
                assert!(matches!(&s.decision, Decision::Stop(st) if st.reason == StopReason::BudgetUnavailable));
                assert!(!s.budget_disagreement);
            }
            (None, StoreReply::Answered(r)) => {
                match &s.decision {
                    Decision::Retry(_) => assert!(r.reserved, "settle retried without a reservation"),
                    Decision::Stop(st) => {
                        assert!(!r.reserved, "settle stopped a reserved retry");
                        assert_eq!(st.reason, StopReason::RetryBudgetExhausted);
                    }
                }
                assert_eq!(s.budget_disagreement, p.budget.allows_retry(c.now_ms, &r.counts) != r.reserved);
            }
        }
        if let Decision::Retry(r) = &s.decision {
            check_retry(c, r, "settle");
        }
        check_stop(c, &s.decision, "settle");

        // Format 1 is a special case of settle.
        let reply = match &c.counts {
            Some(k) => StoreReply::Answered(Reservation { reserved: p.budget.allows_retry(c.now_ms, k), counts: *k }),
            None => StoreReply::Unavailable,
        };
        let via_settle = core_::settle(p, &c.state, &c.outcome, c.now_ms, &reply).expect("valid above");
        assert_eq!(a.decide.as_ref().ok(), Some(&via_settle.decision), "decide != settle with the rule's verdict");
        if let Ok(Decision::Retry(r)) = &a.decide {
            check_retry(c, r, "decide");
        }
    }

    if let Ok(r) = &a.resume {
        let due = c.state.attempt < c.state.max_attempts && elapsed(c) < p.window_ms;
        assert_eq!(matches!(r, core_::Resumption::Due), due, "resume");
        if let core_::Resumption::Stop(s) = r {
            check_stop(c, &Decision::Stop(s.clone()), "resume");
        }
    }
    if a.evaluate.is_ok() {
        assert!(a.resume.is_ok(), "evaluate accepts a state resume refuses");
    }

    if let Ok(plan) = &a.plan {
        assert!((1..=p.hard_cap).contains(&plan.max_attempts));
        assert_eq!(plan.offsets_ms.len(), plan.max_attempts as usize);
        assert_eq!(plan.offsets_ms[0], 0);
        assert!(plan.offsets_ms.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*plan.offsets_ms.last().unwrap(), plan.expected_span_ms);
        assert!(plan.expected_span_ms <= p.window_ms);
        assert!(plan.worst_case_span_ms >= plan.expected_span_ms);
    }

    match &a.delay {
        Ok(d) => {
            assert!(c.retry_index <= 99);
            let ceiling = p.backoff.ceiling_ms(c.retry_index);
            assert!(*d <= ceiling && ceiling <= p.backoff.cap_ms, "delay above its ceiling");
        }
        Err(e) => assert!(
            (e.code == "invalid_retry_index") == (p.backoff.validate().is_ok() && c.retry_index > 99),
            "delay refusal {e:?}"
        ),
    }

    if let Ok(Some(ms)) = a.retry_after {
        assert!(ms <= core_::retry_after::MAX_RETRY_AFTER_MS);
    }
    let trimmed = c.header.trim_matches(|ch| ch == ' ' || ch == '\t');
    if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit()) {
        let want = trimmed
            .bytes()
            .try_fold(0u64, |n, d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')))
            .and_then(|s| s.checked_mul(1000))
            .map_or(core_::retry_after::MAX_RETRY_AFTER_MS, |ms| ms.min(core_::retry_after::MAX_RETRY_AFTER_MS));
        assert_eq!(a.retry_after, Ok(Some(want)), "digits");
    }

    if let Ok(k) = &a.store_key {
        let hex: String = c.state.endpoint_id.bytes().map(|b| format!("{b:02x}")).collect();
        assert_eq!(k, &format!("rb:{{e{hex}}}:{}", p.budget.window_ms));
    }

    if let Ok((res, held)) = &a.store_apply {
        assert!(!res.reserved || c.store_op.reserves(), "a record reserved");
        assert!(held.bucket >= c.held.bucket, "the store rolled back");
        if c.store_op.reserves() {
            assert_eq!(res.reserved, p.budget.allows_retry(c.now_ms, &res.counts), "store: verdict != rule");
        }
    }
    a
}
