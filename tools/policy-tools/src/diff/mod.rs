//! `diff`: per class, what changes for events admitted after a policy change.
//! Events already admitted keep the schedule they were admitted under.
//! Format 3: each class's effective `health` section, field by field with
//! the defaults expanded, and what each change does ([`health`]).

pub mod health;

use std::fmt::Write as _;

use retry_policy_core::health::{Health, HealthDocument};
use retry_policy_core::{Plan, Policy};

use crate::engine::{DecisionSource, EngineError};
use crate::human::ms;

/// One class in OLD, NEW or both.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassDiff {
    pub class: String,
    pub old: Option<(Policy, Plan)>,
    pub new: Option<(Policy, Plan)>,
    /// The class's effective section on each side (`None`: format 2, or no such class).
    pub old_health: Option<Health>,
    pub new_health: Option<Health>,
}

/// One compared quantity that differs, and what the change does (health fields).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub field: &'static str,
    pub old: String,
    pub new: String,
    pub effect: Option<String>,
}

impl ClassDiff {
    pub fn status(&self) -> &'static str {
        match (&self.old, &self.new) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            (Some(a), Some(b)) if a == b && self.old_health == self.new_health => "unchanged",
            _ => "changed",
        }
    }

    /// Every compared quantity that differs: the format-2 fields, then the
    /// health section's (only for a class on both sides).
    pub fn changes(&self) -> Vec<Change> {
        let row = |x: &Option<(Policy, Plan)>| x.as_ref().map(fields).unwrap_or_default();
        let (a, b) = (row(&self.old), row(&self.new));
        let mut out = Vec::new();
        for i in 0..a.len().max(b.len()) {
            let name = a.get(i).or(b.get(i)).map(|x| x.0).unwrap_or("");
            let va = a.get(i).map(|x| x.1.clone()).unwrap_or_else(|| "-".into());
            let vb = b.get(i).map(|x| x.1.clone()).unwrap_or_else(|| "-".into());
            if va != vb {
                out.push(Change { field: name, old: va, new: vb, effect: None });
            }
        }
        if self.old.is_some() && self.new.is_some() {
            out.extend(health::changes(self.old_health.as_ref(), self.new_health.as_ref()));
        }
        out
    }
}

fn fields((p, plan): &(Policy, Plan)) -> Vec<(&'static str, String)> {
    let b = &p.budget;
    vec![
        ("window", ms(p.window_ms)),
        ("max_attempts", plan.max_attempts.to_string()),
        ("expected_span", ms(plan.expected_span_ms)),
        ("worst_case_span", ms(plan.worst_case_span_ms)),
        ("limited_by", plan.limited_by.as_str().to_string()),
        ("hard_cap", p.hard_cap.to_string()),
        (
            "backoff",
            format!(
                "base {} x{} cap {} {}",
                ms(p.backoff.base_ms),
                p.backoff.factor,
                ms(p.backoff.cap_ms),
                p.backoff.jitter.as_str()
            ),
        ),
        (
            "budget",
            format!(
                "{} over {} min_sample {} {}",
                b.ratio,
                ms(b.window_ms),
                b.min_sample,
                if b.sliding { "sliding" } else { "fixed" }
            ),
        ),
    ]
}

/// A class name with its policy, plan and section.
type Planned = (String, (Policy, Plan), Option<Health>);

fn planned(engine: &mut dyn DecisionSource, doc: &HealthDocument) -> Result<Vec<Planned>, EngineError> {
    doc.document
        .classes
        .iter()
        .map(|(n, p)| {
            let h = doc.health.iter().find(|(m, _)| m == n).and_then(|(_, h)| *h);
            Ok((n.clone(), (*p, engine.plan(&p.backoff, p.window_ms, p.hard_cap)?), h))
        })
        .collect()
}

/// Compare two documents class by class (OLD's order, then NEW's additions).
pub fn diff(
    engine: &mut dyn DecisionSource,
    old: &HealthDocument,
    new: &HealthDocument,
) -> Result<Vec<ClassDiff>, EngineError> {
    let (a, b) = (planned(engine, old)?, planned(engine, new)?);
    let find = |v: &[Planned], n: &str| v.iter().find(|(m, _, _)| m == n).cloned();
    let mut out: Vec<ClassDiff> = a
        .iter()
        .map(|(n, x, h)| {
            let other = find(&b, n);
            ClassDiff {
                class: n.clone(),
                old: Some(x.clone()),
                new: other.as_ref().map(|o| o.1.clone()),
                old_health: *h,
                new_health: other.and_then(|o| o.2),
            }
        })
        .collect();
    for (n, x, h) in &b {
        if find(&a, n).is_none() {
            out.push(ClassDiff { class: n.clone(), old: None, new: Some(x.clone()), old_health: None, new_health: *h });
        }
    }
    Ok(out)
}

/// Text: one block per class, `field: old -> new` for each change.
pub fn render_text(diffs: &[ClassDiff]) -> String {
    let mut out = String::new();
    for d in diffs {
        let _ = writeln!(out, "{}: {}", d.class, d.status());
        let changes = d.changes();
        let width = changes.iter().map(|c| c.field.len()).max().unwrap_or(0).max(16);
        for c in changes {
            let _ = writeln!(out, "  {:<width$} {} -> {}", c.field, c.old, c.new);
            if let Some(effect) = &c.effect {
                let _ = writeln!(out, "  {:<width$} => {effect}", "");
            }
        }
        if let (Some((_, pa)), Some((_, pb))) = (&d.old, &d.new) {
            if pa.limited_by != pb.limited_by || pa.max_attempts != pb.max_attempts {
                let _ = writeln!(
                    out,
                    "  => events admitted after the change get {} attempts (was {}), the last expected at {} (was {})",
                    pb.max_attempts,
                    pa.max_attempts,
                    ms(pb.expected_span_ms),
                    ms(pa.expected_span_ms)
                );
            }
        }
    }
    let changed = diffs.iter().filter(|d| d.status() != "unchanged").count();
    let _ = writeln!(out, "{changed} of {} classes change; events already admitted keep their schedule", diffs.len());
    out
}

/// JSON: `[{class, status, changes: [{field, old, new, effect?}]}]` (`effect`
/// on health fields only).
pub fn render_json(diffs: &[ClassDiff]) -> String {
    let v: Vec<serde_json::Value> = diffs
        .iter()
        .map(|d| {
            let changes: Vec<serde_json::Value> = d
                .changes()
                .into_iter()
                .map(|c| {
                    let mut v = serde_json::json!({"field": c.field, "old": c.old, "new": c.new});
                    if let Some(e) = c.effect {
                        v["effect"] = e.into();
                    }
                    v
                })
                .collect();
            serde_json::json!({"class": d.class, "status": d.status(), "changes": changes})
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
