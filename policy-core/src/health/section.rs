//! The `health` section of a policy document (docs/health.md section 1):
//! parsing with defaults, validation, and the words it adds to
//! `policy_hash`.
//!
//! # Where a section comes from
//!
//! A class's section is its own `health` member when it has one (a
//! complete section: omitted fields take the table's defaults, never the
//! top-level section's), else the document's top-level `health` (the
//! default for every class), else none. `"health": null` in a class opts it
//! out; at the top level it is the same as no default.
//!
//! `null` means "none" only there and at `circuit` (no circuit); anywhere
//! else inside a section it is refused (`pause: null` does not turn pauses
//! off: `pause.max_ms: 0` does).
//!
//! # Hash words
//!
//! A policy with a section hashes as format 2's ten words followed by
//! `1, hold_budget_refusals (0/1), pause.max_ms`, then `1` and the six
//! circuit fields in table order (`failure_ratio` by its bits) or a single
//! `0` for a null circuit, then `release.multiple` bits,
//! `release.floor_per_s` bits, `cache_ms`. FNV-1a has no finalisation, so
//! the hash is format 2's hash continued over these words' little-endian
//! bytes, and a policy without a section keeps its format-2 hash.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::codec::Fields;
use crate::decide::Policy;
use crate::document::PolicyDocument;
use crate::error::{ErrorCode, PolicyError};
use crate::json::Value;
use crate::text::cat;

/// The most any duration in the section may be: one day.
pub const MAX_DURATION_MS: u64 = 86_400_000;

/// When to stop probing and how fast to grow the cooldown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circuit {
    /// Open at or above this share of failed attempts, in `(0, 1]`.
    pub failure_ratio: f64,
    /// ... once the estimated attempts reach this (`>= 1`).
    pub min_sample: u64,
    /// First wait before probing, `1..=86400000`.
    pub cooldown_ms: u64,
    /// Cap of the doubling cooldown, `cooldown_ms..=86400000`.
    pub cooldown_max_ms: u64,
    /// Probes granted, fleet-wide, per probe interval, `1..=100`.
    pub probes: u32,
    /// `1..=3600000`.
    pub probe_interval_ms: u64,
}

impl Default for Circuit {
    fn default() -> Self {
        Circuit {
            failure_ratio: 0.5,
            min_sample: 20,
            cooldown_ms: 5_000,
            cooldown_max_ms: 120_000,
            probes: 1,
            probe_interval_ms: 1_000,
        }
    }
}

/// How fast held events leave once the endpoint is healthy again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Release {
    /// Held events leave at this multiple of the normal rate, `(0, 100]`.
    pub multiple: f64,
    /// ... and at least this many per second per replica, `(0, 10000]`.
    pub floor_per_s: f64,
}

impl Default for Release {
    fn default() -> Self {
        Release { multiple: 3.0, floor_per_s: 1.0 }
    }
}

/// A validated `health` section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Health {
    /// A retry the budget refuses is held, not dead-lettered.
    pub hold_budget_refusals: bool,
    /// Cap on a `Retry-After` pause (`pause.max_ms`); 0 turns pauses off.
    pub pause_max_ms: u64,
    /// `None`: no circuit.
    pub circuit: Option<Circuit>,
    pub release: Release,
    /// How long a host may use a health reply, `1..=60000`.
    pub cache_ms: u64,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            hold_budget_refusals: true,
            pause_max_ms: 600_000,
            circuit: Some(Circuit::default()),
            release: Release::default(),
            cache_ms: 1_000,
        }
    }
}

fn bad(field: &str, message: &str) -> PolicyError {
    PolicyError::new(ErrorCode::InvalidDocument, field, message)
}

/// Shape errors of the strict reader are document errors here.
fn doc(e: PolicyError) -> PolicyError {
    PolicyError { code: ErrorCode::InvalidDocument, ..e }
}

/// Refuse a `null` member unless `key` gives null a meaning.
fn no_nulls(v: &Value, allowed_null: &[&str]) -> Result<(), PolicyError> {
    if let Value::Object(m) = v {
        if let Some((k, _)) = m.iter().find(|(k, x)| matches!(x, Value::Null) && !allowed_null.contains(&k.as_str())) {
            return Err(bad(k, "null is not a value here; omit the field for its default"));
        }
    }
    Ok(())
}

fn check_u64(field: &str, n: u64, lo: u64, hi: u64, range: &str) -> Result<u64, PolicyError> {
    if (lo..=hi).contains(&n) {
        Ok(n)
    } else {
        Err(bad(field, &cat(&["must be in ", range])))
    }
}

/// A finite double in `(0, hi]` (NaN and infinities fail the comparison).
fn check_f64(field: &str, x: f64, hi: f64, range: &str) -> Result<f64, PolicyError> {
    if x > 0.0 && x <= hi {
        Ok(x)
    } else {
        Err(bad(field, &cat(&["must be a finite number in ", range])))
    }
}

