//! Bounded work: adversarial inputs finish fast whatever their values
//! (contract format 2, "Bounded work"). Each case is timed natively as the
//! best of three runs; the bound is the issue's 1 ms in optimised builds
//! (`cargo test --release`, as scripts/test runs it) and 50 ms in debug;
//! cases that read a whole mebibyte get a few of those (a shared 2-core CI
//! machine is noisy). A quadratic regression would take seconds: these
//! catch it. The figures themselves are in the closing notes / benchmarks.

use std::time::{Duration, Instant};

use retry_policy_core::document::{PolicyDocument, MAX_DOCUMENT_BYTES};
use retry_policy_core::*;

const LIMIT: Duration = if cfg!(debug_assertions) { Duration::from_millis(50) } else { Duration::from_millis(1) };

fn best_of_three<T>(f: impl Fn() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        last = Some(f());
        best = best.min(t.elapsed());
    }
    (best, last.unwrap())
}

fn epsilon_policy() -> Policy {
    Policy {
        backoff: Backoff { base_ms: 1, factor: 1.0 + f64::EPSILON, cap_ms: 86_400_000, jitter: Jitter::Full },
        window_ms: 2_592_000_000,
        hard_cap: 100,
        budget: Budget::default(),
    }
}

fn state(attempt: u32, max_attempts: u32) -> DeliveryState {
    DeliveryState {
        event_id: "evt".into(),
        endpoint_id: "ep".into(),
        attempt,
        max_attempts,
        first_attempted_at_ms: 0,
        credentials_refreshed: false,
    }
}

#[test]
fn a_factor_one_ulp_above_one_with_huge_indices_is_refused_or_fast() {
    let p = epsilon_policy();
    let (t, r) = best_of_three(|| delay(&p.backoff, "evt", u32::MAX));
    assert_eq!(r.unwrap_err().code, ErrorCode::InvalidRetryIndex);
    assert!(t <= LIMIT, "delay took {t:?}");
    let (t, r) = best_of_three(|| delay(&p.backoff, "evt", 99));
    assert!(r.is_ok() && t <= LIMIT, "delay(99) took {t:?}");
    let (t, _) = best_of_three(|| plan(&p.backoff, p.window_ms, 100));
    assert!(t <= LIMIT, "plan took {t:?}");
}

#[test]
fn attempts_near_u32_max_are_refused_or_decided_fast() {
    let p = epsilon_policy();
    let o = AttemptOutcome::Response { status: 503, retry_after_ms: None };
    for (attempt, max) in [(u32::MAX - 1, u32::MAX), (99, 100), (u32::MAX, 100), (1, u32::MAX)] {
        let (t, _) = best_of_three(|| evaluate(&p, &state(attempt, max), &o, 1));
        assert!(t <= LIMIT, "evaluate({attempt}, {max}) took {t:?}");
        let (t, _) = best_of_three(|| resume(&p, &state(attempt, max), 1));
        assert!(t <= LIMIT, "resume({attempt}, {max}) took {t:?}");
    }
    let e = evaluate(&p, &state(1, u32::MAX), &o, 1).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidState, "max_attempts"));
}

#[test]
fn a_one_mebibyte_document_parses_fast_and_a_larger_one_is_refused_before_parsing() {
    let filler = " ".repeat(MAX_DOCUMENT_BYTES - 200);
    let doc = format!(
        r#"{{"version":"v","classes":{{"n":{{"window_ms":900000,"backoff":{{"base_ms":2000,"factor":2.0,"cap_ms":300000}}}}}}{filler}}}"#
    );
    assert!(doc.len() <= MAX_DOCUMENT_BYTES);
    let (t, r) = best_of_three(|| PolicyDocument::from_json(&doc));
    eprintln!("document of {} bytes: {t:?}", doc.len());
    assert!(r.is_ok(), "{r:?}");
    assert!(t <= LIMIT * 3, "a 1 MiB document took {t:?}");
    let big = format!("{doc}{}", " ".repeat(10));
    let big = &big[..];
    let big = if big.len() > MAX_DOCUMENT_BYTES {
        big.to_string()
    } else {
        format!("{big}{}", " ".repeat(MAX_DOCUMENT_BYTES))
    };
    let (t, r) = best_of_three(|| PolicyDocument::from_json(&big));
    assert_eq!(r.unwrap_err().code, ErrorCode::DocumentTooLarge);
    assert!(t <= LIMIT, "refusing took {t:?}");
}

#[test]
fn a_hundred_thousand_keys_and_a_mebibyte_number_are_linear() {
    let keys: String = (0..100_000).map(|i| format!("\"{i}\":0,")).collect();
    let doc = format!("{{{keys}\"classes\":{{}}}}");
    assert!(doc.len() <= MAX_DOCUMENT_BYTES);
    let (t, r) = best_of_three(|| PolicyDocument::from_json(&doc));
    eprintln!("document of {} bytes: {t:?}", doc.len());
    assert!(r.is_err());
    // 100k keys are 100k string allocations (~15-40 ms here, linear); a
    // quadratic duplicate check would take tens of seconds.
    assert!(t <= LIMIT * 200, "100k keys took {t:?}");
    let number = format!("1.{}", "0".repeat(MAX_DOCUMENT_BYTES - 100));
    let doc = format!(
        r#"{{"classes":{{"n":{{"window_ms":900000,"backoff":{{"base_ms":2000,"factor":{number},"cap_ms":300000}}}}}}}}"#
    );
    let (t, r) = best_of_three(|| PolicyDocument::from_json(&doc));
    eprintln!("document of {} bytes: {t:?}", doc.len());
    let d = r.unwrap();
    assert_eq!(d.classes[0].1.backoff.factor, 1.0);
    assert!(t <= LIMIT * 3, "a 1 MiB number took {t:?}");
}

#[test]
fn long_retry_after_headers_are_linear() {
    let digits = "9".repeat(1 << 20);
    let (t, r) = best_of_three(|| parse_retry_after(&digits, 0));
    assert_eq!(r, Some((1 << 53) - 1));
    assert!(t <= LIMIT * 3, "took {t:?}");
}
