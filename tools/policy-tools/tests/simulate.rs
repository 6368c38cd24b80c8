//! The simulation on the native engine: reproducible, and telling the
//! design note's stories.

mod common;

use common::root;
use policy_tools::native::NativeEngine;
use policy_tools::sim::{self, output, Scenario};
use retry_policy_core::StopReason;

fn simulate(name: &str, seed: Option<u64>) -> sim::Simulation {
    let r = root();
    let doc =
        policy_tools::source::load(&mut NativeEngine, &format!("{r}/scenarios/design-note.toml")).unwrap().document;
    let sc = Scenario::read(&format!("{r}/scenarios/{name}.toml")).unwrap();
    sim::simulate(&mut NativeEngine, &doc, &sc, seed).unwrap()
}

#[test]
fn the_same_seed_gives_the_same_storm_and_another_seed_another() {
    let a = simulate("patterns", Some(1));
    assert_eq!(a, simulate("patterns", Some(1)));
    assert_ne!(a.runs[0].endpoints, simulate("patterns", Some(2)).runs[0].endpoints);
}

#[test]
fn the_flip_is_a_few_max_attempts_exhausted_then_a_flood_of_retry_budget_exhausted() {
    let s = simulate("flip", None);
    let broken = s.runs[0].endpoints.iter().find(|e| e.id == "ep_broken").unwrap();
    let before = broken.first_stops.iter().take_while(|r| **r != StopReason::RetryBudgetExhausted).count();
    assert!(broken.first_stops[..before].contains(&StopReason::MaxAttemptsExhausted), "{:?}", broken.first_stops);
    assert!((1..30).contains(&before), "{before}");
    let dead: u64 = broken.dead.iter().sum();
    assert!(broken.dead[3] as f64 > 0.95 * dead as f64, "{:?}", broken.dead);
    let ok = s.runs[0].endpoints.iter().find(|e| e.id == "ep_ok").unwrap();
    assert_eq!(ok.delivered, ok.events, "the healthy endpoint keeps delivering");
}

#[test]
fn fixed_windows_burst_after_each_rollover_and_the_sliding_estimate_does_not() {
    let s = simulate("sawtooth", None);
    let until = s.scenario.duration_s as usize;
    let peak = |i: usize| output::peak_window_share(&s.runs[i], 10, 20, 60, until);
    assert!(peak(0) > 0.3, "fixed: {}", peak(0));
    assert!(peak(1) < 0.2, "sliding: {}", peak(1));
}

#[test]
fn twelve_per_replica_budgets_let_far_more_retries_through_than_one_shared() {
    let s = simulate("replicas", None);
    let (shared, local) = (output::failing_share(&s.runs[0]), output::failing_share(&s.runs[1]));
    assert!(shared < 0.15, "shared {shared}");
    assert!(local > 0.5, "per replica {local}");
}

#[test]
fn the_series_adds_up_to_the_totals() {
    let s = simulate("patterns", None);
    let run = &s.runs[0];
    let attempts: u64 = run.series.0.iter().map(|x| x.attempts).sum();
    assert_eq!(attempts, run.endpoints.iter().map(|e| e.attempts).sum::<u64>());
    let csv = output::csv(run);
    assert_eq!(csv.lines().count(), run.series.0.len() + 1);
    assert!(csv.starts_with("t_s,attempts,first_attempts,retries,retry_share"));
}

#[test]
fn the_charts_are_svg_with_the_ratio_and_every_variant() {
    let s = simulate("sawtooth", None);
    let svg = policy_tools::charts::share_svg("t", &s.runs).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("ratio 0.1") && svg.contains("fixed") && svg.contains("sliding"));
    let stops = policy_tools::charts::stops_svg("t", &s.runs[0]).unwrap();
    assert!(stops.contains("retry_budget_exhausted"));
}

#[test]
fn simulating_a_document_with_health_says_its_sections_run_as_format_2() {
    let r = common::root();
    let sc = format!("{r}/scenarios/health-endpoints.toml");
    let (code, out) = common::run(
        policy_tools::commands::simulate,
        &["--policy", &format!("{r}/scenarios/policies/design-note-health.toml"), "--scenario", &sc],
    );
    assert_eq!(code, 0);
    assert!(out.contains("note: 3 classes carry a health section; this runs them as format 2"), "{out}");
    let (_, out) = common::run(
        policy_tools::commands::simulate,
        &["--policy", &format!("{r}/scenarios/design-note.toml"), "--scenario", &sc],
    );
    assert!(!out.contains("note:"), "{out}");
}

#[test]
fn every_figure_of_a_run_is_what_the_engines_counted() {
    let s = simulate("flip", None);
    let run = &s.runs[0];
    assert_eq!(run.unfinished, 0, "every event ended, so every send was answered");
    let c = |k: &str| run.counters.get(k).copied().unwrap_or(0);
    let sum = |f: fn(&sim::EndpointTotals) -> u64| run.endpoints.iter().map(f).sum::<u64>();
    assert_eq!(sum(|e| e.attempts - e.retries), c("webhook_attempts_total{kind=first}"));
    assert_eq!(sum(|e| e.retries), c("webhook_attempts_total{kind=retry}"));
    assert_eq!(sum(|e| e.delivered), c("webhook_delivered_total"));
    for (i, reason) in sim::series::DEAD.iter().enumerate() {
        let key = format!("webhook_deadletter_total{{stop_reason={}}}", reason.as_str());
        assert_eq!(run.endpoints.iter().map(|e| e.dead[i]).sum::<u64>(), c(&key), "{key}");
    }
    assert!(c("webhook_budget_refusals_total") > 0, "{:?}", run.counters);
}

#[test]
fn a_scenario_that_bounds_the_replicas_in_flight_sends_fewer_at_once() {
    let r = root();
    let doc =
        policy_tools::source::load(&mut NativeEngine, &format!("{r}/scenarios/design-note.toml")).unwrap().document;
    let text = std::fs::read_to_string(format!("{r}/scenarios/patterns.toml")).unwrap();
    let free = Scenario::parse("p.toml", &text).unwrap();
    let bound = Scenario::parse("p.toml", &format!("max_in_flight = 1\n{text}")).unwrap();
    let (a, b) = (
        sim::simulate(&mut NativeEngine, &doc, &free, Some(1)).unwrap(),
        sim::simulate(&mut NativeEngine, &doc, &bound, Some(1)).unwrap(),
    );
    let events = |s: &sim::Simulation| s.runs[0].endpoints.iter().map(|e| e.events).sum::<u64>();
    assert_eq!(events(&a), events(&b), "the same arrivals");
    assert_ne!(a.runs[0].series, b.runs[0].series, "one send at a time waits for each answer");
    assert!(Scenario::parse("p.toml", &format!("max_in_flight = 0\n{text}")).unwrap_err().contains("max_in_flight"));
}

#[test]
fn a_scenario_naming_a_class_the_policy_lacks_is_refused_with_the_class_named() {
    let r = root();
    let doc =
        policy_tools::source::load(&mut NativeEngine, &format!("{r}/scenarios/design-note.toml")).unwrap().document;
    let text =
        std::fs::read_to_string(format!("{r}/scenarios/flip.toml")).unwrap().replace("\"notification\"", "\"nope\"");
    let sc = Scenario::parse("f.toml", &text).unwrap();
    let e = sim::simulate(&mut NativeEngine, &doc, &sc, None).unwrap_err();
    assert!(e.starts_with("scenario traffic names class `nope`, which the policy does not define"), "{e}");
}
