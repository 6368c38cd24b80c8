mod common;
use common::*;
use retry_policy_core::*;

const NOW: u64 = 1_700_000_000_100;

fn decide_now(state: &DeliveryState, outcome: &AttemptOutcome, counts: Option<&BudgetCounts>) -> Decision {
    decide_with(&note_policy(), state, outcome, NOW, counts).unwrap()
}

#[test]
fn a_2xx_is_delivered_without_a_dead_letter() {
    let d = decide_now(&state(1), &status(204), None);
    assert_eq!(d, Decision::Stop(Stop { reason: StopReason::Delivered, disable_endpoint: false, dead_letter: None }));
}

#[test]
fn a_410_is_terminal_and_disables_the_endpoint() {
    let Decision::Stop(s) = decide_now(&state(1), &status(410), Some(&healthy_counts())) else { panic!() };
    assert_eq!(s.reason, StopReason::TerminalResponse);
    assert!(s.disable_endpoint);
    let dl = s.dead_letter.unwrap();
    assert_eq!((dl.attempts, dl.elapsed_ms, dl.stop_reason), (1, 100, StopReason::TerminalResponse));
}

#[test]
fn a_401_is_retried_once_with_refreshed_credentials_then_terminal() {
    let Decision::Retry(r) = decide_now(&state(1), &status(401), Some(&healthy_counts())) else { panic!() };
    assert!(r.refresh_credentials);
    let mut refreshed = state(2);
    refreshed.credentials_refreshed = true;
    assert_eq!(
        stop_reason(&decide_now(&refreshed, &status(401), Some(&healthy_counts()))),
        Some(StopReason::TerminalResponse)
    );
}

#[test]
fn the_last_admitted_attempt_stops_with_max_attempts_exhausted() {
    let d = decide_now(&state(13), &status(503), Some(&healthy_counts()));
    assert_eq!(stop_reason(&d), Some(StopReason::MaxAttemptsExhausted));
}

#[test]
fn no_retry_is_ever_scheduled_past_the_window() {
    let mut s = state(5);
    s.first_attempted_at_ms = NOW - 899_000;
    let d =
        decide_now(&s, &AttemptOutcome::Response { status: 503, retry_after_ms: Some(5_000) }, Some(&healthy_counts()));
    assert_eq!(stop_reason(&d), Some(StopReason::RetryWindowElapsed));
}

#[test]
fn retry_after_lengthens_the_delay_but_never_shortens_it() {
    let d = decide_now(
        &state(1),
        &AttemptOutcome::Response { status: 429, retry_after_ms: Some(30_000) },
        Some(&healthy_counts()),
    );
    assert_eq!(d, Decision::Retry(Retry { delay_ms: 30_000, refresh_credentials: false }));
}

#[test]
fn an_unreadable_budget_store_fails_closed() {
    let d = decide_now(&state(1), &status(503), None);
    assert_eq!(stop_reason(&d), Some(StopReason::BudgetUnavailable));
}

#[test]
fn an_exhausted_budget_dead_letters_the_retry() {
    let storm = BudgetCounts { current: BucketCounts { total: 1000, retries: 500 }, previous: BucketCounts::default() };
    let d = decide_now(&state(1), &status(503), Some(&storm));
    assert_eq!(stop_reason(&d), Some(StopReason::RetryBudgetExhausted));
}

#[test]
fn a_zero_attempt_state_is_refused_after_the_policy_is_validated() {
    let mut bad_policy = note_policy();
    bad_policy.budget.ratio = 2.0;
    let e = decide_with(&bad_policy, &state(0), &status(503), NOW, None).unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidBudget);
    let e = decide_with(&note_policy(), &state(0), &status(503), NOW, None).unwrap_err();
    assert_eq!((e.code, e.field.as_str()), (ErrorCode::InvalidState, "attempt"));
}

#[test]
fn decide_makes_exactly_one_store_call_per_attempt_and_reserves_the_retry() {
    struct Counting(InMemoryStore, Vec<StoreOp>);
    impl BudgetStore for Counting {
        type Error = ();
        fn call(&mut self, r: &StoreRequest, b: &Budget, now_ms: u64) -> Result<Reservation, ()> {
            self.1.push(r.op);
            self.0.call(r, b, now_ms).map_err(|_| ())
        }
    }
    let clock = FakeClock::new(NOW);
    let mut store = Counting(InMemoryStore::new(), Vec::new());
    decide(&note_policy(), &state(1), &status(404), &clock, &mut store).unwrap();
    assert_eq!(store.1, [StoreOp::Record], "a decided first attempt is only counted");
    let d = decide(&note_policy(), &state(1), &status(503), &clock, &mut store).unwrap();
    assert!(matches!(d, Decision::Retry(_)));
    assert_eq!(store.1, [StoreOp::Record, StoreOp::RecordReserve]);
    decide(&note_policy(), &state(2), &status(204), &clock, &mut store).unwrap();
    assert_eq!(store.1.len(), 2, "a delivered retry was counted when it was reserved");
    let held = store.0.held("ep_42", 60_000);
    assert_eq!(held.current, BucketCounts { total: 3, retries: 1 });
}

#[test]
fn a_failing_store_fails_a_retry_closed_but_never_a_decided_first_attempt() {
    struct Down;
    impl BudgetStore for Down {
        type Error = &'static str;
        fn call(&mut self, _: &StoreRequest, _: &Budget, _: u64) -> Result<Reservation, &'static str> {
            Err("connection refused")
        }
    }
    let d = decide(&note_policy(), &state(1), &status(503), &FakeClock::new(NOW), &mut Down).unwrap();
    assert_eq!(stop_reason(&d), Some(StopReason::BudgetUnavailable));
    let d = decide(&note_policy(), &state(1), &status(200), &FakeClock::new(NOW), &mut Down).unwrap();
    assert_eq!(stop_reason(&d), Some(StopReason::Delivered));
}
