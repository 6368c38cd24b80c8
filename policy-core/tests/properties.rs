use proptest::prelude::*;
use retry_policy_core::*;

fn backoff() -> impl Strategy<Value = Backoff> {
    (1u64..=100_000, 1.0f64..4.0, 0u64..=1_000_000, 0u8..3).prop_map(|(base, factor, extra, j)| Backoff {
        base_ms: base,
        factor,
        cap_ms: (base + extra).min(86_400_000),
        jitter: [Jitter::None, Jitter::Full, Jitter::Equal][j as usize],
    })
}

proptest! {
    #[test]
    fn plan_offsets_strictly_increase_and_stay_within_the_window(b in backoff(), window in 0u64..=86_400_000, cap in 1u32..=100) {
        let p = plan(&b, window, cap).unwrap();
        prop_assert_eq!(p.offsets_ms.len() as u32, p.max_attempts);
        prop_assert!(p.offsets_ms.windows(2).all(|w| w[0] < w[1]) || b.jitter == Jitter::Full,
            "strict unless a full-jitter expectation is 0 ms");
        prop_assert!(p.offsets_ms.windows(2).all(|w| w[0] <= w[1]));
        prop_assert!(p.expected_span_ms <= window);
        if p.limited_by == LimitedBy::Window && p.max_attempts < cap {
            prop_assert!(p.expected_span_ms + b.expected_ms(p.max_attempts - 1) > window);
        }
        prop_assert!(p.worst_case_span_ms >= p.expected_span_ms);
    }

    #[test]
    fn the_jittered_delay_stays_in_its_range(b in backoff(), id in ".{0,40}", i in 0u32..200) {
        let c = b.ceiling_ms(i);
        let lo = match b.jitter { Jitter::None => c, Jitter::Full => 0, Jitter::Equal => c / 2 };
        let d = b.delay_ms(&id, i);
        prop_assert!(lo <= d && d <= c);
    }

    #[test]
    fn decide_never_panics_on_any_input(
        base in any::<u64>(), factor in any::<f64>(), cap in any::<u64>(), j in 0u8..3,
        window in any::<u64>(), hard_cap in any::<u32>(),
        ratio in any::<f64>(), bw in any::<u64>(), min_sample in any::<u64>(), sliding in any::<bool>(),
        attempt in any::<u32>(), max_attempts in any::<u32>(), first in any::<u64>(), refreshed in any::<bool>(),
        status in any::<u16>(), retry_after in proptest::option::of(any::<u64>()), kind in ".{0,20}", use_status in any::<bool>(),
        now in any::<u64>(), counts in proptest::option::of(any::<[u64; 4]>()),
    ) {
        let policy = Policy {
            backoff: Backoff { base_ms: base, factor, cap_ms: cap, jitter: [Jitter::None, Jitter::Full, Jitter::Equal][j as usize] },
            window_ms: window, hard_cap, budget: Budget { ratio, window_ms: bw, min_sample, sliding },
        };
        let state = DeliveryState { event_id: "e".into(), endpoint_id: "p".into(), attempt, max_attempts,
            first_attempted_at_ms: first, credentials_refreshed: refreshed };
        let outcome = if use_status { AttemptOutcome::Response { status, retry_after_ms: retry_after } }
            else { AttemptOutcome::TransportError { kind } };
        let counts = counts.map(|k| BudgetCounts { current: BucketCounts { total: k[0], retries: k[1] },
            previous: BucketCounts { total: k[2], retries: k[3] } });
        let _ = decide_with(&policy, &state, &outcome, now, counts.as_ref());
    }
}
