//! Policy documents: named event classes, each with its own promise.
//!
//! ```json
//! {
//!   "version": "2026-11-30",
//!   "classes": {
//!     "notification": { "window_ms": 900000,
//!                       "backoff": { "base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full" } },
//!     "ledger": { "window_ms": 86400000, "hard_cap": 16,
//!                 "backoff": { "base_ms": 2000, "factor": 2.0, "cap_ms": 300000 },
//!                 "budget": { "ratio": 0.1, "window_ms": 60000, "min_sample": 50, "sliding": true } }
//!   }
//! }
//! ```
//!
//! Defaults: `hard_cap` 16, `jitter` `full`, and the budget (and each of its
//! fields) 10% / 60 s / 50 / sliding. `max_attempts` is refused: it is
//! derived from the window, never configured beside it.
//!
//! [`PolicyDocument::admit`] returns the schedule an event is admitted under;
//! the host persists it with the event, together with `policy_hash`:
//! FNV-1a 64 over the little-endian u64s `base_ms, factor bits, cap_ms,
//! jitter (0 none, 1 full, 2 equal), window_ms, hard_cap, ratio bits,
//! budget window_ms, min_sample, sliding (0/1)`, printed as 16 hex digits,
//! so an operator can tell which policy an event ran under.

use crate::text::{cat, hex16, list};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::json::Value;

use crate::backoff::{fnv1a64, Backoff, Jitter};
use crate::budget::Budget;
use crate::codec::{self, Fields};
use crate::decide::Policy;
use crate::error::{ErrorCode, PolicyError};
use crate::plan::{plan, Plan};

/// The longest policy document accepted, in bytes of text (1 MiB): a
/// document is a handful of classes; the limit bounds parse time and
/// memory in every host before any parsing starts.
pub const MAX_DOCUMENT_BYTES: usize = 1 << 20;

pub(crate) fn check_size(text: &str) -> Result<(), PolicyError> {
    if text.len() > MAX_DOCUMENT_BYTES {
        return Err(PolicyError::new(
            ErrorCode::DocumentTooLarge,
            "",
            cat(&["a policy document is at most 1048576 bytes; this one has ", &crate::text::dec(text.len() as u64)]),
        ));
    }
    Ok(())
}

/// Hard cap when a class does not set one.
pub const DEFAULT_HARD_CAP: u32 = 16;

/// A validated set of event classes.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyDocument {
    /// The document's own version label (free text, may be empty).
    pub version: String,
    /// In document order; names are unique.
    pub classes: Vec<(String, Policy)>,
}

/// What `admit` hands the host to persist with a new event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Admission {
    pub class: String,
    pub policy_version: String,
    /// See the module docs for how it is computed.
    pub policy_hash: String,
    pub first_attempted_at_ms: u64,
    /// `first_attempted_at_ms + window_ms` (saturating): no attempt starts later.
    pub deadline_ms: u64,
    pub plan: Plan,
}

fn doc_err(e: PolicyError) -> PolicyError {
    match e.code {
        ErrorCode::InvalidInput => PolicyError { code: ErrorCode::InvalidDocument, ..e },
        _ => e,
    }
}

fn backoff(v: &Value) -> Result<Backoff, PolicyError> {
    let f = Fields::new(v, &["base_ms", "factor", "cap_ms", "jitter"])?;
    Ok(Backoff {
        base_ms: f.u64("base_ms")?,
        factor: f.f64("factor")?,
        cap_ms: f.u64("cap_ms")?,
        jitter: match f.opt("jitter") {
            Some(_) => Jitter::parse(f.str("jitter")?)?,
            None => Jitter::Full,
        },
    })
}

fn budget(v: &Value) -> Result<Budget, PolicyError> {
    let f = Fields::new(v, &["ratio", "window_ms", "min_sample", "sliding"])?;
    let d = Budget::default();
    Ok(Budget {
        ratio: if f.opt("ratio").is_some() { f.f64("ratio")? } else { d.ratio },
        window_ms: if f.opt("window_ms").is_some() { f.u64("window_ms")? } else { d.window_ms },
        min_sample: if f.opt("min_sample").is_some() { f.u64("min_sample")? } else { d.min_sample },
        sliding: if f.opt("sliding").is_some() { f.bool("sliding")? } else { d.sliding },
    })
}

fn class(v: &Value) -> Result<Policy, PolicyError> {
    if v.get("max_attempts").is_some() {
        return Err(PolicyError::new(
            ErrorCode::InvalidDocument,
            "max_attempts",
            "max_attempts is derived from window_ms and the backoff; set window_ms (and hard_cap) instead",
        ));
    }
    let f = Fields::new(v, &["window_ms", "hard_cap", "backoff", "budget"])?;
    let policy = Policy {
        window_ms: f.u64("window_ms")?,
        hard_cap: if f.opt("hard_cap").is_some() { f.u32("hard_cap")? } else { DEFAULT_HARD_CAP },
        backoff: f.nested("backoff", backoff)?,
        budget: match f.opt("budget") {
            Some(_) => f.nested("budget", budget)?,
            None => Budget::default(),
        },
    };
    policy.validate()?;
    Ok(policy)
}

