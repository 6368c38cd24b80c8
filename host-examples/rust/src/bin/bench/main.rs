//! `bench`: one delivery step and one decision through the component in
//! wasmtime, against policy-core natively, a plain port of the design
//! note's path, and one loopback POST — all measured in one run — plus the
//! dispatcher row (one worker delivering to a loopback endpoint as fast as
//! it can: the policy's share of the process's CPU time) and the cold start
//! (compile or load a precompiled artifact, instantiate, decide).
//!
//!   target/release/bench [--iters N] [--deliveries N]     (built by scripts/build-rust)

mod baseline;
mod cpu;
mod dispatch;
mod engine;
mod post;

use std::hint::black_box;
use std::time::Instant;

use retry_policy_core::*;
use retry_policy_host::PolicyEngine;

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

/// The store's answer a step is settled with (a reservation judged on `c`).
fn reply(policy: &Policy, now: u64, c: &BudgetCounts) -> StoreReply {
    StoreReply::Answered(Reservation { reserved: policy.budget.allows_retry(now, c), counts: *c })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let iters: u32 = std::env::args().skip_while(|a| a != "--iters").nth(1).map_or(Ok(200_000), |n| n.parse())?;
    let deliveries: u64 =
        std::env::args().skip_while(|a| a != "--deliveries").nth(1).map_or(Ok(20_000), |n| n.parse())?;
    let policy = Policy {
        backoff: Backoff { base_ms: 2_000, factor: 2.0, cap_ms: 300_000, jitter: Jitter::Full },
        window_ms: 900_000,
        hard_cap: 16,
        budget: Budget::default(),
    };
    let cases = inputs();
    let now = 1_700_000_060_000;

    // Cold start first, before anything is warm: compile from bytes, and
    // load a precompiled artifact (Engine::precompile_component) instead.
    // The compilation cache (on by default) is pointed at a fresh directory
    // here, before any thread starts: the first load compiles and fills
    // it, the second is what a later process gets from the cache.
    let cache_dir = std::env::temp_dir().join(format!("retry-policy-bench-cache-{}", std::process::id()));
    std::env::set_var(retry_policy_host::CACHE_ENV, &cache_dir);
    let t = Instant::now();
    let engine = PolicyEngine::load_default()?; // $RETRY_POLICY_ARTIFACT or the embedded copy; every load check included
    let compile_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let cached_engine = PolicyEngine::load_default()?; // the same checks, the code from the cache
    let mut cached = cached_engine.instantiate(FakeClock::new(now), InMemoryStore::new())?;
    cached.decide(&policy, &cases[0].0, &cases[0].1)?;
    let cached_ms = t.elapsed().as_secs_f64() * 1e3;
    drop((cached, cached_engine));
    let _ = std::fs::remove_dir_all(&cache_dir);
    let t = Instant::now();
    let mut inst = engine.instantiate(FakeClock::new(now), InMemoryStore::new())?;
    let (s0, o0, _) = &cases[0];
    inst.decide(&policy, s0, o0)?;
    let first_decision_us = t.elapsed().as_secs_f64() * 1e6;
    let artifact = std::env::temp_dir().join(format!("retry-policy-bench-{}.cwasm", std::process::id()));
    engine.precompile_to(&artifact)?;
    let t = Instant::now();
    let warm_engine = PolicyEngine::from_precompiled_file(&artifact, engine.info())?;
    let mut warm = warm_engine.instantiate(FakeClock::new(now), InMemoryStore::new())?;
    warm.decide(&policy, s0, o0)?;
    let precompiled_ms = t.elapsed().as_secs_f64() * 1e3;
    let _ = std::fs::remove_file(&artifact);

    // Same answers, or the comparison means nothing.
    for (s, o, c) in &cases {
        assert_eq!(inst.evaluate(&policy, s, o, now)?, evaluate(&policy, s, o, now)?);
        let r = reply(&policy, now, c);
        assert_eq!(inst.settle(&policy, s, o, now, &r)?, settle(&policy, s, o, now, &r)?);
    }

    let note = baseline::NotePolicy {
        base_ms: 2_000.0,
        factor: 2.0,
        cap_ms: 300_000.0,
        window_ms: 900_000,
        max_attempts: 13,
        ratio: 0.1,
        min_sample: 50,
    };
    let mut rng = baseline::Rng(0x9e37_79b9_7f4a_7c15);
    let port = time_ns(iters, |i| {
        let (s, o, c) = &cases[i as usize % cases.len()];
        black_box(baseline::decide(black_box(&note), s, o, now, c, &mut rng).ok());
    });
    let native_decide = time_ns(iters, |i| {
        let (s, o, c) = &cases[i as usize % cases.len()];
        black_box(decide_with(black_box(&policy), s, o, now, Some(c)).ok());
    });
    let native_step = time_ns(iters, |i| {
        let (s, o, c) = &cases[i as usize % cases.len()];
        if let Ok(step) = evaluate(black_box(&policy), s, o, now) {
            if step.decision.is_none() {
                black_box(settle(&policy, s, o, now, &reply(&policy, now, c)).ok());
            }
        }
    });
    let wasm_step = time_ns(iters, |i| {
        let (s, o, c) = &cases[i as usize % cases.len()];
        if let Ok(step) = inst.evaluate(black_box(&policy), s, o, now) {
            if step.decision.is_none() {
                black_box(inst.settle(&policy, s, o, now, &reply(&policy, now, c)).ok());
            }
        }
    });
    let wasm_decide = time_ns(iters, |i| {
        let (s, o, _) = &cases[i as usize % cases.len()];
        black_box(inst.decide(black_box(&policy), s, o).ok());
    });
    let url = post::serve()?;
    let post_ns = post::time_post_ns(&url, (iters / 20).max(200))?;
    let mix_url = dispatch::serve_mix()?;
    dispatch::run(&engine, &mix_url, deliveries / 10 + 1)?; // warm-up: connection, instance, caches
    let d = dispatch::run(&engine, &mix_url, deliveries)?;

    println!("one attempt's policy work, {iters} iterations over {} inputs (release build), one run", cases.len());
    println!("{:<52} {:>10} {:>10} {:>10} {:>10}", "path", "ns", "vs native", "vs port", "vs POST");
    let row = |name: &str, ns: f64, native: f64| {
        println!("{:<52} {:>10.0} {:>9.1}x {:>9.1}x {:>9.2}%", name, ns, ns / native, ns / port, 100.0 * ns / post_ns);
    };
    row("design-note port (plain Rust, random jitter)", port, native_decide);
    row("native policy-core decide_with", native_decide, native_decide);
    row("native policy-core evaluate + settle", native_step, native_step);
    row("component evaluate + settle (wasmtime)", wasm_step, native_step);
    row("component decide (imports: clock, one store call)", wasm_decide, native_decide);
    row("one loopback POST (ureq -> tiny_http, keep-alive)", post_ns, native_decide);
    engine::rows(&mut inst, u64::from(iters / 20).max(1_000), post_ns)?;
    println!();
    dispatch::print(&d, wasm_step);
    println!(
        "cold start: load {compile_ms:.1} ms (compile + the artifact checks: container walk, ABI, self-test) \
         + instantiate and first decision {first_decision_us:.0} us; \
         from the compilation cache (the default; a later process): load + instantiate + first decision \
         {cached_ms:.2} ms; precompiled: load + instantiate + first decision {precompiled_ms:.2} ms"
    );
    println!("artifact: sha256 {} source {}", engine.info().sha256, engine.info().source);
    let size = engine.info().size_bytes;
    println!("component size: {size} bytes ({:.1} KiB)", size as f64 / 1024.0);
    let ratio = wasm_step / native_step;
    println!("goal: component <= 10x native -> {ratio:.1}x {}", if ratio <= 10.0 { "met" } else { "missed" });
    let share = 100.0 * wasm_step / post_ns;
    println!(
        "goal: typed step <= 2% of a loopback POST -> {share:.2}% {}",
        if share <= 2.0 { "met" } else { "missed" }
    );
    println!("{}", dispatch::goal(&d));
    Ok(())
}