fn u64_or(f: &Fields, key: &str, default: u64) -> Result<u64, PolicyError> {
    if f.opt(key).is_some() {
        f.u64(key).map_err(doc)
    } else {
        Ok(default)
    }
}

fn f64_or(f: &Fields, key: &str, default: f64) -> Result<f64, PolicyError> {
    if f.opt(key).is_some() {
        f.f64(key).map_err(doc)
    } else {
        Ok(default)
    }
}

fn pause(v: &Value) -> Result<u64, PolicyError> {
    no_nulls(v, &[])?;
    let f = Fields::new(v, &["max_ms"]).map_err(doc)?;
    check_u64("max_ms", u64_or(&f, "max_ms", 600_000)?, 0, MAX_DURATION_MS, "0..=86400000")
}

fn circuit(v: &Value) -> Result<Circuit, PolicyError> {
    no_nulls(v, &[])?;
    let keys = ["failure_ratio", "min_sample", "cooldown_ms", "cooldown_max_ms", "probes", "probe_interval_ms"];
    let f = Fields::new(v, &keys).map_err(doc)?;
    let d = Circuit::default();
    let failure_ratio = check_f64("failure_ratio", f64_or(&f, "failure_ratio", d.failure_ratio)?, 1.0, "(0, 1]")?;
    let min_sample = check_u64("min_sample", u64_or(&f, "min_sample", d.min_sample)?, 1, u64::MAX, "1..")?;
    let cooldown_ms =
        check_u64("cooldown_ms", u64_or(&f, "cooldown_ms", d.cooldown_ms)?, 1, MAX_DURATION_MS, "1..=86400000")?;
    let cooldown_max_ms = check_u64(
        "cooldown_max_ms",
        u64_or(&f, "cooldown_max_ms", d.cooldown_max_ms)?,
        cooldown_ms,
        MAX_DURATION_MS,
        "cooldown_ms..=86400000",
    )?;
    let probes = check_u64("probes", u64_or(&f, "probes", u64::from(d.probes))?, 1, 100, "1..=100")? as u32;
    let probe_interval_ms = check_u64(
        "probe_interval_ms",
        u64_or(&f, "probe_interval_ms", d.probe_interval_ms)?,
        1,
        3_600_000,
        "1..=3600000",
    )?;
    Ok(Circuit { failure_ratio, min_sample, cooldown_ms, cooldown_max_ms, probes, probe_interval_ms })
}

fn release(v: &Value) -> Result<Release, PolicyError> {
    no_nulls(v, &[])?;
    let f = Fields::new(v, &["multiple", "floor_per_s"]).map_err(doc)?;
    let d = Release::default();
    Ok(Release {
        multiple: check_f64("multiple", f64_or(&f, "multiple", d.multiple)?, 100.0, "(0, 100]")?,
        floor_per_s: check_f64("floor_per_s", f64_or(&f, "floor_per_s", d.floor_per_s)?, 10_000.0, "(0, 10000]")?,
    })
}

impl Health {
    /// Parse and validate one section (an object). Errors are
    /// `invalid_document` with the path inside the section
    /// (`circuit.failure_ratio`); callers prefix where it sits.
    pub fn from_value(v: &Value) -> Result<Health, PolicyError> {
        no_nulls(v, &["circuit"])?;
        let keys = ["hold_budget_refusals", "pause", "circuit", "release", "cache_ms"];
        let f = Fields::new(v, &keys).map_err(doc)?;
        let d = Health::default();
        let hold_budget_refusals =
            if f.opt("hold_budget_refusals").is_some() { f.bool("hold_budget_refusals").map_err(doc)? } else { true };
        let pause_max_ms = if f.opt("pause").is_some() { f.nested("pause", pause)? } else { d.pause_max_ms };
        let circuit = match v.get("circuit") {
            None => d.circuit,
            Some(Value::Null) => None,
            Some(c) => Some(circuit(c).map_err(|e| e.within("circuit"))?),
        };
        let release = if f.opt("release").is_some() { f.nested("release", release)? } else { d.release };
        let cache_ms = check_u64("cache_ms", u64_or(&f, "cache_ms", d.cache_ms)?, 1, 60_000, "1..=60000")?;
        Ok(Health { hold_budget_refusals, pause_max_ms, circuit, release, cache_ms })
    }

