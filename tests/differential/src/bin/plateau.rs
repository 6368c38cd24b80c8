//! The plateau test: N mixed calls (default 10^6) through ONE instance of the
//! component in wasmtime, sampling the guest's linear memory size (seen
//! through a `ResourceLimiter`, which wasmtime asks before every growth).
//! Calls cycle through the exports (not the engine's, nor the test-only
//! `vector-case`) with varying sizes: event ids up to
//! 4 KiB, documents of 1-4 classes and, every 1000 calls, up to 400 (~40 KiB), a refused 1 MiB + 1 document every 50k
//! calls, refusals, the imports-driven `decide` against a store that fails
//! every 7th call. The memory must level off: the run fails when the guest
//! grew during the second half of the run.
//!
//!   plateau [--calls N] [--every K]      prints `calls,memory_bytes` samples, then a summary

use std::time::Instant;

use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Config, Engine, ResourceLimiter, Store};

wasmtime::component::bindgen!({
    world: "retry-policy",
    path: "../../wit",
});

use webhook::retry_policy::types as w;

struct State {
    memory: usize,
    growths: u64,
    store_calls: u64,
}

impl ResourceLimiter for State {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        self.memory = self.memory.max(desired);
        self.growths += 1;
        Ok(true)
    }
    fn table_growing(&mut self, _current: usize, _desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(true)
    }
}

impl webhook::retry_policy::clock::Host for State {
    fn now_ms(&mut self) -> u64 {
        1_700_000_000_000 + self.store_calls
    }
}
impl webhook::retry_policy::types::Host for State {}
impl webhook::retry_policy::budget_store::Host for State {
    fn call(&mut self, _r: w::StoreRequest, _b: w::Budget, _now: u64) -> Result<w::Reservation, String> {
        self.store_calls += 1;
        if self.store_calls % 7 == 0 {
            return Err("store down".into());
        }
        let c = w::BucketCounts { total: self.store_calls % 200, retries: self.store_calls % 13 };
        Ok(w::Reservation { reserved: self.store_calls % 3 != 0, counts: w::BudgetCounts { current: c, previous: c } })
    }
}

fn policy(i: u64) -> w::Policy {
    w::Policy {
        backoff: w::Backoff {
            base_ms: 1 + i % 5000,
            factor: 1.0 + (i % 17) as f64 / 8.0,
            cap_ms: 300_000,
            jitter: [w::Jitter::None, w::Jitter::Full, w::Jitter::Equal][(i % 3) as usize],
        },
        window_ms: if i % 101 == 0 { 2_592_000_001 } else { 900_000 + i % 1000 },
        hard_cap: (1 + i % 100) as u32,
        budget: w::Budget { ratio: 0.1, window_ms: 60_000, min_sample: 50, sliding: i % 2 == 0 },
    }
}

fn state(i: u64) -> w::DeliveryState {
    let id_len = if i % 997 == 0 { 4096 } else { (i % 64) as usize };
    w::DeliveryState {
        event_id: "e".repeat(id_len),
        endpoint_id: format!("ep_{}", i % 1000),
        attempt: (i % 101) as u32,
        max_attempts: (1 + i % 100) as u32,
        first_attempted_at_ms: 1_700_000_000_000,
        credentials_refreshed: i % 5 == 0,
    }
}

fn outcome(i: u64) -> w::AttemptOutcome {
    if i % 9 == 0 {
        w::AttemptOutcome::TransportError("connect_timeout".into())
    } else {
        w::AttemptOutcome::Response(w::HttpResponse {
            status: [200, 401, 403, 410, 429, 500, 503, 600][(i % 8) as usize],
            retry_after_ms: (i % 4 == 0).then_some(i % 100_000),
        })
    }
}

fn document(i: u64) -> String {
    let classes = if i % 1000 == 8 { 1 + (i % 400) as usize } else { 1 + (i % 4) as usize };
    let mut s = String::from("{\"version\": \"v1\", \"classes\": {");
    for k in 0..classes {
        if k > 0 {
            s.push(',');
        }
        s.push_str(&format!(
            "\"c{k}\": {{\"window_ms\": {}, \"backoff\": {{\"base_ms\": 2000, \"factor\": 2.0, \"cap_ms\": 300000}}}}",
            900_000 + k
        ));
    }
    s.push_str("}}");
    s
}

