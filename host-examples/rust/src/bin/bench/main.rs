//! `bench`: ns per `decide` natively and through the component in wasmtime,
//! measured in one run, with their ratio and the component's size.
//!
//!   cargo run --release -p retry-policy-host --bin bench [-- --iters N]

use std::hint::black_box;
use std::time::Instant;

use retry_policy_core::*;
use retry_policy_host::{default_component_path, PolicyEngine};

fn inputs() -> Vec<(DeliveryState, AttemptOutcome, BudgetCounts)> {
    let outcomes = [
        AttemptOutcome::Response { status: 503, retry_after_ms: None },
        AttemptOutcome::Response { status: 429, retry_after_ms: Some(2_000) },
        AttemptOutcome::Response { status: 410, retry_after_ms: None },
        AttemptOutcome::TransportError { kind: "connect_timeout".into() },
    ];
    (0..64u32)
        .map(|i| {
            let state = DeliveryState {
                event_id: format!("evt_{i:05}"),
                endpoint_id: format!("ep_{}", i % 7),
                attempt: 1 + i % 12,
                max_attempts: 13,
                first_attempted_at_ms: 1_700_000_000_000,
                credentials_refreshed: false,
            };
            let counts = BudgetCounts {
                current: BucketCounts { total: 1000 + u64::from(i), retries: u64::from(i % 120) },
                previous: BucketCounts { total: 900, retries: 40 },
            };
            (state, outcomes[i as usize % 4].clone(), counts)
        })
        .collect()
}

fn time_ns(iters: u32, mut f: impl FnMut(u32)) -> f64 {
    for i in 0..iters / 10 {
        f(i); // warm up
    }
    let t = Instant::now();
    for i in 0..iters {
        f(i);
    }
    t.elapsed().as_nanos() as f64 / f64::from(iters)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let iters: u32 = std::env::args().skip_while(|a| a != "--iters").nth(1).map_or(Ok(200_000), |n| n.parse())?;
    let policy = Policy {
        backoff: Backoff { base_ms: 2_000, factor: 2.0, cap_ms: 300_000, jitter: Jitter::Full },
        window_ms: 900_000,
        hard_cap: 16,
        budget: Budget::default(),
    };
    let cases = inputs();
    let now = 1_700_000_060_000;

    let native = time_ns(iters, |i| {
        let (s, o, c) = &cases[i as usize % cases.len()];
        black_box(decide_with(black_box(&policy), s, o, now, Some(c)).ok());
    });

    let compile_start = Instant::now();
    let engine = PolicyEngine::from_file(default_component_path())?;
    let compile_ms = compile_start.elapsed().as_secs_f64() * 1e3;
    let inst_start = Instant::now();
    let mut inst = engine.instantiate(FakeClock::new(now), InMemoryStore::new())?;
    let instantiate_us = inst_start.elapsed().as_secs_f64() * 1e6;
    // Same answers, or the comparison means nothing.
    for (s, o, c) in &cases {
        assert_eq!(inst.decide_with(&policy, s, o, now, Some(c))?, decide_with(&policy, s, o, now, Some(c))?);
    }
    let component = time_ns(iters, |i| {
        let (s, o, c) = &cases[i as usize % cases.len()];
        black_box(inst.decide_with(black_box(&policy), s, o, now, Some(c)).ok());
    });
    let with_imports = time_ns(iters, |i| {
        let (s, o, _) = &cases[i as usize % cases.len()];
        black_box(inst.decide(black_box(&policy), s, o).ok());
    });

    println!("decide, {iters} iterations over {} inputs (release build)", cases.len());
    println!("{:<44} {:>12} {:>10}", "path", "ns/decide", "vs native");
    println!("{:<44} {:>12.0} {:>9.1}x", "native policy-core decide_with", native, 1.0);
    println!("{:<44} {:>12.0} {:>9.1}x", "component decide-with (wasmtime)", component, component / native);
    println!("{:<44} {:>12.0} {:>9.1}x", "component decide (imports: clock, counter)", with_imports, with_imports / native);
    println!();
    println!("component size: {} bytes ({:.1} KiB); compile {compile_ms:.1} ms; instantiate {instantiate_us:.0} us",
        engine.size_bytes(), engine.size_bytes() as f64 / 1024.0);
    println!("goal: component <= 10x native -> {}", if component / native <= 10.0 { "met" } else { "missed" });
    Ok(())
}