    /// The checks of [`Self::from_value`] on a section built in code
    /// (`invalid_document`, paths inside the section).
    pub fn validate(&self) -> Result<(), PolicyError> {
        check_u64("pause.max_ms", self.pause_max_ms, 0, MAX_DURATION_MS, "0..=86400000")?;
        if let Some(c) = &self.circuit {
            let within = |e: PolicyError| e.within("circuit");
            check_f64("failure_ratio", c.failure_ratio, 1.0, "(0, 1]").map_err(within)?;
            check_u64("min_sample", c.min_sample, 1, u64::MAX, "1..").map_err(within)?;
            check_u64("cooldown_ms", c.cooldown_ms, 1, MAX_DURATION_MS, "1..=86400000").map_err(within)?;
            let (lo, hi) = (c.cooldown_ms, MAX_DURATION_MS);
            check_u64("cooldown_max_ms", c.cooldown_max_ms, lo, hi, "cooldown_ms..=86400000").map_err(within)?;
            check_u64("probes", u64::from(c.probes), 1, 100, "1..=100").map_err(within)?;
            check_u64("probe_interval_ms", c.probe_interval_ms, 1, 3_600_000, "1..=3600000").map_err(within)?;
        }
        check_f64("release.multiple", self.release.multiple, 100.0, "(0, 100]")?;
        check_f64("release.floor_per_s", self.release.floor_per_s, 10_000.0, "(0, 10000]")?;
        check_u64("cache_ms", self.cache_ms, 1, 60_000, "1..=60000")?;
        Ok(())
    }

    /// The words this section adds to `policy_hash` (module docs).
    pub fn hash_words(&self) -> Vec<u64> {
        let mut w = alloc::vec![1, u64::from(self.hold_budget_refusals), self.pause_max_ms];
        match &self.circuit {
            Some(c) => w.extend_from_slice(&[
                1,
                c.failure_ratio.to_bits(),
                c.min_sample,
                c.cooldown_ms,
                c.cooldown_max_ms,
                u64::from(c.probes),
                c.probe_interval_ms,
            ]),
            None => w.push(0),
        }
        w.extend_from_slice(&[self.release.multiple.to_bits(), self.release.floor_per_s.to_bits(), self.cache_ms]);
        w
    }
}

/// `policy_hash` of a format-3 policy: format 2's hash of `policy`
/// ([`crate::document::policy_hash`]), continued over the section's words
/// (unchanged without a section).
pub fn policy_hash(policy: &Policy, health: Option<&Health>) -> u64 {
    let mut h = crate::document::policy_hash(policy);
    for word in health.map(Health::hash_words).unwrap_or_default() {
        for b in word.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// A format-3 document: the format-2 document and each class's section,
/// in the same (document) order.
#[derive(Clone, Debug, PartialEq)]
pub struct HealthDocument {
    pub document: PolicyDocument,
    pub health: Vec<(String, Option<Health>)>,
}

impl HealthDocument {
    /// Parse JSON text of at most 1 MiB that may carry `health` sections
    /// ([`parse_document`]'s rules).
    pub fn from_json(text: &str) -> Result<HealthDocument, PolicyError> {
        crate::document::check_size(text)?;
        parse_document(crate::json::parse(text)?)
    }
}

/// Parse a document that may carry `health` sections (taken by value: the
/// sections are moved out, nothing is copied). The document without
/// them is validated first (as format 2), then the top-level section, then
/// each class's in document order; paths are `health.cache_ms` and
/// `classes.<name>.health.circuit.failure_ratio`.
pub fn parse_document(mut stripped: Value) -> Result<HealthDocument, PolicyError> {
    if crate::json::too_deep(&stripped) {
        return Err(bad("", "nested too deeply (more than 32 levels)"));
    }
    let top = take(&mut stripped);
    let mut per_class: Vec<(String, Option<Value>)> = Vec::new();
    if let Some(Value::Object(classes)) = member_mut(&mut stripped, "classes") {
        for (name, class) in classes.iter_mut() {
            per_class.push((name.clone(), take(class)));
        }
    }
    let document = PolicyDocument::from_value(&stripped)?;
    let default = match top {
        None | Some(Value::Null) => None,
        Some(s) => Some(Health::from_value(&s).map_err(|e| e.within("health"))?),
    };
    let mut health = Vec::with_capacity(per_class.len());
    for (name, section) in per_class {
        let h = match section {
            None => default,
            Some(Value::Null) => None,
            Some(s) => Some(Health::from_value(&s).map_err(|e| e.within(&cat(&["classes.", &name, ".health"])))?),
        };
        health.push((name.to_string(), h));
    }
    Ok(HealthDocument { document, health })
}

fn member_mut<'a>(v: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    match v {
        Value::Object(m) => m.iter_mut().find(|(k, _)| k == key).map(|(_, x)| x),
        _ => None,
    }
}

/// Remove and return the `health` member of an object (anything else: none).
fn take(v: &mut Value) -> Option<Value> {
    let Value::Object(m) = v else { return None };
    let i = m.iter().position(|(k, _)| k == "health")?;
    Some(m.remove(i).1)
}
