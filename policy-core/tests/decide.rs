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
    assert_eq!(stop_reason(&decide_now(&refreshed, &status(401), Some(&healthy_counts()))), Some(StopReason::TerminalResponse));
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
    let d = decide_now(&s, &AttemptOutcome::Response { status: 503, retry_after_ms: Some(5_000) }, Some(&healthy_counts()));
    assert_eq!(stop_reason(&d), Some(StopReason::RetryWindowElapsed));
}

#[test]
fn retry_after_lengthens_the_delay_but_never_shortens_it() {
    let d = decide_now(&state(1), &AttemptOutcome::Response { status: 429, retry_after_ms: Some(30_000) }, Some(&healthy_counts()));
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
fn decide_reads_the_counter_only_when_a_retry_is_wanted_and_reserves_it() {
    struct Counting(InMemoryCounter, u32);
    impl BudgetCounter for Counting {
        type Error = ();
        fn read(&mut self, e: &str, w: u64, b: u64) -> Result<BudgetCounts, ()> {
            self.1 += 1;
            Ok(self.0.read(e, w, b).unwrap())
        }
        fn record(&mut self, e: &str, w: u64, b: u64, r: bool) -> Result<(), ()> {
            self.0.record(e, w, b, r).map_err(|_| ())
        }
    }
    let clock = FakeClock::new(NOW);
    let mut counter = Counting(InMemoryCounter::new(), 0);
    decide(&note_policy(), &state(1), &status(404), &clock, &mut counter).unwrap();
    assert_eq!(counter.1, 0, "a terminal outcome never touches the store");
    let d = decide(&note_policy(), &state(1), &status(503), &clock, &mut counter).unwrap();
    assert!(matches!(d, Decision::Retry(_)));
    assert_eq!(counter.1, 1);
    let bucket = NOW / 60_000;
    assert_eq!(counter.0.read("ep_42", 60_000, bucket).unwrap().current, BucketCounts { total: 1, retries: 1 });
}

#[test]
fn a_failing_counter_becomes_budget_unavailable() {
    struct Down;
    impl BudgetCounter for Down {
        type Error = &'static str;
        fn read(&mut self, _: &str, _: u64, _: u64) -> Result<BudgetCounts, &'static str> {
            Err("connection refused")
        }
        fn record(&mut self, _: &str, _: u64, _: u64, _: bool) -> Result<(), &'static str> {
            Err("connection refused")
        }
    }
    let d = decide(&note_policy(), &state(1), &status(503), &FakeClock::new(NOW), &mut Down).unwrap();
    assert_eq!(stop_reason(&d), Some(StopReason::BudgetUnavailable));
}