fn main() -> wasmtime::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut calls, mut every) = (1_000_000u64, 20_000u64);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--calls" => calls = args.next().and_then(|v| v.parse().ok()).expect("--calls N"),
            "--every" => every = args.next().and_then(|v| v.parse().ok()).expect("--every K"),
            other => wasmtime::bail!("unknown argument {other}"),
        }
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dist/retry_policy.wasm");
    let mut config = Config::new();
    config.wasm_component_model(true);
    let engine = Engine::new(&config)?;
    let component = Component::from_file(&engine, &path)?;
    let mut linker = Linker::<State>::new(&engine);
    RetryPolicy::add_to_linker::<State, HasSelf<State>>(&mut linker, |s| s)?;
    let mut store = Store::new(&engine, State { memory: 0, growths: 0, store_calls: 0 });
    store.limiter(|s| s as &mut dyn ResourceLimiter);
    let bindings = RetryPolicy::instantiate(&mut store, &component, &linker)?;
    let api = bindings.webhook_retry_policy_policy();
    let huge = "x".repeat((1 << 20) + 1);
    let mut samples: Vec<(u64, usize)> = Vec::new();
    let start = Instant::now();
    let mut refusals = 0u64;
    println!("calls,memory_bytes");
    for i in 0..calls {
        let s = &mut store;
        let refused = match i % 12 {
            0 => api.call_evaluate(s, policy(i), &state(i), &outcome(i), 1_700_000_000_000 + i)?.is_err(),
            1 => {
                let reply = if i % 5 == 0 {
                    w::StoreReply::Unavailable
                } else {
                    let c = w::BucketCounts { total: i % 300, retries: i % 30 };
                    w::StoreReply::Answered(w::Reservation {
                        reserved: i % 2 == 0,
                        counts: w::BudgetCounts { current: c, previous: c },
                    })
                };
                api.call_settle(s, policy(i), &state(i), &outcome(i), 1_700_000_000_000 + i, reply)?.is_err()
            }
            2 => api.call_load_health_document(s, &document(i))?.is_err(),
            3 => {
                let h = match i % 4 {
                    0 => format!("{}", i),
                    1 => "Sun, 06 Nov 1994 08:49:37 GMT".to_string(),
                    2 => "9".repeat((i % 2000) as usize),
                    _ => "garbage ²".to_string(),
                };
                api.call_parse_retry_after(s, &h, i)?.is_none()
            }
            4 => {
                let url = format!("https://h{}.example:{}/{}", i % 1000, i % 70_000, "p".repeat((i % 500) as usize));
                api.call_read_target(s, &url)?.is_err()
            }
            5 => api.call_decide(s, policy(i), &state(i), &outcome(i))?.is_err(),
            6 => api.call_plan(s, policy(i).backoff, 900_000 + i, (1 + i % 120) as u32)?.is_err(),
            7 => {
                let address = format!("{}.{}.{}.{}", i % 256, (i / 256) % 256, i % 7, i % 300);
                api.call_destination_refusal(s, &address)?.is_err()
            }
            8 => {
                let text = if i % 50_000 == 8 { huge.clone() } else { document(i) };
                match api.call_load_document(s, &text)? {
                    Ok(doc) => {
                        let class = format!("c{}", i % 500);
                        api.call_admit(&mut store, &doc, &class, i)?.is_err()
                    }
                    Err(_) => true,
                }
            }
            9 => {
                let r = w::StoreRequest {
                    op: w::StoreOp::RecordReserve,
                    endpoint_id: state(i).endpoint_id,
                    window_ms: 60_000,
                    bucket: i / 1000,
                };
                let held = w::HeldBuckets {
                    bucket: i / 1000,
                    current: w::BucketCounts { total: i % 100, retries: i % 10 },
                    previous: w::BucketCounts { total: 0, retries: 0 },
                };
                let _ = api.call_store_key(&mut *s, &r)?;
                let _ = api.call_store_apply(s, &r, policy(i).budget, i, held)?;
                false
            }
            10 => api.call_classify_status(s, (i % 700) as u16)?.is_err(),
            _ => {
                let _ = api.call_classify_error(s, ["connect_timeout", "x", ""][(i % 3) as usize])?;
                false
            }
        };
        refusals += u64::from(refused);
        if i % every == 0 || i + 1 == calls {
            let m = store.data().memory;
            samples.push((i + 1, m));
            println!("{},{}", i + 1, m);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let half = samples.iter().find(|(c, _)| *c > calls / 2).map_or(0, |s| s.1);
    let last = samples.last().map_or(0, |s| s.1);
    let first = samples.first().map_or(0, |s| s.1);
    println!(
        "plateau: {calls} calls in {secs:.1} s ({:.2} us/call), {refusals} refusals/none; guest memory {} KiB after the first call, {} KiB at half-way, {} KiB at the end ({} growths, {} store calls)",
        secs * 1e6 / calls as f64,
        first / 1024,
        half / 1024,
        last / 1024,
        store.data().growths,
        store.data().store_calls,
    );
    if last > half {
        println!("plateau: FAILED: the guest memory grew in the second half ({half} -> {last} bytes)");
        std::process::exit(1);
    }
    Ok(())
}
