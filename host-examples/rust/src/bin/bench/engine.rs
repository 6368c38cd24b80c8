//! The delivery engine's rows (docs/engine.md): one delivered event and one
//! failed attempt through the engine, natively and through the component's
//! `engine-feed` (JSON batches), one event per batch and 100 per batch,
//! beside a loopback POST. Crossings per delivered event: one batch for the
//! admission (its `send` comes back in the same answer) and one for the
//! result; per failed attempt: the result, then the tick that sends the retry.

use std::hint::black_box;
use std::time::Instant;

use retry_policy_core::engine::{wire, Config, Engine};
use retry_policy_host::PolicyInstance;

const DOC: &str = r#"{"version":"bench","classes":{"n":{"window_ms":900000,"backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000,"jitter":"full"}}}}"#;

fn config() -> String {
    format!(r#"{{"document":{DOC},"memory_store":true,"max_in_flight":100000,"max_events":1000000}}"#)
}

fn admit(i: u64, now: u64) -> String {
    format!(
        r#"{{"op":"admit","now_ms":{now},"event_id":"e{i}","endpoint_id":"ep","target":"https://x.example/","class":"n"}}"#
    )
}

fn result(i: u64, attempt: u32, status: u16, now: u64) -> String {
    format!(r#"{{"op":"result","now_ms":{now},"event_id":"e{i}","attempt":{attempt},"status":{status}}}"#)
}

/// Batches for `n` events, `per` events a batch: admit, then 200.
fn delivered_batches(n: u64, per: u64, now: u64) -> Vec<String> {
    let mut out = Vec::new();
    for start in (0..n).step_by(per as usize) {
        let ids = start..(start + per).min(n);
        out.push(format!("[{}]", ids.clone().map(|i| admit(i, now)).collect::<Vec<_>>().join(",")));
        out.push(format!("[{}]", ids.map(|i| result(i, 1, 200, now)).collect::<Vec<_>>().join(",")));
    }
    out
}

/// Batches for `n` failed attempts: admit, 503 (a retry after its delay), a tick past it (attempt 2 sent).
fn failed_batches(n: u64, now: u64) -> (Vec<String>, Vec<String>) {
    let setup = (0..n).map(|i| format!("[{}]", admit(i, now))).collect();
    let measured = (0..n)
        .flat_map(|i| {
            [
                format!("[{}]", result(i, 1, 503, now)),
                format!(r#"[{{"op":"tick","now_ms":{}}}]"#, now + 2_000 * (i + 1)),
            ]
        })
        .collect();
    (setup, measured)
}

/// The native engine the rows compare against: the config `config()` gives the component.
fn native_engine() -> Engine {
    Engine::new(Config {
        document: DOC.into(),
        memory_store: true,
        max_in_flight: 100_000,
        max_events: 1_000_000,
        ..Config::default()
    })
    .expect("the bench's document is valid")
}

fn per_event_ns(n: u64, f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_nanos() as f64 / n as f64
}

fn native(batches: &[String]) {
    let mut e = native_engine();
    for b in batches {
        black_box(wire::feed(&mut e, b).unwrap());
    }
}

fn component(inst: &mut PolicyInstance, batches: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let h = inst.engine_open(&config())??;
    for b in batches {
        black_box(inst.engine_feed(h, b)??);
    }
    inst.engine_close(h)?;
    Ok(())
}

/// Prints the rows against `post_ns` (one loopback POST).
pub fn rows(inst: &mut PolicyInstance, events: u64, post_ns: f64) -> Result<(), Box<dyn std::error::Error>> {
    let now = 1_800_000_000_000;
    // The same answers on both paths, or the comparison means nothing.
    let check = delivered_batches(3, 1, now);
    let h = inst.engine_open(&config())??;
    let mut e = native_engine();
    for b in &check {
        assert_eq!(inst.engine_feed(h, b)??, wire::feed(&mut e, b).unwrap());
    }
    inst.engine_close(h)?;

    let one = delivered_batches(events, 1, now);
    let hundred = delivered_batches(events, 100, now);
    let (setup, failed) = failed_batches(events, now);
    let best = |f: &mut dyn FnMut() -> f64| (0..3).map(|_| f()).fold(f64::INFINITY, f64::min);
    let n1 = best(&mut || per_event_ns(events, || native(&one)));
    let n100 = best(&mut || per_event_ns(events, || native(&hundred)));
    let c1 = best(&mut || per_event_ns(events, || component(inst, &one).unwrap()));
    let c100 = best(&mut || per_event_ns(events, || component(inst, &hundred).unwrap()));
    let cf = best(&mut || {
        let h = inst.engine_open(&config()).unwrap().unwrap();
        for b in &setup {
            inst.engine_feed(h, b).unwrap().unwrap();
        }
        let ns = per_event_ns(events, || {
            for b in &failed {
                black_box(inst.engine_feed(h, b).unwrap().unwrap());
            }
        });
        inst.engine_close(h).unwrap();
        ns
    });
    println!();
    println!("the delivery engine (docs/engine.md), {events} events, memory store, best of 3, one run");
    println!("{:<62} {:>10} {:>10} {:>10} {:>9}", "path", "ns/event", "crossings", "vs native", "vs POST");
    let row = |name: &str, ns: f64, crossings: f64, native: f64| {
        println!("{name:<62} {ns:>10.0} {crossings:>10.2} {:>9.1}x {:>8.2}%", ns / native, 100.0 * ns / post_ns);
    };
    row("native engine: admit + 200, one event a batch", n1, 0.0, n1);
    row("native engine: admit + 200, 100 events a batch", n100, 0.0, n100);
    row("component engine-feed: admit + 200, one event a batch", c1, 2.0, n1);
    row("component engine-feed: admit + 200, 100 events a batch", c100, 0.02, n100);
    row("component engine-feed: one failed attempt (503, then the retry)", cf, 2.0, n1);
    Ok(())
}
