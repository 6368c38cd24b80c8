//! The `health` part of `diff`: one class's effective sections compared
//! field by field. The engine expanded the defaults, so a field omitted on
//! one side and written out with its default on the other is no change.
//! Each change says what it does to held events, probes and the release.

use std::cmp::Ordering;

use retry_policy_core::health::Health;

use super::Change;
use crate::human::ms;

/// What a field's value going up, or down, does.
struct Effect {
    up: &'static str,
    down: &'static str,
}

/// `(field, value as text, value as a number for the direction, effect)`.
type Row = (&'static str, String, f64, Effect);

fn flag(b: bool) -> String {
    if b { "true" } else { "false" }.to_string()
}

fn rows(h: &Health) -> Vec<Row> {
    let mut out: Vec<Row> = vec![
        (
            "health.hold_budget_refusals",
            flag(h.hold_budget_refusals),
            f64::from(u8::from(h.hold_budget_refusals)),
            Effect {
                up: "a retry the budget refuses is held, not dead-lettered: more held, fewer retry_budget_exhausted",
                down: "a retry the budget refuses dead-letters retry_budget_exhausted again (format 2): fewer held, more dead letters",
            },
        ),
        (
            "health.pause.max_ms",
            ms(h.pause_max_ms),
            h.pause_max_ms as f64,
            Effect {
                up: "longer Retry-After pauses are honoured: more held, fewer requests to a rate-limited endpoint",
                down: "Retry-After pauses are cut shorter (0: off): less held, earlier requests to a rate-limited endpoint",
            },
        ),
    ];
    out.push((
        "health.circuit",
        if h.circuit.is_some() { "present" } else { "null" }.to_string(),
        f64::from(u8::from(h.circuit.is_some())),
        Effect {
            up: "a failing endpoint's circuit opens: events held through cooldowns, then probes",
            down: "no circuit: a failing endpoint is never held (only pauses and budget refusals hold), no probes",
        },
    ));
    if let Some(c) = &h.circuit {
        out.extend([
            (
                "health.circuit.failure_ratio",
                c.failure_ratio.to_string(),
                c.failure_ratio,
                Effect {
                    up: "the circuit opens on a higher failure share: opens later, less held, more requests to a failing endpoint",
                    down: "the circuit opens on a lower failure share: opens sooner, more held",
                },
            ),
            (
                "health.circuit.min_sample",
                c.min_sample.to_string(),
                c.min_sample as f64,
                Effect {
                    up: "more attempts before the circuit judges: opens later (never at low rates), less held",
                    down: "fewer attempts before the circuit judges: opens sooner, more held",
                },
            ),
            (
                "health.circuit.cooldown_ms",
                ms(c.cooldown_ms),
                c.cooldown_ms as f64,
                Effect {
                    up: "a longer first wait before probing: more held, fewer probes",
                    down: "a shorter first wait before probing: less held, more probes",
                },
            ),
            (
                "health.circuit.cooldown_max_ms",
                ms(c.cooldown_max_ms),
                c.cooldown_max_ms as f64,
                Effect {
                    up: "failed probes may grow the cooldown further: more held, fewer probes to a long outage",
                    down: "the cooldown stops growing sooner: less held, more probes to a long outage",
                },
            ),
            (
                "health.circuit.probes",
                c.probes.to_string(),
                f64::from(c.probes),
                Effect {
                    up: "more probes per interval, fleet-wide: more requests to a down endpoint, recovery seen sooner",
                    down: "fewer probes per interval: fewer requests to a down endpoint, recovery seen later",
                },
            ),
            (
                "health.circuit.probe_interval_ms",
                ms(c.probe_interval_ms),
                c.probe_interval_ms as f64,
                Effect {
                    up: "probe windows further apart: fewer probes, refused probes hold longer",
                    down: "probe windows closer together: more probes, refused probes hold less",
                },
            ),
        ]);
    }
    out.extend([
        (
            "health.release.multiple",
            h.release.multiple.to_string(),
            h.release.multiple,
            Effect {
                up: "held events leave faster after recovery: higher release rate (up to (1 + multiple) x normal), a backlog drains sooner",
                down: "held events leave slower after recovery: lower release rate, a long outage's backlog may outlive its window",
            },
        ),
        (
            "health.release.floor_per_s",
            h.release.floor_per_s.to_string(),
            h.release.floor_per_s,
            Effect {
                up: "a higher release floor per replica: quiet endpoints' held events leave faster",
                down: "a lower release floor per replica: quiet endpoints' held events leave slower",
            },
        ),
        (
            "health.cache_ms",
            ms(h.cache_ms),
            h.cache_ms as f64,
            Effect {
                up: "no decision changes (draft 3: the gate reads a view whatever its age); policy_hash changes",
                down: "no decision changes (draft 3: the gate reads a view whatever its age); policy_hash changes",
            },
        ),
    ]);
    out
}

/// The section's field changes between `old` and `new` (`None`: no section).
pub fn changes(old: Option<&Health>, new: Option<&Health>) -> Vec<Change> {
    let mut out = Vec::new();
    match (old, new) {
        (None, None) => {}
        (None, Some(h)) | (Some(h), None) => {
            let added = old.is_none();
            out.push(Change {
                field: "health",
                old: if added { "none (format 2)" } else { "section" }.into(),
                new: if added { "section" } else { "none (format 2)" }.into(),
                effect: Some(if added {
                    "events are held, not dropped: budget refusals, pauses and an open circuit hold them inside their window; held events leave through the release pacer".into()
                } else {
                    "format 2: budget refusals dead-letter, nothing is held, no pauses, circuit or probes".into()
                }),
            });
            for (field, value, _, _) in rows(h) {
                let (a, b) = if added { ("-".to_string(), value) } else { (value, "-".to_string()) };
                out.push(Change { field, old: a, new: b, effect: None });
            }
        }
        (Some(a), Some(b)) => {
            let rb = rows(b);
            let ra = rows(a);
            for (field, va, na, effect) in &ra {
                let (vb, nb) = match rb.iter().find(|r| r.0 == *field) {
                    Some((_, v, n, _)) => (v.clone(), *n),
                    None => ("-".to_string(), f64::NAN),
                };
                if *va != vb {
                    let e = match nb.partial_cmp(na) {
                        Some(Ordering::Greater) => Some(effect.up.to_string()),
                        Some(Ordering::Less) => Some(effect.down.to_string()),
                        _ => None,
                    };
                    out.push(Change { field, old: va.clone(), new: vb, effect: e });
                }
            }
            for (field, vb, _, _) in rb.iter().filter(|r| !ra.iter().any(|x| x.0 == r.0)) {
                out.push(Change { field, old: "-".into(), new: vb.clone(), effect: None });
            }
        }
    }
    out
}
