//! wasmdiff's format-3 half: a case's document with the case's `health`
//! section through the component's `load-health-document` against
//! `HealthDocument::from_json` (the only format-3 function ABI 1.0 exports;
//! its other pieces run through `vector-case` in `tests/differential/run`).

use retry_policy_core::health::{self, Health, HealthDocument};
use retry_policy_fuzz_ops::{refusal, HealthCase, Refusal};
use retry_policy_host::PolicyInstance;

use super::{host, Tally};

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
