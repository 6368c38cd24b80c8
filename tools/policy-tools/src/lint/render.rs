//! Lint reports as text (one line per finding) or JSON (for CI).

use std::fmt::Write as _;

use super::{Report, Severity};

/// `SEVERITY  FIELD  RULE: message`, then a count line.
pub fn text(r: &Report) -> String {
    let mut out = String::new();
    let width = r.findings.iter().map(|f| f.field.len()).max().unwrap_or(0);
    for f in &r.findings {
        let _ = writeln!(out, "{:<7}  {:<width$}  {}: {}", f.severity.as_str(), f.field, f.rule, f.message);
    }
    let _ = writeln!(
        out,
        "{}: {} classes, {} errors, {} warnings, {} infos",
        r.path,
        r.classes.len(),
        r.count(Severity::Error),
        r.count(Severity::Warning),
        r.count(Severity::Info)
    );
    out
}

/// `{file, classes, errors, warnings, infos, findings: [{severity, rule, field, message, numbers}]}`.
pub fn json(r: &Report) -> String {
    let findings: Vec<serde_json::Value> = r
        .findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "severity": f.severity.as_str(),
                "rule": f.rule,
                "field": f.field,
                "message": f.message,
                "numbers": f.numbers,
            })
        })
        .collect();
    let v = serde_json::json!({
        "file": r.path,
        "classes": r.classes,
        "errors": r.count(Severity::Error),
        "warnings": r.count(Severity::Warning),
        "infos": r.count(Severity::Info),
        "findings": findings,
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
