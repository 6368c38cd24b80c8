//! `simulate --compare-health`: one scenario, two runs under one seed —
//! the document as format 2 and the same document with `health` — and one
//! table of issue 19's figures, then which of its goals the health run meets.

use std::fmt::Write as _;

use retry_policy_core::document::PolicyDocument;
use retry_policy_core::health::{Health, HealthDocument};
use retry_policy_core::StopReason;

use super::document::checked_document;
use super::figures::Figures;
use super::fleet::{run_fleet, FleetRun};
use super::scenario::{Failure, Scenario};
use super::series::DEAD;
use crate::human::pct;
use crate::source;
use crate::DecisionSource;

/// Retry share goal: the budget's ratio plus this many points, over any
/// 60 s holding at least `min_sample` requests (the sliding estimate weighs
/// the previous bucket linearly, so a real 60 s window can read above it).
pub const SHARE_SLACK: f64 = 0.05;
/// "Few 429s" at a capacity-limited receiver: at most this share of its requests.
pub const FEW_429: f64 = 0.10;

/// A document for the comparison: its classes and their sections, both from
/// the engine (`load_health_document`).
#[derive(Debug, Clone)]
pub struct HealthPolicy {
    pub document: PolicyDocument,
    /// Per class of `document`, in its order.
    pub health: Vec<Option<Health>>,
    /// Where the sections came from, for the output.
    pub source: String,
}

impl HealthPolicy {
    /// A format-3 document as the comparison runs it. No section anywhere:
    /// every class gets the default section.
    pub fn from_document(doc: HealthDocument) -> HealthPolicy {
        let any = doc.health.iter().any(|(_, h)| h.is_some());
        let health = doc
            .document
            .classes
            .iter()
            .map(|(name, _)| {
                let own = doc.health.iter().find(|(n, _)| n == name).and_then(|(_, h)| *h);
                if any {
                    own
                } else {
                    Some(Health::default())
                }
            })
            .collect();
        let source = if any { "the document's health sections" } else { "the document plus a default health section" };
        HealthPolicy { document: doc.document, health, source: source.to_string() }
    }
}

/// Read `path` through the engine ([`HealthPolicy::from_document`]).
pub fn load(engine: &mut dyn DecisionSource, path: &str) -> Result<HealthPolicy, String> {
    source::load(engine, path).map(HealthPolicy::from_document)
}

/// [`load`] for document text (`path` names it and picks TOML or JSON).
pub fn load_text(engine: &mut dyn DecisionSource, path: &str, text: &str) -> Result<HealthPolicy, String> {
    source::load_text(engine, path, text).map(HealthPolicy::from_document)
}

/// Both runs of one scenario.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub scenario: Scenario,
    pub seed: u64,
    pub policy_source: String,
    pub ratio: f64,
    pub min_sample: u64,
    pub window_ms: u64,
    /// The first class's section (the goals' bounds).
    pub section: Health,
    pub format2: FleetRun,
    pub health: FleetRun,
}

/// Run `scenario` twice under `seed` (else its own): format 2, then health.
pub fn compare(
    engine: &mut dyn DecisionSource,
    policy: &HealthPolicy,
    scenario: &Scenario,
    seed: Option<u64>,
) -> Result<Comparison, String> {
    let seed = seed.unwrap_or(scenario.seed);
    let classes = &policy.document.classes;
    let none = vec![None; classes.len()];
    let version = &policy.document.version;
    checked_document(engine, version, classes, &none)?;
    checked_document(engine, version, classes, &policy.health)?;
    let format2 = run_fleet(version, classes, &none, scenario, seed, "format 2")?;
    let health = run_fleet(version, classes, &policy.health, scenario, seed, "health")?;
    let first = classes.iter().position(|(n, _)| scenario.traffic.first().is_some_and(|t| t.class == *n)).unwrap_or(0);
    let p = classes.get(first).map(|(_, p)| *p).ok_or("the policy has no class")?;
    Ok(Comparison {
        scenario: scenario.clone(),
        seed,
        policy_source: policy.source.clone(),
        ratio: p.budget.ratio,
        min_sample: p.budget.min_sample,
        window_ms: p.window_ms,
        section: policy.health.get(first).copied().flatten().unwrap_or_default(),
        format2,
        health,
    })
}

