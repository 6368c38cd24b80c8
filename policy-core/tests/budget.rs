mod common;
use retry_policy_core::*;

fn counts(total: u64, retries: u64) -> BudgetCounts {
    BudgetCounts { current: BucketCounts { total, retries }, previous: BucketCounts::default() }
}

#[test]
fn after_100_attempts_and_10_retries_the_11th_retry_is_refused() {
    let b = Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: false };
    assert!(b.allows_retry(0, &counts(100, 9)));
    assert!(!b.allows_retry(0, &counts(111, 11)), "the design note's own test");
    assert!(!b.allows_retry(0, &counts(100, 10)));
}

#[test]
fn quiet_endpoints_are_never_throttled() {
    let b = Budget::default();
    assert!(b.allows_retry(0, &counts(2, 1)));
    assert!(b.allows_retry(0, &counts(49, 49)));
}

#[test]
fn the_sliding_estimate_carries_the_previous_bucket_across_a_rollover() {
    let b = Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: true };
    let storm = BudgetCounts { current: BucketCounts::default(), previous: BucketCounts { total: 1000, retries: 100 } };
    // 1 ms into the new bucket almost all of the previous one still counts.
    assert!(!b.allows_retry(60_001, &storm));
    let fixed = Budget { sliding: false, ..b };
    assert!(fixed.allows_retry(60_001, &storm), "fixed windows reset at the rollover (the sawtooth)");
}

#[test]
fn budgets_outside_their_range_are_refused() {
    for (ratio, window_ms) in [(0.0, 1), (1.5, 1), (f64::NAN, 1), (0.1, 0)] {
        let b = Budget { ratio, window_ms, min_sample: 0, sliding: true };
        assert_eq!(budget_allows(&b, 0, &counts(0, 0)).unwrap_err().code, ErrorCode::InvalidBudget);
    }
}

#[test]
fn the_in_memory_counter_keeps_the_two_newest_buckets() {
    let mut c = InMemoryCounter::new();
    c.record("ep", 1000, 5, false).unwrap();
    c.record("ep", 1000, 5, true).unwrap();
    c.record("ep", 1000, 6, false).unwrap();
    let k = c.read("ep", 1000, 6).unwrap();
    assert_eq!((k.current.total, k.previous.total, k.previous.retries), (1, 2, 1));
    // A gap of more than one bucket forgets the old counts.
    c.record("ep", 1000, 9, false).unwrap();
    let k = c.read("ep", 1000, 9).unwrap();
    assert_eq!((k.current.total, k.previous.total), (1, 0));
    assert_eq!(c.read("other", 1000, 9).unwrap(), BudgetCounts::default());
}

#[test]
fn budget_windows_of_different_widths_count_separately_on_one_endpoint() {
    let mut c = InMemoryCounter::new();
    c.record("ep", 60_000, 5, true).unwrap();
    assert_eq!(c.read("ep", 1_000, 5).unwrap(), BudgetCounts::default());
    assert_eq!(c.read("ep", 60_000, 5).unwrap().current, BucketCounts { total: 1, retries: 1 });
}
