//! A simulation as a summary table, per-second CSV, or JSON.

use std::fmt::Write as _;

use retry_policy_core::StopReason;

use super::series::{ratio, Second, DEAD};
use super::{Run, Simulation};
use crate::human::pct;

/// Letters for the stop order: M, B, W, U, T.
fn letter(r: StopReason) -> char {
    match r {
        StopReason::MaxAttemptsExhausted => 'M',
        StopReason::RetryBudgetExhausted => 'B',
        StopReason::RetryWindowElapsed => 'W',
        StopReason::BudgetUnavailable => 'U',
        StopReason::TerminalResponse => 'T',
        StopReason::Delivered => 'D',
    }
}

/// Highest retry share of the failing endpoints over any `w` consecutive
/// seconds holding at least `floor` attempts, from second `skip` on (past
/// the warm-up, when every budget is still under its sample floor).
pub fn peak_window_share(run: &Run, w: usize, floor: u64, skip: usize, until: usize) -> f64 {
    let all = &run.series.0;
    let s = &all[skip.min(all.len())..until.min(all.len()).max(skip.min(all.len()))];
    let w = w.max(1);
    let mut best: f64 = 0.0;
    let (mut a, mut r) = (0u64, 0u64);
    for i in 0..s.len() {
        a += s[i].failing_attempts;
        r += s[i].failing_retries;
        if i >= w {
            a -= s[i - w].failing_attempts;
            r -= s[i - w].failing_retries;
        }
        if i + 1 >= w && a >= floor.max(1) {
            best = best.max(ratio(r, a));
        }
    }
    best
}

/// The failing endpoints' retry share over the whole run.
pub fn failing_share(run: &Run) -> f64 {
    let (a, r) = run.endpoints.iter().filter(|e| !e.healthy).fold((0, 0), |(a, r), e| (a + e.attempts, r + e.retries));
    ratio(r, a)
}

/// Dead letters of one reason across all endpoints.
pub fn dead(run: &Run, reason: StopReason) -> u64 {
    let i = DEAD.iter().position(|d| *d == reason).unwrap_or(0);
    run.endpoints.iter().map(|e| e.dead[i]).sum()
}

/// The summary table, one block per variant.
pub fn summary(sim: &Simulation, budget_window_s: usize) -> String {
    let mut out = String::new();
    let sc = &sim.scenario;
    let _ = writeln!(out, "scenario {}: {}", sc.name, sc.about);
    let _ = writeln!(out, "seed {}, arrivals for {} s, drain up to {} s", sim.seed, sc.duration_s, sc.drain_s);
    let _ = writeln!(
        out,
        "{:<12} {:>3} {:<11} {:<14} {:>7} {:>8} {:>7} {:>6} {:>9} {:>8} {:>8} {:>6} {:>9} {:>7}",
        "variant",
        "rep",
        "budget",
        "endpoint",
        "events",
        "attempts",
        "retries",
        "share",
        "delivered",
        "terminal",
        "max_att",
        "window",
        "budget_ex",
        "unavail"
    );
    for run in &sim.runs {
        for e in &run.endpoints {
            let _ = writeln!(
                out,
                "{:<12} {:>3} {:<11} {:<14} {:>7} {:>8} {:>7} {:>6} {:>9} {:>8} {:>8} {:>6} {:>9} {:>7}",
                run.variant,
                run.replicas,
                run.scope.as_str(),
                e.id,
                e.events,
                e.attempts,
                e.retries,
                pct(ratio(e.retries, e.attempts)),
                e.delivered,
                e.dead[0],
                e.dead[1],
                e.dead[2],
                e.dead[3],
                e.dead[4]
            );
        }
    }
    let until = sc.duration_s as usize;
    for run in &sim.runs {
        let _ = writeln!(
            out,
            "{}: failing endpoints' retry share {} overall; between the first budget window and the end of arrivals, peak {} over any {} s, peak {} over any 10 s (ratio {}, {}, min_sample {}); {} engine inputs, {} disagreements, {} unfinished",
            run.variant,
            pct(failing_share(run)),
            pct(peak_window_share(run, budget_window_s, run.min_sample, budget_window_s, until)),
            budget_window_s,
            pct(peak_window_share(run, 10, 20, budget_window_s, until)),
            run.ratio,
            if run.sliding { "sliding" } else { "fixed windows" },
            run.min_sample,
            run.engine_calls,
            run.disagreements,
            run.unfinished
        );
        for e in run.endpoints.iter().filter(|e| !e.first_stops.is_empty()) {
            let letters: String = e.first_stops.iter().map(|r| letter(*r)).collect();
            let before = e.first_stops.iter().take_while(|r| **r != StopReason::RetryBudgetExhausted).count();
            let total_dead: u64 = e.dead.iter().sum();
            let budget = e.dead[3];
            let _ = writeln!(out, "  {} stop order: {letters}", e.id);
            if budget > 0 {
                let _ = writeln!(
                    out,
                    "  {} dead letters before the first retry_budget_exhausted; then {budget} of the remaining {} stopped by the budget",
                    before,
                    total_dead.saturating_sub(before as u64)
                );
            }
        }
    }
    let _ = writeln!(out, "(M max_attempts_exhausted, B retry_budget_exhausted, W retry_window_elapsed, U budget_unavailable, T terminal_response)");
    out
}

