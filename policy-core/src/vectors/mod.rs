//! The conformance vectors (formats 1 and 2 of docs/contract.md, format 3
//! of docs/health.md section 7) run through a [`Host`]: policy-core itself
//! ([`Native`], the reference) or a host's binding of the component. The
//! decoding of inputs, encoding of answers and comparison live here once;
//! a host only answers the ops. The component exports [`check_case`] on
//! [`Native`] as `vector-case`, so every runtime that loads the artifact
//! runs every case inside it, whatever that host's own glue still binds.
//!
//! Vectors need only a JSON parser. A case with an unknown `op`, or an
//! input with an unknown or missing field, is a broken vector: it fails,
//! by name.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::codec::Fields;
use crate::error::ErrorCode;
use crate::journal::json_text::to_text;
use crate::json::Value;
use crate::PolicyError;

pub(crate) mod health_ops;
mod host;
mod policy_ops;

pub use health_ops::{answers, same, FORMAT as FORMAT3};
pub use host::{Answer, DocClass, HealthHost, Host, Native};

/// Which kind of vector file a document is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `format` 1 or 2: `{format, suite, cases}`.
    Policy,
    /// `format` "webhook-retry-policy/health-vectors 1": `{format, suite, spec, regenerate, cases}`.
    Health,
}

impl Kind {
    /// The kind of a vector file's `format` value (`None`: not formats 1-3).
    pub fn of(format: &Value) -> Option<Kind> {
        match format {
            Value::String(s) if s == FORMAT3 => Some(Kind::Health),
            v if matches!(v.as_u64(), Some(1 | 2)) => Some(Kind::Policy),
            _ => None,
        }
    }
}

/// A file's cases (the top-level fields checked: unknown ones are an error).
pub fn file_cases(doc: &Value) -> Result<(Kind, Vec<Value>), PolicyError> {
    let shape = |field, message| PolicyError::new(ErrorCode::InvalidInput, field, message);
    let kind = doc
        .get("format")
        .and_then(Kind::of)
        .ok_or_else(|| shape("format", "only formats 1, 2 and webhook-retry-policy/health-vectors 1 are known"))?;
    let keys: &[&str] = match kind {
        Kind::Health => &["format", "suite", "spec", "regenerate", "cases"],
        Kind::Policy => &["format", "suite", "cases"],
    };
    let f = Fields::new(doc, keys)?;
    f.str("suite")?;
    match f.req("cases")? {
        Value::Array(items) => Ok((kind, items.clone())),
        _ => Err(shape("cases", "expected an array")),
    }
}

/// One case (`{name, op, input, expect}`) through `host`: `Ok` when its
/// answer is `expect` (format 3: [`answers`]), else why not.
pub fn check_case(host: &mut dyn Host, kind: Kind, case: &Value) -> Result<(), String> {
    let parts = Fields::new(case, &["name", "op", "input", "expect"])
        .and_then(|f| Ok((f.str("op")?, f.req("input")?, f.req("expect")?)));
    let (op, input, expect) = parts.map_err(|e| format!("broken vector: {e}"))?;
    let actual = match kind {
        Kind::Health => health_ops::run_case(host, op, input)?,
        Kind::Policy => policy_ops::run_case(host, op, input)?,
    };
    let same = match kind {
        Kind::Health => answers(&actual, expect),
        Kind::Policy => actual == *expect,
    };
    if same {
        Ok(())
    } else {
        Err(format!("expected {} got {}", to_text(expect), to_text(&actual)))
    }
}

/// Whether ABI 1.0 still exports the function a vector `op` runs (formats
/// 1-2: `plan`, `classify_status`, `classify_error`, `evaluate`, `settle`,
/// `retry_after`; format 3: `parse_document`, i.e. `load-health-document`).
/// A host of the component binds those through its glue ([`check_case`] on
/// its [`Host`]) and hands every other case, whole, to the component's
/// `vector-case` ([`check_case_text`] inside the artifact): the file's
/// `format` value and the case as JSON text. An unknown op is not exported:
/// `vector-case` refuses it by name, as [`check_case`] would.
pub fn exported(kind: Kind, op: &str) -> bool {
    match kind {
        Kind::Policy => {
            matches!(op, "plan" | "classify_status" | "classify_error" | "evaluate" | "settle" | "retry_after")
        }
        Kind::Health => op == "parse_document",
    }
}

/// A case's name, else `#index`.
pub fn case_name(case: &Value, index: usize) -> String {
    case.get("name").and_then(Value::as_str).map_or_else(|| format!("#{index}"), String::from)
}

/// The component's `vector-case`: a file's `format` value and one case, as
/// JSON text, checked on [`Native`]; the format `"rollout/<group>"` runs a
/// case of `tests/vectors-rollout/rollout.json` ([`crate::rollout::vectors`]).
pub fn check_case_text(format: &str, case: &str) -> Result<(), String> {
    let format = crate::json::parse(format).map_err(|e| format!("broken vector: format: {e}"))?;
    if let Some(group) = format.as_str().and_then(|f| f.strip_prefix("rollout/")) {
        let case = crate::json::parse(case).map_err(|e| format!("broken vector: not JSON: {e}"))?;
        return crate::rollout::vectors::check_case(group, &case);
    }
    let kind = Kind::of(&format).ok_or("broken vector: format: only 1, 2 and health-vectors 1 are known")?;
    let case = crate::json::parse(case).map_err(|e| format!("broken vector: not JSON: {e}"))?;
    check_case(&mut Native, kind, &case)
}

#[cfg(test)]
mod tests;
