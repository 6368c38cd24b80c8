//! wasmdiff's ABI 0.3 half: the compiled policy's lifecycle and format 3's
//! functions through the component (the Rust host's `compile`, `advance`,
//! `finish`, `gate`, ... and `apply_call`), against
//! `retry_policy_fuzz_ops::native_health` on the same [`HealthCase`].
//!
//! Handles: each case compiles once and drops its `CompiledPolicy` at the
//! end, so the next `compile` discards it first (the table's slots are
//! reused with a new generation, 200k times a run). A stale case compiles
//! in a second instance and uses that handle here: refused
//! (`invalid_input`, `handle`) without reaching the component, which is the
//! host's rule for a handle of another (or a replaced) instance.

use retry_policy_core::document::Admission;
use retry_policy_core::health::{self, Health, HealthDocument, Release};
use retry_policy_core::plan::{LimitedBy, Plan};
use retry_policy_fuzz_ops::health::{call_of, Handle};
use retry_policy_fuzz_ops::{native_health, refusal, HealthAnswers, HealthCase, Refusal};
use retry_policy_host::{CompiledPolicy, PolicyInstance};

use super::{host, Tally};

fn admission(a: retry_policy_host::Admission) -> Admission {
    let s = a.schedule;
    Admission {
        class: a.class,
        policy_version: a.policy_version,
        policy_hash: a.policy_hash,
        first_attempted_at_ms: a.first_attempted_at_ms,
        deadline_ms: a.deadline_ms,
        plan: Plan {
            max_attempts: s.max_attempts,
            expected_span_ms: s.expected_span_ms,
            offsets_ms: s.offsets_ms,
            worst_case_span_ms: s.worst_case_span_ms,
            limited_by: if format!("{:?}", s.limited_by).contains("HardCap") {
                LimitedBy::HardCap
            } else {
                LimitedBy::Window
            },
        },
    }
}

/// Every answer through the component (`other`: the instance a stale case's handle comes from).
pub fn component(inst: &mut PolicyInstance, other: &mut PolicyInstance, h: &HealthCase, t: &mut u64) -> HealthAnswers {
    let c = &h.case;
    let compiled: Result<CompiledPolicy, Refusal> = match h.handle {
        Handle::Live => host(inst.compile(&c.policy, h.health.as_ref()), t, "compile"),
        Handle::Stale => host(other.compile(&c.policy, h.health.as_ref()), t, "compile (other instance)"),
    };
    macro_rules! on {
        ($what:literal, |$p:ident| $call:expr) => {
            match &compiled {
                Ok($p) => host($call, t, $what),
                Err(e) => Err(e.clone()),
            }
        };
    }
    let now = c.now_ms;
    let advance = on!("advance", |p| inst.advance(p, &c.state, &c.outcome, h.probe, now));
    let call_for = on!("call_for", |p| inst.call_for(p, h.call_op, &c.state.endpoint_id, now));
    let apply = match call_of(&advance, &call_for) {
        Some(call) => host(inst.apply_call(&call, now, &h.held), t, "apply_call"),
        None => Err(Refusal { code: "skipped", field: String::new() }),
    };
    let view = h.view.unwrap_or_default();
    let release = h.health.map_or_else(Release::default, |s| s.release);
    let section = h.health.unwrap_or_default();
    let held = &h.held.buckets;
    HealthAnswers {
        compile: compiled.as_ref().map(|_| ()).map_err(Clone::clone),
        admit: on!("admit_compiled", |p| inst.admit_compiled(p, "class", "v1", now)).map(admission),
        advance,
        finish: on!("finish", |p| inst.finish(p, &c.state, &c.outcome, now, &c.reply)),
        apply,
        gate: on!("gate", |p| inst.gate(p, &h.event, h.view.as_ref(), &h.pacer, now)),
        after_probe: on!("after_probe", |p| inst.after_probe(p, &h.event, h.granted, &view, &h.pacer, now)),
        settle_wake: on!("settle_wake", |p| inst.settle_wake(p, &h.wake, &c.reply, now)),
        call_for,
        pace: host(inst.pace(&release, &h.pacer, now), t, "pace"),
        normal_per_s: host(
            inst.normal_per_s(&c.policy.budget, now, held.current.total, held.previous.total),
            t,
            "normal_per_s",
        ),
        health_outcome: host(inst.health_outcome_of(&c.outcome), t, "health_outcome_of"),
        pause_until: host(inst.pause_until(&section, &c.outcome, now), t, "pause_until"),
    }
}

