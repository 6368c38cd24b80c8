//! The dispatcher row (issue 20): one worker delivering to a loopback
//! endpoint as fast as it can, each attempt the way the dispatcher's worker
//! made it before it drove the delivery engine (the per-attempt path; the
//! engine's rows are `engine.rs`): admit a new event, POST it with ureq
//! configured as the dispatcher's client, read `Retry-After` through the
//! component, then the step (`step_via`: `evaluate`, ONE store call
//! answered by the component's `store-apply` as an in-process budget store
//! does, `settle` when the budget answers). Every policy call is timed here; the
//! process's CPU time and the worker thread's are read around the run.
//!
//! Left out (so the policy's share is, if anything, overstated): the event
//! store and journal, metrics and signing. Retries are made at once: their
//! delays are not waited, the row is CPU per delivery, not a schedule.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::time::{Duration, Instant};

use retry_policy_core::{AttemptOutcome, Decision, DeliveryState, HeldBuckets};
use retry_policy_host::{InMemoryStore, Policies, PolicyEngine, SystemClock};

use crate::cpu;

/// The class every bench event is admitted under.
const CLASS: &str = "bench";

/// The policy document (the step rows' policy: 2 s full-jitter backoff,
/// 15-minute window, a 10% retry budget).
const DOCUMENT: &str = r#"{"version":"bench","classes":{"bench":{"window_ms":900000,"hard_cap":16,
    "backoff":{"base_ms":2000,"factor":2.0,"cap_ms":300000,"jitter":"full"},
    "budget":{"ratio":0.1,"window_ms":60000,"min_sample":50,"sliding":true}}}}"#;

/// Every `FAIL_EVERY`-th request is answered 503 (every other one of
/// those with `Retry-After: 1`), the rest 200.
pub const FAIL_EVERY: u64 = 4;

/// One run of the dispatcher row.
pub struct Dispatched {
    pub deliveries: u64,
    pub events: u64,
    pub wall: Duration,
    /// getrusage(RUSAGE_SELF) user + system over the run, µs.
    pub process_cpu_us: f64,
    /// The delivering thread's own CPU time (RUSAGE_THREAD), µs, where known.
    pub worker_cpu_us: Option<f64>,
    /// Time inside policy calls, µs: the sum of the three below.
    pub policy_us: f64,
    /// `admit` and the admitted class policy (`by_hash`), once per event, µs.
    pub admit_us: f64,
    /// `parse_retry_after` (only when the header is there), µs.
    pub retry_after_us: f64,
    /// `step_via` with the in-process store's `store-apply`, µs.
    pub step_us: f64,
    /// How the events ended, by stop reason (the last one may be unfinished).
    pub stops: BTreeMap<String, u64>,
}

/// A server on 127.0.0.1 answering the 200/503 mix; returns its URL.
pub fn serve_mix() -> Result<String, Box<dyn std::error::Error>> {
    let server = tiny_http::Server::http("127.0.0.1:0").map_err(|e| e.to_string())?;
    let addr = server.server_addr().to_ip().ok_or("no ip address")?;
    let retry_after = tiny_http::Header::from_bytes("Retry-After", "1").map_err(|()| "bad header")?;
    std::thread::spawn(move || {
        for (n, req) in (1u64..).zip(server.incoming_requests()) {
            let resp = match (n % FAIL_EVERY, n % (2 * FAIL_EVERY)) {
                (0, 0) => tiny_http::Response::empty(503).with_header(retry_after.clone()),
                (0, _) => tiny_http::Response::empty(503),
                _ => tiny_http::Response::empty(200),
            };
            let _ = req.respond(resp);
        }
    });
    Ok(format!("http://{addr}/hook"))
}

/// The dispatcher's ureq settings (`HttpClient::new`), without its guarded
/// resolver and TLS connector (plain http to 127.0.0.1 here).
fn client() -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .timeout_global(Some(Duration::from_secs(30)))
        .timeout_connect(Some(Duration::from_secs(2)))
        .max_response_header_size(16 * 1024)
        .max_idle_connections(32)
        .max_idle_connections_per_host(8)
        .user_agent("retry-policy-dispatcher")
        .build();
    ureq::Agent::new_with_config(config)
}

/// POST one attempt; the status and the raw `Retry-After`, a body prefix
/// read and discarded (as the dispatcher's client does).
fn post(
    agent: &ureq::Agent,
    url: &str,
    headers: [(&str, &str); 3],
    body: &[u8],
) -> Result<(u16, Option<String>), ureq::Error> {
    let mut req = agent.post(url).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let resp = req.send(body)?;
    let status = resp.status().as_u16();
    let retry_after = resp.headers().get("retry-after").map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let mut reader = resp.into_body().into_reader();
    let _ = std::io::copy(&mut (&mut reader).take(64 * 1024), &mut std::io::sink());
    Ok((status, retry_after))
}

fn now_ms() -> u64 {
    retry_policy_core::Clock::now_ms(&SystemClock)
}

