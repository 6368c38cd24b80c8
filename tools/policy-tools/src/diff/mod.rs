//! `diff`: per class, what changes for events admitted after a policy change.
//! Events already admitted keep the schedule they were admitted under.

use std::fmt::Write as _;

use retry_policy_core::document::PolicyDocument;
use retry_policy_core::{Plan, Policy};

use crate::engine::{DecisionSource, EngineError};
use crate::human::ms;

/// One class in OLD, NEW or both.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassDiff {
    pub class: String,
    pub old: Option<(Policy, Plan)>,
    pub new: Option<(Policy, Plan)>,
}

impl ClassDiff {
    pub fn status(&self) -> &'static str {
        match (&self.old, &self.new) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            (Some(a), Some(b)) if a == b => "unchanged",
            _ => "changed",
        }
    }

    /// `(name, old, new)` for every compared quantity that differs.
    pub fn changes(&self) -> Vec<(&'static str, String, String)> {
        let row = |x: &Option<(Policy, Plan)>| x.as_ref().map(fields).unwrap_or_default();
        let (a, b) = (row(&self.old), row(&self.new));
        let mut out = Vec::new();
        for i in 0..a.len().max(b.len()) {
            let name = a.get(i).or(b.get(i)).map(|x| x.0).unwrap_or("");
            let va = a.get(i).map(|x| x.1.clone()).unwrap_or_else(|| "-".into());
            let vb = b.get(i).map(|x| x.1.clone()).unwrap_or_else(|| "-".into());
            if va != vb {
                out.push((name, va, vb));
            }
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

/// A class name with its policy and plan.
type Planned = (String, (Policy, Plan));

fn planned(engine: &mut dyn DecisionSource, doc: &PolicyDocument) -> Result<Vec<Planned>, EngineError> {
    doc.classes.iter().map(|(n, p)| Ok((n.clone(), (*p, engine.plan(&p.backoff, p.window_ms, p.hard_cap)?)))).collect()
}

/// Compare two documents class by class (OLD's order, then NEW's additions).
pub fn diff(
    engine: &mut dyn DecisionSource,
    old: &PolicyDocument,
    new: &PolicyDocument,
) -> Result<Vec<ClassDiff>, EngineError> {
    let (a, b) = (planned(engine, old)?, planned(engine, new)?);
    let find = |v: &[Planned], n: &str| v.iter().find(|(m, _)| m == n).map(|(_, x)| x.clone());
    let mut out: Vec<ClassDiff> =
        a.iter().map(|(n, x)| ClassDiff { class: n.clone(), old: Some(x.clone()), new: find(&b, n) }).collect();
    for (n, x) in &b {
        if find(&a, n).is_none() {
            out.push(ClassDiff { class: n.clone(), old: None, new: Some(x.clone()) });
        }
    }
    Ok(out)
}

/// Text: one block per class, `field: old -> new` for each change.
pub fn render_text(diffs: &[ClassDiff]) -> String {
    let mut out = String::new();
    for d in diffs {
        let _ = writeln!(out, "{}: {}", d.class, d.status());
        for (name, a, b) in d.changes() {
            let _ = writeln!(out, "  {name:<16} {a} -> {b}");
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

/// JSON: `[{class, status, changes: [{field, old, new}]}]`.
pub fn render_json(diffs: &[ClassDiff]) -> String {
    let v: Vec<serde_json::Value> = diffs
        .iter()
        .map(|d| {
            let changes: Vec<serde_json::Value> =
                d.changes().into_iter().map(|(f, a, b)| serde_json::json!({"field": f, "old": a, "new": b})).collect();
            serde_json::json!({"class": d.class, "status": d.status(), "changes": changes})
        })
        .collect();
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