/// How an endpoint fails, in words.
pub fn pattern(f: &Failure) -> String {
    match f {
        Failure::Healthy => "healthy".into(),
        Failure::Always503 => "always 503".into(),
        Failure::Flapping { up_s, down_s } => format!("flapping {up_s} s up / {down_s} s down"),
        Failure::RateLimited { retry_after_s } => format!("429 with Retry-After: {retry_after_s}"),
        Failure::Outage { from_s, to_s, status } => format!("outage ({status}) {from_s}-{to_s} s"),
        Failure::Capacity { per_s, retry_after_s } => {
            format!("capacity {per_s}/s, beyond it 429 with Retry-After: {retry_after_s}")
        }
    }
}

fn dead_text(f: &Figures) -> String {
    let by: Vec<String> =
        DEAD.iter().zip(f.dead.iter()).filter(|(_, n)| **n > 0).map(|(r, n)| format!("{} {n}", short(*r))).collect();
    if by.is_empty() {
        "0".into()
    } else {
        format!("{} ({})", f.dead_total(), by.join(", "))
    }
}

fn short(r: StopReason) -> &'static str {
    match r {
        StopReason::RetryBudgetExhausted => "budget",
        StopReason::RetryWindowElapsed => "window",
        StopReason::MaxAttemptsExhausted => "max_attempts",
        StopReason::BudgetUnavailable => "unavailable",
        StopReason::TerminalResponse => "terminal",
        StopReason::Delivered => "delivered",
    }
}

fn times(a: f64, b: f64) -> String {
    if a == 0.0 {
        if b == 0.0 {
            "=".into()
        } else {
            "-".into()
        }
    } else {
        format!("{:.2}", b / a)
    }
}

/// The figures of one endpoint as `(name, format 2, health, ratio)` rows.
pub fn rows(c: &Comparison, i: usize) -> Vec<[String; 4]> {
    let (a, b) = (&c.format2.endpoints[i], &c.health.endpoints[i]);
    let failure = &c.scenario.endpoints[i].failure;
    let n = |name: &str, x: u64, y: u64| [name.to_string(), x.to_string(), y.to_string(), times(x as f64, y as f64)];
    let mut out = vec![
        n("events", a.events, b.events),
        n("delivered", a.delivered, b.delivered),
        [
            "dead-lettered (by reason)".into(),
            dead_text(a),
            dead_text(b),
            times(a.dead_total() as f64, b.dead_total() as f64),
        ],
        n("requests to the endpoint", a.requests, b.requests),
        n("requests during its outage", a.requests_in_outage, b.requests_in_outage),
    ];
    let share = |f: &Figures| f.outage_delivered_share().map_or("-".into(), pct);
    out.push(["outage arrivals delivered".into(), share(a), share(b), String::new()]);
    let (pa, pb) = (a.peak_share(60, c.min_sample), b.peak_share(60, c.min_sample));
    out.push([format!("max retry share, any 60 s (>= {} req)", c.min_sample), pct(pa), pct(pb), times(pa, pb)]);
    out.push([
        "requests before a Retry-After instant".into(),
        a.before_retry_after.to_string(),
        format!("{} ({} on a view showing the pause)", b.before_retry_after, b.before_retry_after_aware),
        times(a.before_retry_after as f64, b.before_retry_after as f64),
    ]);
    let m = |f: &Figures| f.post_recovery_multiple(failure);
    let fmt = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.2}x"));
    out.push([
        "post-recovery rate, max 10 s (x normal)".into(),
        fmt(m(a)),
        fmt(m(b)),
        match (m(a), m(b)) {
            (Some(x), Some(y)) => times(x, y),
            _ => String::new(),
        },
    ]);
    out.push(n("429 answers", a.answers_429, b.answers_429));
    let mean_held = |f: &Figures| f.dead_held_ms.checked_div(f.dead_held).map_or("-".to_string(), crate::human::ms);
    out.push([
        "events held; mean held time of held dead letters".into(),
        "-".into(),
        format!("{}; {}", b.held_events, mean_held(b)),
        String::new(),
    ]);
    out
}

/// One goal's verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    pub endpoint: String,
    pub met: bool,
    pub text: String,
}

