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
        // Strict unless that retry's expected delay is 0 ms: full jitter of
        // a 1 ms ceiling (1/2 -> 0), and equal jitter of one (3/4 -> 0).
        prop_assert!(p.offsets_ms.windows(2).enumerate().all(|(i, w)| w[0] < w[1] || b.expected_ms(i as u32) == 0),
            "strict unless the retry's expected delay is 0 ms");
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

fn near_one_policy(ulps: u64) -> Policy {
    Policy {
        backoff: Backoff {
            base_ms: 1,
            factor: f64::from_bits(1.0f64.to_bits() + ulps),
            cap_ms: 86_400_000,
            jitter: Jitter::Full,
        },
        window_ms: 2_592_000_000,
        hard_cap: 100,
        budget: Budget::default(),
    }
}

proptest! {
    #[test]
    fn adversarial_indices_and_attempts_finish_within_a_millisecond(
        ulps in 1u64..64, i in any::<u32>(), attempt in any::<u32>(), max in any::<u32>(), now in any::<u64>(),
        status in 100u16..600,
    ) {
        let p = near_one_policy(ulps);
        let s = DeliveryState {
            event_id: "evt".into(), endpoint_id: "ep".into(), attempt, max_attempts: max,
            first_attempted_at_ms: 0, credentials_refreshed: false,
        };
        let o = AttemptOutcome::Response { status, retry_after_ms: None };
        let t = std::time::Instant::now();
        let _ = delay(&p.backoff, "evt", i);
        let _ = evaluate(&p, &s, &o, now);
        let _ = settle(&p, &s, &o, now, &StoreReply::Unavailable);
        let _ = resume(&p, &s, now);
        let limit = if cfg!(debug_assertions) { 50 } else { 1 };
        prop_assert!(t.elapsed() <= std::time::Duration::from_millis(limit), "took {:?}", t.elapsed());
    }

    #[test]
    fn settle_never_panics_and_honours_the_stores_verdict(
        attempt in 1u32..=100, max in 1u32..=100, reserved in any::<bool>(),
        ct in any::<u32>(), cr in any::<u32>(), pt in any::<u32>(), pr in any::<u32>(), now in any::<u64>(),
    ) {
        let p = Policy { window_ms: 2_592_000_000, ..near_one_policy(1) };
        let s = DeliveryState {
            event_id: "evt".into(), endpoint_id: "ep".into(), attempt, max_attempts: max,
            first_attempted_at_ms: now.saturating_sub(1), credentials_refreshed: false,
        };
        let o = AttemptOutcome::Response { status: 503, retry_after_ms: None };
        let counts = BudgetCounts {
            current: BucketCounts { total: ct.into(), retries: cr.into() },
            previous: BucketCounts { total: pt.into(), retries: pr.into() },
        };
        let step = evaluate(&p, &s, &o, now).unwrap();
        let out = settle(&p, &s, &o, now, &StoreReply::Answered(Reservation { reserved, counts })).unwrap();
        if step.decision.is_none() {
            prop_assert_eq!(matches!(out.decision, Decision::Retry(_)), reserved);
            prop_assert_eq!(out.budget_disagreement, p.budget.allows_retry(now, &counts) != reserved);
        } else {
            prop_assert_eq!(Some(out.decision), step.decision);
            prop_assert!(!out.budget_disagreement);
        }
    }
}