/// Compare one case; prints each answer that differs.
pub fn compare(inst: &mut PolicyInstance, other: &mut PolicyInstance, h: &HealthCase, t: &mut Tally, label: &str) {
    let a = native_health(h);
    let b = component(inst, other, h, &mut t.traps);
    t.health_cases += 1;
    t.compiled += u64::from(b.compile.is_ok());
    t.applied += u64::from(b.apply.is_ok());
    if a == b {
        return;
    }
    t.disagreements += 1;
    let pairs: [(&str, String, String); 13] = [
        ("compile", format!("{:?}", a.compile), format!("{:?}", b.compile)),
        ("admit_compiled", format!("{:?}", a.admit), format!("{:?}", b.admit)),
        ("advance", format!("{:?}", a.advance), format!("{:?}", b.advance)),
        ("finish", format!("{:?}", a.finish), format!("{:?}", b.finish)),
        ("apply_call", format!("{:?}", a.apply), format!("{:?}", b.apply)),
        ("gate", format!("{:?}", a.gate), format!("{:?}", b.gate)),
        ("after_probe", format!("{:?}", a.after_probe), format!("{:?}", b.after_probe)),
        ("settle_wake", format!("{:?}", a.settle_wake), format!("{:?}", b.settle_wake)),
        ("call_for", format!("{:?}", a.call_for), format!("{:?}", b.call_for)),
        ("pace", format!("{:?}", a.pace), format!("{:?}", b.pace)),
        ("normal_per_s", format!("{:?}", a.normal_per_s), format!("{:?}", b.normal_per_s)),
        ("health_outcome", format!("{:?}", a.health_outcome), format!("{:?}", b.health_outcome)),
        ("pause_until", format!("{:?}", a.pause_until), format!("{:?}", b.pause_until)),
    ];
    for (op, x, y) in pairs.iter().filter(|(_, x, y)| x != y) {
        println!("DISAGREE {label} {op}: native {x} vs wasmtime {y}\n  case {h:?}");
    }
}

fn f(x: f64) -> String {
    if x.is_finite() {
        format!("{x:?}")
    } else {
        "1e999".into()
    }
}

/// A section as JSON (every field).
fn section_json(s: &Health) -> String {
    let circuit = s.circuit.map_or("null".into(), |c| {
        format!(
            "{{\"failure_ratio\": {}, \"min_sample\": {}, \"cooldown_ms\": {}, \"cooldown_max_ms\": {}, \"probes\": {}, \"probe_interval_ms\": {}}}",
            f(c.failure_ratio), c.min_sample, c.cooldown_ms, c.cooldown_max_ms, c.probes, c.probe_interval_ms
        )
    });
    format!(
        "{{\"hold_budget_refusals\": {}, \"pause\": {{\"max_ms\": {}}}, \"circuit\": {circuit}, \"release\": {{\"multiple\": {}, \"floor_per_s\": {}}}, \"cache_ms\": {}}}",
        s.hold_budget_refusals, s.pause_max_ms, f(s.release.multiple), f(s.release.floor_per_s), s.cache_ms
    )
}

type Class = (String, retry_policy_core::Policy, Option<Health>, String, Vec<u64>);

/// `doc` (a format-2 document's text ending in `}}` of its one class) with the case's section in its class.
pub fn compare_doc(inst: &mut PolicyInstance, doc: &str, h: &HealthCase, t: &mut Tally, label: &str) {
    let Some(s) = &h.health else { return };
    let Some(head) = doc.strip_suffix("}}") else { return };
    let text = format!("{head}, \"health\": {}}}}}", section_json(s));
    t.docs += 1;
    let a: Result<(String, Vec<Class>), Refusal> = HealthDocument::from_json(&text)
        .map(|d| {
            let classes = d
                .health
                .iter()
                .map(|(name, hs)| {
                    let p = *d.document.class(name).expect("a parsed class");
                    let hash = format!("{:016x}", health::policy_hash(&p, hs.as_ref()));
                    (name.clone(), p, *hs, hash, hs.map(|x| x.hash_words()).unwrap_or_default())
                })
                .collect();
            (d.document.version.clone(), classes)
        })
        .map_err(refusal);
    let b = host(inst.load_health_document(&text), &mut t.traps, "load_health_document").map(|d| {
        let classes =
            d.classes.into_iter().map(|c| (c.name, c.policy, c.health, c.policy_hash, c.hash_words)).collect();
        (d.version, classes)
    });
    if a != b {
        t.disagreements += 1;
        println!("DISAGREE {label} load_health_document: native {a:?} vs wasmtime {b:?}\n  text {text:?}");
    }
}