fn outage_s(f: &Failure) -> Option<u64> {
    match f {
        Failure::Outage { from_s, to_s, .. } => Some(to_s.saturating_sub(*from_s)),
        Failure::Flapping { down_s, .. } => Some(*down_s),
        _ => None,
    }
}

/// Issue 19's goals, judged on the health run (module docs and docs/health-simulation.md).
pub fn goals(c: &Comparison) -> Vec<Goal> {
    let mut out = Vec::new();
    let h = &c.section;
    for (i, ep) in c.scenario.endpoints.iter().enumerate() {
        let (a, b) = (&c.format2.endpoints[i], &c.health.endpoints[i]);
        let mut goal = |met: bool, text: String| out.push(Goal { endpoint: ep.id.clone(), met, text });
        let short_outage = outage_s(&ep.failure).filter(|s| s * 1000 < c.window_ms);
        if let (Some(s), Some(share)) = (short_outage, b.outage_delivered_share()) {
            goal(share >= 0.99, format!("outage arrivals delivered {} >= 99% (outage {s} s < window)", pct(share)));
        }
        if a.requests_in_outage > 0 {
            let r = b.requests_in_outage as f64 / a.requests_in_outage as f64;
            goal(
                r <= 0.05,
                format!(
                    "requests during the outage {} = {} of format 2's {} (<= 5%)",
                    b.requests_in_outage,
                    pct(r),
                    a.requests_in_outage
                ),
            );
        }
        let peak = b.peak_share(60, c.min_sample);
        goal(
            peak <= c.ratio + SHARE_SLACK,
            format!("max retry share over 60 s {} <= ratio {} + {} slack", pct(peak), c.ratio, SHARE_SLACK),
        );
        if matches!(ep.failure, Failure::RateLimited { .. } | Failure::Capacity { .. }) {
            let beyond = b.before_retry_after_aware;
            goal(
                beyond == 0,
                format!(
                    "requests before a Retry-After instant beyond the gate-2 slack (sent on a view showing the pause): {beyond}; {} in all, the rest on a stale, missing or older view; format 2: {}",
                    b.before_retry_after, a.before_retry_after
                ),
            );
        }
        if let Some(m) = b.post_recovery_multiple(&ep.failure) {
            let bound =
                1.0 + h.release.multiple + h.release.floor_per_s * f64::from(c.health.replicas) / b.normal_per_s;
            goal(
                m <= bound,
                format!(
                    "post-recovery rate {m:.2}x normal <= (1 + multiple) + floor x replicas / normal = {bound:.2}x"
                ),
            );
        }
        if let Some((over, worst)) = b.release_bound_check(&ep.failure) {
            goal(
                over == 0,
                format!(
                    "post-recovery seconds over the release bound (docs/health.md section 4: unpaced requests + sum over replicas of 2 x max(R, 1)): {over}; worst requests / bound {worst:.2}"
                ),
            );
        }
        if let Failure::Capacity { per_s, .. } = ep.failure {
            let share = b.answers_429 as f64 / b.requests.max(1) as f64;
            let rate = b.delivered as f64 / c.scenario.duration_s.max(1) as f64;
            goal(
                share <= FEW_429,
                format!(
                    "429s {} of requests <= {} ({} delivered, {rate:.1}/s over the arrivals' {} s; capacity {per_s}/s)",
                    pct(share),
                    pct(FEW_429),
                    b.delivered,
                    c.scenario.duration_s
                ),
            );
            // Accepted (2xx) per second while arrivals last, as a share of the capacity.
            let secs = (c.scenario.duration_s as usize).min(b.series.len());
            let accepted: u64 = b.series[..secs].iter().map(|s| s.delivered).sum();
            let share = accepted as f64 / (secs.max(1) as f64 * per_s as f64);
            goal(
                share >= 0.9,
                format!(
                    "accepted while arrivals last {:.2}/s, {} of the capacity >= 90%",
                    accepted as f64 / secs.max(1) as f64,
                    pct(share)
                ),
            );
            // And after them, in the seconds that start with events held (the backlog's drain).
            let drain: Vec<_> = b.series.iter().skip(secs).filter(|s| s.held > 0).collect();
            if !drain.is_empty() {
                let accepted: u64 = drain.iter().map(|s| s.delivered).sum();
                let share = accepted as f64 / (drain.len() as f64 * per_s as f64);
                goal(
                    share >= 0.9,
                    format!(
                        "accepted after arrivals while events are held {:.2}/s over {} s, {} of the capacity >= 90%",
                        accepted as f64 / drain.len() as f64,
                        drain.len(),
                        pct(share)
                    ),
                );
            }
        }
    }
    out
}

