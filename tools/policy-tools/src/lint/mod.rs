//! `lint`: what a policy document will do that its authors may not mean.
//!
//! Every number in a finding comes from the engine (the plan) or, for what
//! ABI 1.0 no longer exports, from policy-core itself (the ceilings, the
//! budget's verdicts: the same code the component runs); the rules only
//! compare them. The rule table:
//!
//! | rule | severity | fires when |
//! |---|---|---|
//! | `unknown_key`, `duplicate_key`, `invalid_*` | error | the engine (or the syntax) refuses the document |
//! | `hard_cap_cuts_schedule` | error | `limited_by = hard_cap`: the window's promise is not used up |
//! | `first_retry_misses_window` | error / warning | no retry fits (`max_attempts` 1) / the first retry's ceiling exceeds the window |
//! | `cap_longer_than_window` | warning | `cap_ms > window_ms` |
//! | `worst_case_beyond_window` | warning (> 1.5x) / info | delays on their ceilings put planned attempts past the window |
//! | `budget_window_longer_than_class` | warning | the budget judges on counts older than any event of the class |
//! | `min_sample_no_retry_at_floor` | warning | at the sample floor not even one retry fits the ratio |
//! | `min_sample_too_low` | error / warning | at the given rate the budget refuses a quiet endpoint's first retries |
//! | `min_sample_too_high` | warning | at the given rate the budget never engages, or only far above the ratio |
//! | `fixed_window_sawtooth` | warning | `sliding = false`: every rollover hands out a fresh allowance |
//!
//! Format 3 (`health`, docs/health.md; each class's effective section, at
//! `classes.<name>.health.*` or, document-wide, `health.*`):
//!
//! | rule | severity | fires when |
//! |---|---|---|
//! | `health_cache_ms_has_no_effect` | info | `cache_ms` written out: since draft 3 the gate reads a view of any age (finding 1), the field changes no decision |
//! | `health_pause_outlives_window` | warning | `pause.max_ms >= window_ms`: a pause that outlives every event |
//! | `health_release_cannot_drain` | warning | the release (its multiple, or at a `--rate` with the floor) cannot drain an outage of 2/3 of the window (finding 5) |
//! | `health_floor_cannot_drain_backlog` | warning | at a `--rate`, once arrivals stop the backlog's need (capped at 100 x `release.floor_per_s`) cannot release an outage of 2/3 of the window inside it |
//! | `health_circuit_sample_above_budget` | warning | `circuit.min_sample` above the budget's: throttled, never opened |
//! | `health_cooldown_outlives_window` | error / warning | `cooldown_ms` / `cooldown_max_ms >= window_ms` |
//! | `health_drops_budget_refusals` | warning | `hold_budget_refusals = false`: budget refusals dead-letter (format 2) |
//! | `health_class_opts_out` | info | a class's `"health": null` while the document has a section |

mod budget;
pub mod health;
mod render;
mod rules;

use std::collections::BTreeMap;

pub use render::{json as render_json, text as render_text};

use crate::engine::{DecisionSource, EngineError};
use crate::source::{self, Read, Unreadable};

/// How bad a finding is. Errors make `lint` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One thing lint has to say, about one field.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub severity: Severity,
    pub rule: &'static str,
    /// Dotted path in the document, e.g. `classes.ledger.hard_cap`.
    pub field: String,
    /// One line: what happens, and why it matters.
    pub message: String,
    /// The numbers behind the message.
    pub numbers: BTreeMap<&'static str, serde_json::Value>,
}

impl Finding {
    pub fn new(severity: Severity, rule: &'static str, field: impl Into<String>, message: impl Into<String>) -> Self {
        Finding { severity, rule, field: field.into(), message: message.into(), numbers: BTreeMap::new() }
    }

    pub fn with(mut self, key: &'static str, value: impl Into<serde_json::Value>) -> Self {
        self.numbers.insert(key, value.into());
        self
    }
}

/// An expected traffic rate (`--rate KEY=N/s`): KEY is a class name, or an
/// endpoint id (then it is checked against every class).
#[derive(Debug, Clone, PartialEq)]
pub struct Rate {
    pub key: String,
    pub per_s: f64,
}