impl PolicyDocument {
    /// Validate a parsed JSON (or TOML-converted) value.
    pub fn from_value(v: &Value) -> Result<Self, PolicyError> {
        if crate::json::too_deep(v) {
            return Err(PolicyError::new(ErrorCode::InvalidDocument, "", "nested too deeply (more than 32 levels)"));
        }
        Self::from_shallow_value(v)
    }

    /// [`Self::from_value`] for a value known to be at most 32 deep (JSON
    /// text: the parser refuses deeper nesting), without walking it again.
    fn from_shallow_value(v: &Value) -> Result<Self, PolicyError> {
        let f = Fields::new(v, &["version", "classes"]).map_err(doc_err)?;
        let version = match f.opt("version") {
            Some(_) => f.str("version").map_err(doc_err)?.to_string(),
            None => String::new(),
        };
        let classes_v = f.req("classes").map_err(doc_err)?;
        let Value::Object(map) = classes_v else {
            return Err(PolicyError::new(ErrorCode::InvalidDocument, "classes", "expected an object of event classes"));
        };
        if map.is_empty() {
            return Err(PolicyError::new(ErrorCode::InvalidDocument, "classes", "defines no event class"));
        }
        let mut classes: Vec<(String, Policy)> = Vec::new();
        let mut names = alloc::collections::BTreeSet::new();
        for (name, v) in map {
            if name.is_empty() {
                return Err(PolicyError::new(ErrorCode::InvalidDocument, "classes", "an event class name is empty"));
            }
            if !names.insert(name.as_str()) {
                return Err(PolicyError::new(
                    ErrorCode::InvalidDocument,
                    "classes",
                    cat(&["class `", name, "` is defined twice"]),
                ));
            }
            let p = class(v).map_err(|e| doc_err(e).within(&cat(&["classes.", name])))?;
            classes.push((name.clone(), p));
        }
        Ok(PolicyDocument { version, classes })
    }

    /// Parse and validate JSON text of at most [`MAX_DOCUMENT_BYTES`].
    pub fn from_json(text: &str) -> Result<Self, PolicyError> {
        check_size(text)?;
        Self::from_shallow_value(&crate::json::parse(text)?)
    }

    /// Parse and validate TOML text (`toml` feature).
    #[cfg(feature = "toml")]
    pub fn from_toml(text: &str) -> Result<Self, PolicyError> {
        check_size(text)?;
        let v: Value = toml::from_str(text)
            .map_err(|e| PolicyError::new(ErrorCode::InvalidDocument, "", alloc::format!("not valid TOML: {e}")))?;
        Self::from_value(&v)
    }

    /// The class's policy.
    pub fn class(&self, name: &str) -> Result<&Policy, PolicyError> {
        self.classes.iter().find(|(n, _)| n == name).map(|(_, p)| p).ok_or_else(|| {
            let known: Vec<&str> = self.classes.iter().map(|(n, _)| n.as_str()).collect();
            PolicyError::new(
                ErrorCode::UnknownEventClass,
                "class",
                cat(&["no event class `", name, "` (defined: ", &list(known), ")"]),
            )
        })
    }

    /// The schedule a new event of `class` is admitted under at `now_ms`.
    pub fn admit(&self, class: &str, now_ms: u64) -> Result<Admission, PolicyError> {
        let p = self.class(class)?;
        Ok(Admission {
            class: class.to_string(),
            policy_version: self.version.clone(),
            policy_hash: hex16(policy_hash(p)),
            first_attempted_at_ms: now_ms,
            deadline_ms: now_ms.saturating_add(p.window_ms),
            plan: plan(&p.backoff, p.window_ms, p.hard_cap)?,
        })
    }
}

/// Stable 64-bit fingerprint of a policy (see the module docs).
pub fn policy_hash(p: &Policy) -> u64 {
    let words = [
        p.backoff.base_ms,
        p.backoff.factor.to_bits(),
        p.backoff.cap_ms,
        p.backoff.jitter as u64,
        p.window_ms,
        u64::from(p.hard_cap),
        p.budget.ratio.to_bits(),
        p.budget.window_ms,
        p.budget.min_sample,
        u64::from(p.budget.sliding),
    ];
    let mut bytes = Vec::with_capacity(80);
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    fnv1a64(&bytes)
}

pub fn admission_to_value(a: &Admission) -> Value {
    let mut v = codec::plan_to_value(&a.plan);
    if let Value::Object(m) = &mut v {
        m.push(("class".to_string(), a.class.as_str().into()));
        m.push(("policy_version".to_string(), a.policy_version.as_str().into()));
        m.push(("policy_hash".to_string(), a.policy_hash.as_str().into()));
        m.push(("first_attempted_at_ms".to_string(), a.first_attempted_at_ms.into()));
        m.push(("deadline_ms".to_string(), a.deadline_ms.into()));
    }
    v
}