/// The whole text: header, the table (markdown), the goals.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let sc = &c.scenario;
    let _ = writeln!(out, "scenario {}: {}", sc.name, sc.about);
    let _ = writeln!(
        out,
        "seed {}, {} replica(s), {} budget, arrivals for {} s; health: {} (each replica is the delivery engine, policy-core's engine natively; every figure is counted from its actions)",
        c.seed,
        sc.replicas,
        sc.budget.as_str(),
        sc.duration_s,
        c.policy_source
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "| endpoint | figure | format 2 | health | health / format 2 |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|");
    for (i, ep) in sc.endpoints.iter().enumerate() {
        let name = format!("{} ({}, {}/s)", ep.id, pattern(&ep.failure), c.health.endpoints[i].normal_per_s);
        for (k, r) in rows(c, i).iter().enumerate() {
            let _ =
                writeln!(out, "| {} | {} | {} | {} | {} |", if k == 0 { &name } else { "" }, r[0], r[1], r[2], r[3]);
        }
    }
    let _ = writeln!(out);
    let calls = |r: &FleetRun| {
        let attempts: u64 = r.endpoints.iter().map(|e| e.requests).sum();
        format!(
            "{}: {} store calls for {} attempts ({} per attempt: {} with attempts, {} probe), {} unfinished",
            r.label,
            r.attempt_calls + r.probe_calls,
            attempts,
            format_args!("{:.2}", (r.attempt_calls + r.probe_calls) as f64 / attempts.max(1) as f64),
            r.attempt_calls,
            r.probe_calls,
            r.unfinished
        )
    };
    let _ = writeln!(out, "{}", calls(&c.format2));
    let _ = writeln!(out, "{}", calls(&c.health));
    let _ = writeln!(out);
    let _ = writeln!(out, "goals (issue 19), health run:");
    for g in goals(c) {
        let _ = writeln!(out, "  [{}] {}: {}", if g.met { "met" } else { "NOT met" }, g.endpoint, g.text);
    }
    out
}

/// `simulate --policy FILE --scenario FILE --compare-health yes [--seed N] [--out DIR] [--format json]`:
/// the table and goals; with `--out`, the chart too (`<scenario>-health.svg`);
/// `--format json`: [`super::compare_json::json`] (no wall time, nothing about files).
pub fn command(
    engine: &mut dyn DecisionSource,
    args: &crate::commands::Args,
    out: &mut dyn std::io::Write,
) -> Result<u8, String> {
    match args.get("compare-health") {
        Some("yes" | "true" | "1") => {}
        Some(other) => return Err(format!("--compare-health {other}: expected yes")),
        None => return Err("--compare-health needs yes".into()),
    }
    let json = match args.get("format").unwrap_or("text") {
        "text" => false,
        "json" => true,
        other => return Err(format!("--format {other}: expected text or json")),
    };
    let path = args.get("policy").ok_or("simulate needs --policy FILE")?;
    let scenario = Scenario::read(args.get("scenario").ok_or("simulate needs --scenario FILE")?)?;
    let seed =
        args.get("seed").map(|s| s.parse::<u64>().map_err(|_| format!("--seed {s}: not an integer"))).transpose()?;
    let policy = load(engine, path)?;
    let started = std::time::Instant::now();
    let c = compare(engine, &policy, &scenario, seed)?;
    let mut text = if json {
        let mut s = serde_json::to_string_pretty(&super::compare_json::json(&c)).map_err(|e| e.to_string())?;
        s.push('\n');
        s
    } else {
        let mut t = render(&c);
        let _ = writeln!(t, "two runs in {:.2} s of wall time", started.elapsed().as_secs_f64());
        t
    };
    if let Some(dir) = args.get("out") {
        let dir = std::path::Path::new(dir);
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let p = dir.join(format!("{}-health.svg", scenario.name));
        std::fs::write(&p, crate::charts::health_svg(&c)?).map_err(|e| format!("{}: {e}", p.display()))?;
        if !json {
            let _ = writeln!(text, "wrote {}", p.display());
        }
    }
    out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(0)
}