impl Rate {
    /// `ep_42=0.5/s`, `ledger=20` (per second either way).
    pub fn parse(text: &str) -> Result<Rate, String> {
        let (key, value) = text.split_once('=').ok_or_else(|| format!("--rate `{text}`: expected KEY=N/s"))?;
        let number = value.trim().strip_suffix("/s").unwrap_or(value.trim());
        let per_s: f64 = number.parse().map_err(|_| format!("--rate `{text}`: `{value}` is not a rate (N/s)"))?;
        if key.is_empty() || !(per_s.is_finite() && per_s > 0.0) {
            return Err(format!("--rate `{text}`: needs a name and a positive rate"));
        }
        Ok(Rate { key: key.to_string(), per_s })
    }
}

/// The findings for one document, most severe first.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub path: String,
    pub classes: Vec<String>,
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }

    /// 0 without errors, 1 with.
    pub fn exit_code(&self) -> u8 {
        u8::from(self.count(Severity::Error) > 0)
    }
}

fn refusal(err: &EngineError, within: &str) -> Finding {
    match err {
        EngineError::Refused(e) => {
            let rule = if e.message.contains("unknown field") {
                "unknown_key"
            } else if e.message.contains("defined twice") || e.message.contains("duplicate key") {
                "duplicate_key"
            } else {
                e.code.as_str()
            };
            let field = if e.field.is_empty() { within.to_string() } else { e.field.clone() };
            Finding::new(Severity::Error, rule, field, format!("{}: {}", e.code.as_str(), e.message))
        }
        EngineError::Failed(m) => Finding::new(Severity::Error, "engine_failed", within, m.clone()),
    }
}

/// Lint the document at `path`. `Err` means unreadable (exit 2).
pub fn lint_file(engine: &mut dyn DecisionSource, path: &str, rates: &[Rate]) -> Result<Report, Unreadable> {
    lint_read(engine, path, source::read(path)?, rates)
}

/// Lint document text; `path` names it and picks the syntax (TOML when it
/// ends in `.toml`, else JSON). For callers without files (the JS tools).
pub fn lint_text(
    engine: &mut dyn DecisionSource,
    path: &str,
    text: &str,
    rates: &[Rate],
) -> Result<Report, Unreadable> {
    lint_read(engine, path, source::parse(path, text)?, rates)
}

fn lint_read(engine: &mut dyn DecisionSource, path: &str, read: Read, rates: &[Rate]) -> Result<Report, Unreadable> {
    let mut report = Report { path: path.to_string(), classes: Vec::new(), findings: Vec::new() };
    let src = match read {
        Read::Duplicate { message, field } => {
            report.findings.push(Finding::new(Severity::Error, "duplicate_key", field, message));
            return Ok(report);
        }
        Read::Document(src) => src,
    };
    let (classes, sections) = match engine.load_health_document(&src.json) {
        Ok(doc) => (doc.document.classes, doc.health),
        Err(whole) => {
            // Load each class alone: every bad class is reported, the good
            // ones are still linted (a bad top-level section is the whole
            // document's error, reported once).
            let (mut good, mut sections) = (Vec::new(), Vec::new());
            let mut placed = false;
            for (name, one) in source::split_classes(&src.tree) {
                match engine.load_health_document(&one) {
                    Ok(doc) => {
                        good.extend(doc.document.classes);
                        sections.extend(doc.health);
                    }
                    Err(e) => {
                        let f = refusal(&e, &format!("classes.{name}"));
                        placed |= matches!(&whole, EngineError::Refused(w) if w.field == f.field);
                        report.findings.push(f);
                    }
                }
            }
            if !placed {
                report.findings.insert(0, refusal(&whole, ""));
            }
            (good, sections)
        }
    };
    let names: Vec<String> = source::split_classes(&src.tree).into_iter().map(|(n, _)| n).collect();
    for (name, policy) in &classes {
        report.classes.push(name.clone());
        let facts = rules::ClassFacts::gather(engine, name, policy).map_err(|e| Unreadable(e.to_string()))?;
        report.findings.extend(rules::check(engine, &facts).map_err(|e| Unreadable(e.to_string()))?);
        report.findings.extend(budget::check(&facts, rates, &names).map_err(|e| Unreadable(e.to_string()))?);
        let section = sections.iter().find(|(n, _)| n == name).and_then(|(_, h)| h.as_ref());
        report.findings.extend(health::check(&facts, &src.tree, section, rates, &names));
    }
    report.findings.sort_by_key(|f| f.severity);
    Ok(report)
}
