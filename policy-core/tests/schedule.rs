mod common;
use common::*;
use retry_policy_core::backoff::{fnv1a64, splitmix64};
use retry_policy_core::*;

#[test]
fn the_notification_window_yields_13_attempts_with_the_last_expected_at_855_s() {
    let p = plan(&note_backoff(), 900_000, 16).unwrap();
    assert_eq!(p.max_attempts, 13);
    assert_eq!(p.expected_span_ms, 855_000);
    assert_eq!(*p.offsets_ms.last().unwrap(), 855_000);
    assert_eq!(p.limited_by, LimitedBy::Window);
}

#[test]
fn a_24_hour_window_with_hard_cap_16_is_flagged_as_cut_by_the_cap() {
    let p = plan(&note_backoff(), 86_400_000, 16).unwrap();
    assert_eq!(p.max_attempts, 16);
    assert_eq!(p.limited_by, LimitedBy::HardCap);
    assert!(p.expected_span_ms < 86_400_000 / 10, "the cap cut the day to minutes");
}

#[test]
fn ceilings_stop_at_the_cap_and_never_overflow() {
    let b = Backoff { base_ms: 1, factor: 1e300, cap_ms: 86_400_000, jitter: Jitter::None };
    assert_eq!(b.ceiling_ms(0), 1);
    assert_eq!(b.ceiling_ms(1), 86_400_000);
    assert_eq!(b.ceiling_ms(u32::MAX), 86_400_000);
}

#[test]
fn a_factor_of_one_keeps_every_ceiling_at_base() {
    let b = Backoff { base_ms: 1500, factor: 1.0, cap_ms: 10_000, jitter: Jitter::None };
    assert_eq!(b.ceiling_ms(u32::MAX), 1500);
}

#[test]
fn expected_delays_follow_the_jitter_mode() {
    let mut b = note_backoff();
    b.jitter = Jitter::None;
    assert_eq!(b.expected_ms(2), 8000);
    b.jitter = Jitter::Full;
    assert_eq!(b.expected_ms(2), 4000);
    b.jitter = Jitter::Equal;
    assert_eq!(b.expected_ms(2), 6000);
}

#[test]
fn the_jittered_delay_is_the_same_on_every_call_and_recomputable_by_hand() {
    let b = note_backoff();
    let by_hand = splitmix64(fnv1a64(b"evt_1") ^ 2) % (8000 + 1);
    assert_eq!(b.delay_ms("evt_1", 2), by_hand);
    assert_eq!(b.delay_ms("evt_1", 2), 6651, "the contract's vector for this event");
}

#[test]
fn invalid_backoffs_are_refused_with_the_field_named() {
    let mut b = note_backoff();
    b.factor = f64::NAN;
    let e = plan(&b, 900_000, 16).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidBackoff, "backoff.factor"));
    let mut b = note_backoff();
    b.base_ms = 400_000;
    assert_eq!(plan(&b, 900_000, 16).unwrap_err().field, "backoff.base_ms");
}

#[test]
fn hard_cap_is_checked_before_the_window() {
    let e = plan(&note_backoff(), u64::MAX, 0).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidHardCap);
    let e = plan(&note_backoff(), u64::MAX, 16).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidWindow);
}

#[test]
fn statuses_are_classified_from_the_tables() {
    for s in [200, 204, 299] {
        assert_eq!(classify_status(s).unwrap(), OutcomeClass::Success);
    }
    for s in [408, 425, 429, 500, 503, 504, 599] {
        assert_eq!(classify_status(s).unwrap(), OutcomeClass::Retryable);
    }
    for s in [100, 301, 400, 401, 404, 410, 422, 499] {
        assert_eq!(classify_status(s).unwrap(), OutcomeClass::Terminal);
    }
    assert_eq!(classify_status(99).unwrap_err().code, ErrorCode::InvalidStatus);
    assert_eq!(classify_status(600).unwrap_err().code, ErrorCode::InvalidStatus);
}

#[test]
fn unknown_transport_errors_are_never_retried_blind() {
    assert_eq!(classify_error("connect_timeout"), OutcomeClass::Retryable);
    assert_eq!(classify_error("Connect_Timeout"), OutcomeClass::Terminal);
    assert_eq!(classify_error("tls_handshake_failed"), OutcomeClass::Terminal);
}
