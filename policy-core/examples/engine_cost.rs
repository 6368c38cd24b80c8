//! What the delivery engine costs per delivered event, natively, as the
//! component runs it (JSON batches through `engine::wire`), side by side:
//!
//!   cargo run --release -p retry-policy-core --example engine_cost [EVENTS]
//!
//! The fastest of five runs per row. Rows: the journal on (the default) and off; format 2 and format 3; one
//! event per batch and 64 per batch. The first row is the ratio's base.
use std::time::Instant;

use retry_policy_core::engine::{wire, Engine};

const F2: &str = r#"{"version":"cost","classes":{"c":{"window_ms":600000,"hard_cap":8,
 "backoff":{"base_ms":1000,"factor":2.0,"cap_ms":60000,"jitter":"full"},
 "budget":{"ratio":0.1,"window_ms":10000,"min_sample":20,"sliding":true}}}}"#;
const F3: &str = r#"{"version":"cost","classes":{"c":{"window_ms":600000,"hard_cap":8,
 "backoff":{"base_ms":1000,"factor":2.0,"cap_ms":60000,"jitter":"full"},
 "budget":{"ratio":0.1,"window_ms":10000,"min_sample":20,"sliding":true},
 "health":{"hold_budget_refusals":true,"pause":{"max_ms":60000},
  "circuit":{"failure_ratio":0.5,"min_sample":20,"cooldown_ms":5000,"cooldown_max_ms":60000,"probes":1,"probe_interval_ms":1000}}}}}"#;

fn run(doc: &str, journal: bool, batch: usize, events: usize) -> f64 {
    let config = format!(r#"{{"document":{doc},"memory_store":true,"journal":{journal},"max_in_flight":256}}"#);
    let mut e = Engine::new(wire::config(&retry_policy_core::json::parse(&config).unwrap()).unwrap()).unwrap();
    let t0 = Instant::now();
    let mut now = 1_000_000u64;
    let mut i = 0;
    while i < events {
        let n = batch.min(events - i);
        let admits: Vec<String> = (i..i + n)
            .map(|k| format!(r#"{{"op":"admit","now_ms":{now},"event_id":"e{k}","endpoint_id":"ep{}","target":"https://example.com/hook","class":"c"}}"#, k % 16))
            .collect();
        let out = wire::feed(&mut e, &format!("[{}]", admits.join(","))).unwrap();
        assert!(out.contains("\"send\""), "{out}");
        now += 1;
        let results: Vec<String> = (i..i + n)
            .map(|k| format!(r#"{{"op":"result","now_ms":{now},"event_id":"e{k}","attempt":1,"status":200}}"#))
            .collect();
        let out = wire::feed(&mut e, &format!("[{}]", results.join(","))).unwrap();
        assert!(out.contains("\"delivered\""), "{out}");
        i += n;
    }
    t0.elapsed().as_secs_f64() * 1e6 / events as f64
}

fn main() {
    let events: usize = std::env::args().nth(1).map_or(20_000, |s| s.parse().expect("EVENTS: a number"));
    let rows = [
        ("format 2, journal, 1 per batch", F2, true, 1),
        ("format 2, no journal, 1 per batch", F2, false, 1),
        ("format 2, journal, 64 per batch", F2, true, 64),
        ("format 3, journal, 1 per batch", F3, true, 1),
        ("format 3, journal, 64 per batch", F3, true, 64),
    ];
    println!("{:<36} {:>12} {:>7}", "engine per delivered event", "us/event", "ratio");
    let mut base = 0.0;
    for (name, doc, journal, batch) in rows {
        // The fastest of five runs: the machine's other load only adds time.
        let us = (0..5).map(|_| run(doc, journal, batch, events)).fold(f64::INFINITY, f64::min);
        if base == 0.0 {
            base = us;
        }
        println!("{name:<36} {us:>12.2} {:>7.2}", us / base);
    }
}
