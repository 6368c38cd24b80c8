//! `retry-policy-dispatcher bench`: the dispatcher's throughput to a healthy
//! endpoint alone and while a storm rages on a broken (503) endpoint, and
//! the Redis round trips per attempt. One run, one table, ratios against
//! the healthy-only baseline of the same store.
//!
//!   retry-policy-dispatcher bench [--redis redis://127.0.0.1:PORT/0] [--healthy 4000]
//!                            [--storm-share 10] [--concurrency 8] [--rounds 5]
//!
//! The storm: every `100 / storm-share`-th event goes to the broken endpoint
//! (a 10% share by default). With the budget, most of its retries are
//! refused; the "no budget" row (ratio 1.0) shows what the budget saves.
//! Rows marked "replica" admit as the replica does (at most `--concurrency`
//! events open, waits for a retry included); the others as the demo does
//! (every event at once, waits hold nothing).

use std::sync::Arc;
use std::time::Duration;

use retry_policy_dispatcher::args::Flags;
use retry_policy_dispatcher::artifact_reload::live;
use retry_policy_dispatcher::clock::process_cpu_ns;
use retry_policy_dispatcher::drain::Signals;
use retry_policy_dispatcher::driver::{self, DriverConfig, NewEvent, Run};
use retry_policy_dispatcher::endpoints::Endpoint;
use retry_policy_dispatcher::http_client::ClientConfig;
use retry_policy_dispatcher::redis_store::RedisStore;
use retry_policy_dispatcher::Metrics;
use retry_policy_host::tls::TrustRoots;
use retry_policy_host::PolicyEngine;

fn policy(ratio: f64) -> String {
    format!(
        r#"{{"version":"bench","classes":{{"storm":{{"window_ms":3000,"hard_cap":16,
        "backoff":{{"base_ms":5,"factor":2.0,"cap_ms":50,"jitter":"full"}},
        "budget":{{"ratio":{ratio},"window_ms":1000,"min_sample":50,"sliding":true}}}}}}}}"#
    )
}

struct Row {
    name: String,
    store: &'static str,
    healthy: u64,
    healthy_per_s: f64,
    storm_events: u64,
    attempts: u64,
    retries: u64,
    round_trips: u64,
    unfinished: u64,
    /// Engine crossings per delivered event.
    crossings_per_delivered: f64,
    /// The process's CPU (every thread, the in-process endpoints included), µs per delivered event.
    cpu_per_delivered_us: f64,
    /// The share of that CPU spent inside the engine's crossings (JSON both ways and the component call).
    engine_share: f64,
}

struct Setup<'a> {
    engine: &'a PolicyEngine,
    healthy_url: String,
    broken_url: String,
    concurrency: usize,
}

/// One run: `storm_every` 0 is no storm; `bounded`: the replica's admission.
struct Scenario {
    name: &'static str,
    storm_every: u64,
    ratio: f64,
    bounded: bool,
}