/// Make `deliveries` attempts (POSTs) from one worker, events one after
/// another, each until the policy stops it.
pub fn run(engine: &PolicyEngine, url: &str, deliveries: u64) -> Result<Dispatched, Box<dyn std::error::Error>> {
    let mut inst = engine.instantiate(SystemClock, InMemoryStore::new())?;
    let policies = Policies::new(&mut inst, DOCUMENT)?;
    let agent = client();
    let mut held: HashMap<(String, u64), HeldBuckets> = HashMap::new();
    let mut stops = BTreeMap::new();
    let (mut admit, mut retry_after_t, mut step) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut made, mut events) = (0u64, 0u64);
    let (cpu0, worker0, t0) = (cpu::process_us()?, cpu::thread_us(), Instant::now());
    while made < deliveries {
        events += 1;
        let event_id = format!("evt_{events:08}");
        let endpoint_id = format!("ep_{}", events % 7);
        let t = Instant::now();
        let admission = policies.admit(&mut inst, CLASS, now_ms())?;
        let class_policy = policies.by_hash(&admission.policy_hash).ok_or("the admitted policy is not known")?;
        admit += t.elapsed();
        let mut attempt = 0u32;
        while made < deliveries {
            attempt += 1;
            let body = serde_json::json!({"event_id": event_id, "class": CLASS, "attempt": attempt}).to_string();
            let (attempt_no, first_at) = (attempt.to_string(), admission.first_attempted_at_ms.to_string());
            let headers = [
                ("X-Event-Id", event_id.as_str()),
                ("X-Attempt", attempt_no.as_str()),
                ("X-First-Attempted-At-Ms", first_at.as_str()),
            ];
            let (status, retry_after) = post(&agent, url, headers, body.as_bytes())?;
            made += 1;
            let now = now_ms();
            let t = Instant::now();
            let retry_after_ms = retry_after.and_then(|h| inst.parse_retry_after(&h, now).ok().flatten());
            let t1 = Instant::now();
            retry_after_t += t1 - t;
            let outcome = AttemptOutcome::Response { status, retry_after_ms };
            let state = DeliveryState {
                event_id: event_id.clone(),
                endpoint_id: endpoint_id.clone(),
                attempt,
                max_attempts: admission.schedule.max_attempts,
                first_attempted_at_ms: admission.first_attempted_at_ms,
                credentials_refreshed: false,
            };
            let done = inst.step_via(&class_policy, &state, &outcome, now, |pi, request| {
                let key = (request.endpoint_id.clone(), request.window_ms);
                let before = held.get(&key).copied().unwrap_or_default();
                let (reservation, next) =
                    pi.store_apply(request, &class_policy.budget, now, &before).map_err(|e| e.to_string())?;
                held.insert(key, next);
                Ok(reservation)
            })?;
            step += t1.elapsed();
            if let Decision::Stop(st) = done.decision {
                *stops.entry(format!("{:?}", st.reason)).or_insert(0) += 1;
                break;
            }
        }
    }
    let wall = t0.elapsed();
    let process_cpu_us = cpu::process_us()? - cpu0;
    let worker_cpu_us = cpu::thread_us().zip(worker0).map(|(b, a)| b - a);
    Ok(Dispatched {
        deliveries: made,
        events,
        wall,
        process_cpu_us,
        worker_cpu_us,
        policy_us: (admit + retry_after_t + step).as_secs_f64() * 1e6,
        admit_us: admit.as_secs_f64() * 1e6,
        retry_after_us: retry_after_t.as_secs_f64() * 1e6,
        step_us: step.as_secs_f64() * 1e6,
        stops,
    })
}

impl Dispatched {
    fn per_delivery(&self, us: f64) -> f64 {
        us / self.deliveries as f64
    }

    /// The policy's share of the process's CPU time, percent.
    pub fn process_share(&self) -> f64 {
        100.0 * self.policy_us / self.process_cpu_us
    }

    /// The policy's share of the worker thread's CPU time, percent.
    pub fn worker_share(&self) -> Option<f64> {
        self.worker_cpu_us.map(|w| 100.0 * self.policy_us / w)
    }
}

fn percent(p: Option<f64>) -> String {
    p.map_or("-".into(), |p| format!("{p:.2}%"))
}

/// The dispatcher row's table; `step_ns` is the component evaluate +
/// settle row of the same run.
pub fn print(d: &Dispatched, step_ns: f64) {
    println!(
        "dispatcher: one worker, {} deliveries ({} events) to a loopback endpoint (1 in {FAIL_EVERY} answered 503, \
         else 200), retries at once, same run",
        d.deliveries, d.events
    );
    println!(
        "{:>12} {:>14} {:>14} {:>14} {:>14} {:>16}",
        "deliveries/s", "CPU us/deliv", "worker us/dl", "policy us/dl", "policy % CPU", "policy % worker"
    );
    println!(
        "{:>12.0} {:>14.1} {:>14} {:>14.2} {:>14} {:>16}",
        d.deliveries as f64 / d.wall.as_secs_f64(),
        d.per_delivery(d.process_cpu_us),
        d.worker_cpu_us.map_or("-".into(), |w| format!("{:.1}", d.per_delivery(w))),
        d.per_delivery(d.policy_us),
        percent(Some(d.process_share())),
        percent(d.worker_share())
    );
    println!(
        "policy by call: admit {:.2} us per event ({:.2} per delivery), Retry-After {:.2}, step {:.2} us per delivery \
         (the component evaluate + settle row above: {:.2} us); stops: {:?}",
        d.admit_us / d.events as f64,
        d.per_delivery(d.admit_us),
        d.per_delivery(d.retry_after_us),
        d.per_delivery(d.step_us),
        step_ns / 1e3,
        d.stops
    );
    println!(
        "(CPU = getrusage user+system of the whole process, the in-process endpoint included; worker = the \
         delivering thread's alone, the dispatcher's own CPU; policy = time inside admit, Retry-After and the step)"
    );
    println!();
}

/// Whether the goal of issue 20 is met: judged on the worker thread's CPU
/// (the dispatcher's own; the endpoint shares the process here) where known.
pub fn goal(d: &Dispatched) -> String {
    let judged = d.worker_share().unwrap_or_else(|| d.process_share());
    format!(
        "goal: policy <= 2% of a dispatcher's CPU at full loopback throughput -> {} of the worker thread \
         ({:.2}% of the process, endpoint included) {}",
        percent(d.worker_share()),
        d.process_share(),
        if judged <= 2.0 { "met" } else { "missed" }
    )
}
