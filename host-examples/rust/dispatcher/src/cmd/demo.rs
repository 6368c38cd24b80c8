//! `retry-policy-dispatcher demo`: the storm demo. Three local endpoints — healthy
//! (200), broken (503), gone (410) — and a realistic mix of events
//! dispatched through the policy with time compressed, so the whole story
//! takes seconds: the broken endpoint's dead letters flip from a few
//! `max_attempts_exhausted` to a flood of `retry_budget_exhausted` once the
//! budget trips, while the healthy endpoint keeps delivering. Ends with the
//! `/metrics` lines, fetched over HTTP.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use retry_policy_core::StopReason;
use retry_policy_dispatcher::args::Flags;
use retry_policy_dispatcher::artifact_reload::live;
use retry_policy_dispatcher::drain::Signals;
use retry_policy_dispatcher::driver::{self, DriverConfig, NewEvent, Run, Stop, Tally};
use retry_policy_dispatcher::endpoints::Endpoint;
use retry_policy_dispatcher::http_client::ClientConfig;
use retry_policy_dispatcher::Metrics;

const DEMO_POLICY: &str = include_str!("../../demo-policy.json");
const ENDPOINTS: [&str; 3] = ["healthy", "broken", "gone"];

/// splitmix64: a deterministic event mix.
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn short(r: &str) -> &'static str {
    match r {
        "delivered" => "D",
        "terminal_response" => "T",
        "max_attempts_exhausted" => "M",
        "retry_window_elapsed" => "W",
        "retry_budget_exhausted" => "B",
        "budget_unavailable" => "U",
        _ => "?",
    }
}

/// Events of `endpoint` per stop reason (every reason, zeros included) and those not stopped yet.
fn counts(t: &Tally, endpoint: &str) -> (BTreeMap<&'static str, u64>, u64) {
    let mut c: BTreeMap<&'static str, u64> = StopReason::ALL.iter().map(|r| (r.as_str(), 0)).collect();
    let mut stopped = 0;
    for s in t.stop_log.iter().filter(|s| s.endpoint_id == endpoint) {
        if let Some(n) = StopReason::ALL.iter().find(|r| r.as_str() == s.reason).and_then(|r| c.get_mut(r.as_str())) {
            *n += 1;
        }
        stopped += 1;
    }
    (c, t.admitted_by_endpoint.get(endpoint).copied().unwrap_or(0).saturating_sub(stopped))
}

const COLUMNS: [(&str, &str); 6] = [
    ("delivered", "delivered"),
    ("terminal_response", "terminal"),
    ("max_attempts_exhausted", "max_attempts"),
    ("retry_budget_exhausted", "budget_exh"),
    ("retry_window_elapsed", "window"),
    ("budget_unavailable", "budget_unav"),
];

/// One row per endpoint, one column per stop reason, then attempts made and events pending.
fn endpoint_table(t: &Tally) -> String {
    let mut out = String::new();
    let _ = write!(out, "{:<10} {:>7}", "endpoint", "events");
    for (_, c) in COLUMNS {
        let _ = write!(out, " {c:>12}");
    }
    let _ = writeln!(out, " {:>9} {:>8}", "attempts", "pending");
    for ep in ENDPOINTS {
        let (c, pending) = counts(t, ep);
        let attempts: u64 = t.stop_log.iter().filter(|s| s.endpoint_id == ep).map(|s| s.attempts).sum();
        let _ = write!(out, "{:<10} {:>7}", ep, t.admitted_by_endpoint.get(ep).copied().unwrap_or(0));
        for (r, _) in COLUMNS {
            let _ = write!(out, " {:>12}", c[r]);
        }
        let _ = writeln!(out, " {attempts:>9} {pending:>8}");
    }
    out
}

fn http_get(url: &str) -> Result<String, String> {
    let resp = ureq::get(url).call().map_err(|e| format!("GET {url}: {e}"))?;
    resp.into_body().read_to_string().map_err(|e| format!("GET {url}: {e}"))
}

fn progress_line(t_s: u64, t: &Tally) -> String {
    let mut line = format!("t={t_s:>2}s ");
    for ep in ENDPOINTS {
        let (c, pending) = counts(t, ep);
        line += &match ep {
            "healthy" => format!("| healthy delivered {:>5} ", c["delivered"]),
            "broken" => format!(
                "| broken max_attempts {:>3} budget_exhausted {:>4} window {:>2} (retrying {:>3}) ",
                c["max_attempts_exhausted"], c["retry_budget_exhausted"], c["retry_window_elapsed"], pending
            ),
            _ => format!("| gone terminal {:>4}", c["terminal_response"]),
        };
    }
    line
}