fn scenario(s: &Setup, sc: &Scenario, redis: Option<&str>, healthy: u64, tag: usize) -> Result<Row, String> {
    let (storm_every, ratio) = (sc.storm_every, sc.ratio);
    let redis = match redis {
        Some(url) => Some(Arc::new(
            RedisStore::new(url, Duration::from_millis(250), &TrustRoots::default()).map_err(|e| e.to_string())?,
        )),
        None => None,
    };
    let store_name = if redis.is_some() { "redis" } else { "in-memory" };
    let (hu, bu) = (s.healthy_url.clone(), s.broken_url.clone());
    let total = if storm_every == 0 { healthy } else { healthy + healthy / (storm_every - 1) };
    let source = (0..total).map(move |i| {
        let broken = storm_every != 0 && i % storm_every == storm_every - 1;
        NewEvent {
            event_id: format!("bench{tag}-{i}"),
            endpoint_id: format!("bench{tag}-{}", if broken { "broken" } else { "healthy" }),
            target: if broken { bu.clone() } else { hu.clone() },
            class: "storm".into(),
            at_ms: None,
        }
    });
    // The bench delivers to its own loopback endpoints only.
    let client = ClientConfig { allow_private_targets: true, ..ClientConfig::default() };
    let config = DriverConfig {
        concurrency: s.concurrency,
        cap_in_progress: sc.bounded,
        record_stops: true,
        client,
        ..Default::default()
    };
    let start = retry_policy_dispatcher::clock::now_ms();
    let cpu = process_cpu_ns();
    let t = driver::run(Run {
        artifact: Arc::new(live(s.engine.clone(), false, Vec::new())),
        document: policy(ratio),
        redis,
        journal: None,
        store_bytes: Vec::new(),
        resume_bytes: None,
        metrics: Arc::new(Metrics::default()),
        config,
        source: Box::new(source),
        signals: Signals::none(),
        watch: None,
        watch_policy: None,
        follow: None,
        needed: Vec::new(),
        progress: None,
    })?;
    let cpu = process_cpu_ns().saturating_sub(cpu);
    let healthy_stops: Vec<_> = t.stop_log.iter().filter(|r| r.endpoint_id.ends_with("healthy")).collect();
    let delivered = healthy_stops.iter().filter(|r| r.reason == "delivered").count() as u64;
    let all_delivered = t.stops.get("delivered").copied().unwrap_or(0);
    let last = healthy_stops.iter().map(|r| r.at_ms).max().unwrap_or(start);
    Ok(Row {
        name: format!("{}{}", sc.name, if sc.bounded { " [replica]" } else { "" }),
        store: store_name,
        healthy: delivered,
        healthy_per_s: delivered as f64 * 1000.0 / (last.saturating_sub(start)).max(1) as f64,
        storm_events: t.events()
            - t.admitted_by_endpoint.iter().filter(|(e, _)| e.ends_with("healthy")).map(|(_, n)| n).sum::<u64>(),
        attempts: t.first_attempts + t.retries,
        retries: t.retries,
        round_trips: t.round_trips,
        unfinished: t.pending(),
        crossings_per_delivered: t.crossings as f64 / all_delivered.max(1) as f64,
        cpu_per_delivered_us: cpu as f64 / 1e3 / all_delivered.max(1) as f64,
        engine_share: t.engine_cpu_ns as f64 / cpu.max(1) as f64,
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied().unwrap_or(0.0)
}

pub fn run(f: &Flags) -> Result<(), String> {
    let healthy: u64 = f.get("healthy", "a whole number")?.unwrap_or(4000);
    let rounds: usize = f.get("rounds", "a whole number")?.unwrap_or(5).max(1);
    let share: u64 = f.get("storm-share", "a percentage 1..=50")?.unwrap_or(10);
    if !(1..=50).contains(&share) {
        return Err("--storm-share must be 1..=50".into());
    }
    let storm_every = 100 / share;
    let engine = super::replica::load_artifact(f.str("artifact").or_else(|| f.str("component")))?;
    // Each round runs a document of its own (its ratio): the artifact's line as loaded.
    eprintln!("dispatcher: {}", engine.info().loaded_line());
    let ok = Endpoint::start("127.0.0.1:0", 200, false).map_err(|e| e.to_string())?;
    let bad = Endpoint::start("127.0.0.1:0", 503, false).map_err(|e| e.to_string())?;
    let s = Setup {
        engine: &engine,
        healthy_url: ok.url(),
        broken_url: bad.url(),
        concurrency: f.get("concurrency", "a whole number")?.unwrap_or(8),
    };

    let mut stores: Vec<Option<&str>> = vec![None];
    if let Some(url) = f.str("redis") {
        stores.push(Some(url));
    }
    let sc = |name, storm_every, ratio, bounded| Scenario { name, storm_every, ratio, bounded };
    let scenarios = [
        sc("healthy only", 0, 0.1, false),
        sc("healthy + storm (budget 10%)", storm_every, 0.1, false),
        sc("healthy + storm (no budget: ratio 1.0)", storm_every, 1.0, false),
        // The replica's admission (the storm without a budget would hold
        // the slots for its whole window: not a throughput row).
        sc("healthy only", 0, 0.1, true),
        sc("healthy + storm (budget 10%)", storm_every, 0.1, true),
    ];
    let mut tag = std::process::id() as usize * 1000;
    // Warm-up (connections, instances, caches), not reported.
    scenario(&s, &sc("warm-up", 0, 0.1, true), None, healthy / 4, tag)?;
    // Rounds interleave the scenarios, so a slow moment of the machine hits
    // them alike; each row reports the median round (and the spread).
    let mut runs: Vec<Vec<Row>> = (0..stores.len() * scenarios.len()).map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for (si, store) in stores.iter().enumerate() {
            for (ci, one) in scenarios.iter().enumerate() {
                tag += 1;
                runs[si * scenarios.len() + ci].push(scenario(&s, one, *store, healthy, tag)?);
            }
        }
    }
    println!(
        "dispatcher throughput to a healthy endpoint: {} workers, {healthy} healthy events per run, median of {rounds} interleaved rounds; \
         storm = {share}% of events to a 503 endpoint",
        s.concurrency
    );
    println!(
        "{:<50} {:<9} {:>9} {:>16} {:>12} {:>7} {:>9} {:>8} {:>10} {:>10} {:>13} {:>12} {:>9}",
        "scenario",
        "store",
        "healthy",
        "healthy/s",
        "slowdown(x)",
        "storm",
        "attempts",
        "retries",
        "redis_rt",
        "rt/attempt",
        "crossings/ev",
        "cpu µs/ev",
        "engine %"
    );
    let mut baseline = 0.0;
    for rs in &runs {
        let rates: Vec<f64> = rs.iter().map(|r| r.healthy_per_s).collect();
        let (lo, hi) = rates.iter().fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        let med = median(rates);
        let r = &rs[rs.len() / 2];
        if r.name.starts_with("healthy only") {
            baseline = med;
        }
        let rt = if r.store == "redis" {
            format!("{:.3}", r.round_trips as f64 / r.attempts.max(1) as f64)
        } else {
            "-".into()
        };
        println!(
            "{:<50} {:<9} {:>9} {:>6.0} ({:>3.0}%) {:>12.2} {:>7} {:>9} {:>8} {:>10} {:>10} {:>13.2} {:>12.1} {:>9.2}",
            r.name,
            r.store,
            r.healthy,
            med,
            50.0 * (hi - lo) / med.max(1e-9),
            baseline / med.max(1e-9),
            r.storm_events,
            r.attempts,
            r.retries,
            r.round_trips,
            rt,
            r.crossings_per_delivered,
            r.cpu_per_delivered_us,
            100.0 * r.engine_share
        );
        let unfinished: u64 = rs.iter().map(|r| r.unfinished).sum();
        if unfinished > 0 {
            println!("  WARNING: {unfinished} events did not finish");
        }
    }
    println!(
        "healthy/s = healthy events delivered / time to the last one (median; +-% = half the spread of the rounds)"
    );
    println!("slowdown = healthy/s of the healthy-only row of the same store / healthy/s of this row (goal with the budget: <= 1.2)");
    println!("crossings/ev = engine-feed calls (one batch of inputs each) / events delivered");
    println!("cpu µs/ev = the process's CPU (every thread, the in-process endpoints included) / events delivered (the median round's)");
    println!(
        "engine % = the driver thread's CPU inside the crossings (JSON both ways, the component) / the process's CPU"
    );
    println!(
        "[replica] = admitted as the replica admits: at most --concurrency events open (waits for a retry included)"
    );
    println!("rt/attempt = Redis round trips (the process's first EVAL included) / attempts (goal: <= 1)");
    Ok(())
}