const CSV_HEAD: &str = "t_s,attempts,first_attempts,retries,retry_share,failing_attempts,failing_retries,failing_share,delivered,terminal_response,max_attempts_exhausted,retry_window_elapsed,retry_budget_exhausted,budget_unavailable,latency_p50_ms,latency_p90_ms,latency_p99_ms";

fn opt(v: Option<u64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The per-second series of one run as CSV.
pub fn csv(run: &Run) -> String {
    let mut out = String::from(CSV_HEAD);
    out.push('\n');
    for (t, s) in run.series.0.iter().enumerate() {
        let _ = writeln!(
            out,
            "{t},{},{},{},{:.4},{},{},{:.4},{},{},{},{},{},{},{},{},{}",
            s.attempts,
            s.first_attempts,
            s.retries,
            s.retry_share(),
            s.failing_attempts,
            s.failing_retries,
            s.failing_share(),
            s.delivered,
            s.dead[0],
            s.dead[1],
            s.dead[2],
            s.dead[3],
            s.dead[4],
            opt(s.latency(0.5)),
            opt(s.latency(0.9)),
            opt(s.latency(0.99))
        );
    }
    out
}

fn second_json(t: usize, s: &Second) -> serde_json::Value {
    let dead: serde_json::Map<String, serde_json::Value> =
        DEAD.iter().zip(s.dead.iter()).map(|(r, n)| (r.as_str().to_string(), (*n).into())).collect();
    serde_json::json!({
        "t_s": t, "attempts": s.attempts, "first_attempts": s.first_attempts, "retries": s.retries,
        "retry_share": s.retry_share(), "failing_attempts": s.failing_attempts, "failing_retries": s.failing_retries,
        "failing_share": s.failing_share(), "delivered": s.delivered, "dead": dead,
        "latency_p50_ms": s.latency(0.5), "latency_p90_ms": s.latency(0.9), "latency_p99_ms": s.latency(0.99),
    })
}

/// Everything as JSON: per variant its totals and its per-second series.
pub fn json(sim: &Simulation, budget_window_s: usize, with_series: bool) -> serde_json::Value {
    let until = sim.scenario.duration_s as usize;
    let runs: Vec<serde_json::Value> = sim
        .runs
        .iter()
        .map(|run| {
            let endpoints: Vec<serde_json::Value> = run
                .endpoints
                .iter()
                .map(|e| {
                    let dead: serde_json::Map<String, serde_json::Value> =
                        DEAD.iter().zip(e.dead.iter()).map(|(r, n)| (r.as_str().to_string(), (*n).into())).collect();
                    serde_json::json!({
                        "id": e.id, "healthy": e.healthy, "events": e.events, "attempts": e.attempts,
                        "retries": e.retries, "delivered": e.delivered, "dead": dead,
                        "first_stops": e.first_stops.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
                    })
                })
                .collect();
            let series: Vec<serde_json::Value> = if with_series {
                run.series.0.iter().enumerate().map(|(t, s)| second_json(t, s)).collect()
            } else {
                Vec::new()
            };
            serde_json::json!({
                "variant": run.variant, "replicas": run.replicas, "budget": run.scope.as_str(),
                "ratio": run.ratio, "sliding": run.sliding, "min_sample": run.min_sample,
                "failing_share": failing_share(run),
                "peak_window_share": peak_window_share(run, budget_window_s, run.min_sample, budget_window_s, until),
                "peak_10s_share": peak_window_share(run, 10, 20, budget_window_s, until),
                "disagreements": run.disagreements, "engine_calls": run.engine_calls, "unfinished": run.unfinished,
                "counters": run.counters,
                "endpoints": endpoints, "series": series,
            })
        })
        .collect();
    serde_json::json!({"scenario": sim.scenario.name, "seed": sim.seed, "runs": runs})
}