pub fn run(f: &Flags) -> Result<(), String> {
    if !f.has("allow-private-targets") {
        return Err(
            "the demo's endpoints are on loopback, which is refused by default: pass --allow-private-targets".into()
        );
    }
    let metrics_bind = f.host_port("metrics-addr")?.unwrap_or_else(|| "127.0.0.1:0".into());
    let events: u64 = f.get("events", "a whole number")?.unwrap_or(3000);
    let rate: f64 = f.get("rate", "events per second")?.unwrap_or(300.0);
    let quiet_s: u64 = f.get("quiet-s", "a whole number of seconds")?.unwrap_or(3);
    let quiet_rate: f64 = f.get("quiet-rate", "events per second")?.unwrap_or(10.0);
    if !(rate.is_finite() && rate > 0.0 && quiet_rate.is_finite() && quiet_rate > 0.0) {
        return Err("--rate and --quiet-rate must be positive numbers of events per second".into());
    }
    // The storm's shape: quiet traffic while the endpoint has just broken
    // (its retries run free under the sample floor), then the peak.
    let quiet_events = ((quiet_s as f64 * quiet_rate) as u64).min(events);
    let at_ms = move |i: u64| -> u64 {
        if i < quiet_events {
            (i as f64 * 1000.0 / quiet_rate) as u64
        } else {
            quiet_s * 1000 + ((i - quiet_events) as f64 * 1000.0 / rate) as u64
        }
    };
    let document = match f.str("policy") {
        Some(p) => std::fs::read_to_string(p).map_err(|e| format!("--policy {p}: {e}"))?,
        None => DEMO_POLICY.to_string(),
    };
    let config = DriverConfig {
        concurrency: f.get("concurrency", "a whole number")?.unwrap_or(8),
        cap_in_progress: false, // events waiting for a retry hold nothing
        record_stops: true,
        drain: Duration::from_secs(2),
        client: ClientConfig { allow_private_targets: true, ..ClientConfig::default() },
        ..DriverConfig::default() // every event has its own start instant: no rate
    };
    let timeout: u64 = f.get("store-timeout-ms", "a whole number of milliseconds")?.unwrap_or(250);
    if timeout == 0 {
        return Err("--store-timeout-ms must be at least 1".into());
    }
    let timeout = Duration::from_millis(timeout);
    let redis = super::replica::budget_store(f.str("redis"), None, timeout, &config.client.trust)?;
    let engine = super::replica::load_artifact(f.str("artifact").or_else(|| f.str("component")))?;
    let classes = ["notification", "presence", "provisioning", "ledger"];
    let metrics = Arc::new(Metrics::default());
    super::replica::check_document(&engine, &document, &classes, &metrics)?;
    let (journal, store_bytes, resume_bytes) =
        super::replica::journals(f.str("store"), None, retry_policy_dispatcher::clock::now_ms())?;
    let store_name = if redis.is_some() { "redis" } else { "in-memory" };

    let statuses = [200, 503, 410];
    let mut eps = Vec::new();
    for (name, status) in ENDPOINTS.iter().zip(statuses) {
        eps.push(Endpoint::start("127.0.0.1:0", status, false).map_err(|e| format!("endpoint {name}: {e}"))?);
    }
    let urls: Vec<String> = eps.iter().map(Endpoint::url).collect();
    let metrics_server = metrics.serve(&metrics_bind).map_err(|e| format!("--metrics-addr {metrics_bind}: {e}"))?;

    println!(
        "== storm demo: {events} events, {quiet_rate}/s for {quiet_s} s then {rate}/s; {} workers; budget store: {}",
        config.concurrency, store_name
    );
    for (name, (url, status)) in ENDPOINTS.iter().zip(urls.iter().zip(statuses)) {
        println!("   endpoint {name:<8} {url}  (answers {status})");
    }
    println!("   metrics          {}", metrics_server.url("/metrics"));
    println!("   mix: 60% healthy, 30% broken, 10% gone; classes notification 40%, presence 20%, provisioning 25%, ledger 15%");
    println!(
        "   policy: {}\n",
        f.str("policy").unwrap_or(
            "embedded demo-policy.json (backoff compressed 1000x: 2 ms here = 2 s; budget 10% over 2 s, floor 50)"
        )
    );

    let source = (0..events).map(move |i| {
        let r = mix(i);
        let ep = match r % 10 {
            0..=5 => 0,
            6..=8 => 1,
            _ => 2,
        };
        let class = match (r >> 8) % 20 {
            0..=7 => "notification",
            8..=11 => "presence",
            12..=16 => "provisioning",
            _ => "ledger",
        };
        NewEvent {
            event_id: format!("evt-{i:05}"),
            endpoint_id: ENDPOINTS[ep].to_string(),
            target: urls[ep].clone(),
            class: class.to_string(),
            at_ms: Some(at_ms(i)),
        }
    });
    let started = Instant::now();
    // Ctrl-C (SIGINT) or SIGTERM: drain for up to 2 s, then the tables of what ran.
    let signals = Signals::install().map_err(|e| format!("cannot install the SIGTERM/SIGINT handlers: {e}"))?;
    let t = driver::run(Run {
        artifact: Arc::new(live(engine, false, Vec::new())),
        document,
        redis,
        journal,
        store_bytes,
        resume_bytes,
        metrics: metrics.clone(),
        config,
        source: Box::new(source),
        signals,
        watch: None,
        watch_policy: None,
        follow: None,
        needed: Vec::new(),
        progress: Some(Box::new(|second, t| println!("{}", progress_line(second, t)))),
    })?;
    if t.drained {
        println!("\n(drained on a signal: unfinished events are pending)");
    }
    println!("\n== stop reasons per endpoint (after {:.1} s)", started.elapsed().as_secs_f64());
    print!("{}", endpoint_table(&t));

    let broken: Vec<&Stop> = t.stop_log.iter().filter(|s| s.endpoint_id == "broken").collect();
    let seq: String = broken.iter().take(60).map(|s| short(&s.reason)).collect::<Vec<_>>().join("");
    println!("\n== the flip: the broken endpoint's first 60 dead letters, in the order they stopped");
    println!("   {seq}");
    println!(
        "   (M = max_attempts_exhausted, B = retry_budget_exhausted, W = retry_window_elapsed, U = budget_unavailable)"
    );
    let is = |s: &&&Stop, r: StopReason| s.reason == r.as_str();
    let first_b = broken.iter().position(|s| is(&s, StopReason::RetryBudgetExhausted)).unwrap_or(broken.len());
    let m_before = broken.iter().take(first_b).filter(|s| is(s, StopReason::MaxAttemptsExhausted)).count();
    let b_after = broken.iter().skip(first_b).filter(|s| is(s, StopReason::RetryBudgetExhausted)).count();
    println!(
        "   {m_before} max_attempts_exhausted before the budget tripped; then {b_after} of the remaining {} stopped by the budget",
        broken.len() - first_b
    );
    println!(
        "   attempts: {} first, {} retries (retry share {:.1}% across all endpoints)",
        t.first_attempts,
        t.retries,
        100.0 * t.retries as f64 / (t.first_attempts + t.retries).max(1) as f64
    );
    for (name, ep) in ENDPOINTS.iter().zip(&eps) {
        println!(
            "   endpoint {name:<8} received {:>5} requests ({} first attempts, {} retries)",
            ep.stats.requests(),
            ep.stats.first_attempts(),
            ep.stats.retries()
        );
    }

    println!("\n== curl -s {} | grep '^webhook_deadletter_total' | sort -k2 -nr", metrics_server.url("/metrics"));
    let body = http_get(&metrics_server.url("/metrics"))?;
    let mut lines: Vec<(u64, &str)> = body
        .lines()
        .filter(|l| l.starts_with("webhook_deadletter_total"))
        .map(|l| (l.rsplit(' ').next().and_then(|v| v.parse().ok()).unwrap_or(0), l))
        .collect();
    lines.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    for (_, l) in lines {
        println!("{l}");
    }
    if let Some(hold) = f.get::<u64>("hold-s", "a whole number of seconds")? {
        println!("\n(/metrics stays up {hold} s at {})", metrics_server.url("/metrics"));
        thread::sleep(Duration::from_secs(hold));
    }
    Ok(())
}
