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

fn req(op: StoreOp, bucket: u64, window_ms: u64) -> StoreRequest {
    StoreRequest { op, endpoint_id: "ep".into(), window_ms, bucket }
}

#[test]
fn the_in_memory_store_keeps_the_two_newest_buckets() {
    let b = Budget { ratio: 1.0, window_ms: 1000, min_sample: 0, sliding: true };
    let mut s = InMemoryStore::new();
    s.call(&req(StoreOp::Record, 5, 1000), &b, 5_000).unwrap();
    s.call(&req(StoreOp::Reserve, 5, 1000), &b, 5_000).unwrap();
    let r = s.call(&req(StoreOp::Record, 6, 1000), &b, 6_000).unwrap();
    assert_eq!((r.counts.current.total, r.counts.previous.total, r.counts.previous.retries), (1, 2, 1));
    // A gap of more than one bucket forgets the old counts.
    let r = s.call(&req(StoreOp::Record, 9, 1000), &b, 9_000).unwrap();
    assert_eq!((r.counts.current.total, r.counts.previous.total), (1, 0));
    assert_eq!(s.held("other", 1000), HeldBuckets::default());
}

#[test]
fn budget_windows_of_different_widths_count_separately_on_one_endpoint() {
    let b = Budget { ratio: 1.0, window_ms: 60_000, min_sample: 0, sliding: true };
    let mut s = InMemoryStore::new();
    s.call(&req(StoreOp::RecordReserve, 5, 60_000), &b, 300_000).unwrap();
    assert_eq!(s.held("ep", 1_000), HeldBuckets::default());
    assert_eq!(s.held("ep", 60_000).current, BucketCounts { total: 2, retries: 1 });
}

#[test]
fn a_reserve_refused_by_the_rule_counts_nothing() {
    let b = Budget { ratio: 0.1, window_ms: 1000, min_sample: 0, sliding: false };
    let mut s = InMemoryStore::new();
    let r = s.call(&req(StoreOp::Reserve, 1, 1000), &b, 1_000).unwrap();
    assert!(!r.reserved, "one retry out of one attempt exceeds 10%");
    assert_eq!(s.held("ep", 1000).current, BucketCounts::default());
}

#[test]
fn store_keys_are_injective_and_keep_one_brace_free_hash_tag() {
    let key = |id: &str| {
        store_key(&StoreRequest { op: StoreOp::Record, endpoint_id: id.into(), window_ms: 60_000, bucket: 0 })
    };
    assert_eq!(key("ep"), "rb:{e6570}:60000");
    assert_eq!(key(""), "rb:{e}:60000");
    let ids = ["{", "}", "", "a}b{", "é", "e", "0"];
    let keys: std::collections::BTreeSet<String> = ids.iter().map(|i| key(i)).collect();
    assert_eq!(keys.len(), ids.len());
    for k in &keys {
        let tag = &k[k.find('{').unwrap() + 1..k.find('}').unwrap()];
        assert!(!tag.is_empty() && !tag.contains('{'));
    }
}

#[test]
fn an_invalid_budget_window_never_panics() {
    let b = Budget { ratio: 0.1, window_ms: 0, min_sample: 0, sliding: true };
    assert_eq!(b.bucket(12_345), 0);
    let _ = b.allows_retry(12_345, &counts(10, 1));
}
