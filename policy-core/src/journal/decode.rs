//! Reading one record strictly (docs/journal.md, "Records"): every field
//! of the table with its type, nothing else. An unknown field is an error
//! naming it (a reader that dropped it would write the event back without
//! it); so is a v2 field in a v1 record, or a missing one in a v2 record.
//! Integers must be JSON integers (`1.0` is not an attempt count); doubles
//! may be written either way. Every error is `journal_record_invalid`
//! naming the field's dotted path, except a `v` other than 1 or 2 and a
//! header of another format (`journal_unsupported`).

use alloc::string::String;
use alloc::vec::Vec;

use base64::Engine as _;

use crate::backoff::{Backoff, Jitter};
use crate::budget::Budget;
use crate::decide::{DeadLetter, Policy, StopReason};
use crate::health::{Circuit, Health, HoldReason, Release};
use crate::json::Value;
use crate::text::cat;

use super::error::JournalError;
use super::record::{hold_reason, stop_reason, EventRecord, Status, FORMAT, V2_FIELDS};

/// The members of one JSON object, taken one by one; [`Fields::done`]
/// refuses whatever is left.
struct Fields {
    members: Vec<(String, Value)>,
    prefix: String,
    line: u64,
}

impl Fields {
    fn new(v: Value, prefix: &str, line: u64) -> Result<Self, JournalError> {
        match v {
            Value::Object(members) => Ok(Fields { members, prefix: String::from(prefix), line }),
            _ => {
                let name = if prefix.is_empty() { "record" } else { prefix.trim_end_matches('.') };
                Err(JournalError::invalid(line, name, "must be a JSON object"))
            }
        }
    }

    fn err(&self, k: &str, why: &str) -> JournalError {
        JournalError::invalid(self.line, &cat(&[&self.prefix, k]), why)
    }

    fn has(&self, k: &str) -> bool {
        self.members.iter().any(|(m, _)| m == k)
    }

    fn take_opt(&mut self, k: &str) -> Option<Value> {
        let i = self.members.iter().position(|(m, _)| m == k)?;
        Some(self.members.remove(i).1)
    }

    fn take(&mut self, k: &str) -> Result<Value, JournalError> {
        self.take_opt(k).ok_or_else(|| self.err(k, "is missing"))
    }

    fn str(&mut self, k: &str) -> Result<String, JournalError> {
        match self.take(k)? {
            Value::String(s) => Ok(s),
            _ => Err(self.err(k, "must be a string")),
        }
    }

    fn opt_str(&mut self, k: &str) -> Result<Option<String>, JournalError> {
        match self.take(k)? {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s)),
            _ => Err(self.err(k, "must be a string or null")),
        }
    }

    fn u64(&mut self, k: &str) -> Result<u64, JournalError> {
        match self.take(k)? {
            Value::Int(n) => Ok(n),
            _ => Err(self.err(k, "must be a non-negative integer")),
        }
    }

    fn u32(&mut self, k: &str) -> Result<u32, JournalError> {
        u32::try_from(self.u64(k)?).map_err(|_| self.err(k, "is too large (more than 32 bits)"))
    }

    fn f64(&mut self, k: &str) -> Result<f64, JournalError> {
        self.take(k)?.as_f64().ok_or_else(|| self.err(k, "must be a number"))
    }

    fn bool(&mut self, k: &str) -> Result<bool, JournalError> {
        match self.take(k)? {
            Value::Bool(b) => Ok(b),
            _ => Err(self.err(k, "must be true or false")),
        }
    }

    fn stop_reason(&mut self, k: &str) -> Result<Option<StopReason>, JournalError> {
        match self.opt_str(k)? {
            None => Ok(None),
            Some(s) => stop_reason(&s).map(Some).ok_or_else(|| self.err(k, "is not a stop reason")),
        }
    }

    fn nested(&mut self, k: &str) -> Result<Fields, JournalError> {
        let v = self.take(k)?;
        Fields::new(v, &cat(&[&self.prefix, k, "."]), self.line)
    }

    /// Refuse the first field not read.
    fn done(self) -> Result<(), JournalError> {
        match self.members.first() {
            Some((k, _)) => Err(self.err(k, "is not a field of this journal record")),
            None => Ok(()),
        }
    }
}

/// A record's `v` (1 or 2) and `type`, read first: a `v` other than 1 or 2
/// is `journal_unsupported` whatever the rest holds.
pub fn kind(v: &Value, line: u64) -> Result<(u8, &str), JournalError> {
    let Value::Object(_) = v else {
        return Err(JournalError::invalid(line, "record", "must be a JSON object"));
    };
    let version = match v.get("v") {
        Some(Value::Int(1)) => 1,
        Some(Value::Int(2)) => 2,
        Some(_) => return Err(JournalError::unsupported(line, "the record's version `v` is not 1 or 2")),
        None => return Err(JournalError::invalid(line, "v", "is missing")),
    };
    match v.get("type") {
        Some(Value::String(t)) => Ok((version, t)),
        _ => Err(JournalError::invalid(line, "type", "must be a string")),
    }
}

/// A header record's `created_at_ms` (its `v` and `type` read by [`kind`]).
pub fn header(v: Value, line: u64) -> Result<u64, JournalError> {
    let mut f = Fields::new(v, "", line)?;
    f.take("v")?;
    f.take("type")?;
    if f.str("format")? != FORMAT {
        return Err(JournalError::unsupported(line, cat(&["the header's format is not `", FORMAT, "`"])));
    }
    let created_at_ms = f.u64("created_at_ms")?;
    f.done()?;
    Ok(created_at_ms)
}

fn backoff(mut f: Fields) -> Result<Backoff, JournalError> {
    let base_ms = f.u64("base_ms")?;
    let factor = f.f64("factor")?;
    let cap_ms = f.u64("cap_ms")?;
    let name = f.str("jitter")?;
    let jitter = Jitter::parse(&name).map_err(|_| f.err("jitter", "is not none, full or equal"))?;
    f.done()?;
    Ok(Backoff { base_ms, factor, cap_ms, jitter })
}

fn budget(mut f: Fields) -> Result<Budget, JournalError> {
    let b = Budget {
        ratio: f.f64("ratio")?,
        window_ms: f.u64("window_ms")?,
        min_sample: f.u64("min_sample")?,
        sliding: f.bool("sliding")?,
    };
    f.done()?;
    Ok(b)
}

/// `policy.health`, fully expanded (every field written out), or null.
/// Its values are checked with the hash (the document reader's rules).
fn health(f: &mut Fields) -> Result<Option<Health>, JournalError> {
    let mut h = match f.take("health")? {
        Value::Null => return Ok(None),
        v => Fields::new(v, &cat(&[&f.prefix, "health."]), f.line)?,
    };
    let hold_budget_refusals = h.bool("hold_budget_refusals")?;
    let mut p = h.nested("pause")?;
    let pause_max_ms = p.u64("max_ms")?;
    p.done()?;
    let circuit = match h.take("circuit")? {
        Value::Null => None,
        v => {
            let mut c = Fields::new(v, &cat(&[&h.prefix, "circuit."]), h.line)?;
            let circuit = Circuit {
                failure_ratio: c.f64("failure_ratio")?,
                min_sample: c.u64("min_sample")?,
                cooldown_ms: c.u64("cooldown_ms")?,
                cooldown_max_ms: c.u64("cooldown_max_ms")?,
                probes: c.u32("probes")?,
                probe_interval_ms: c.u64("probe_interval_ms")?,
            };
            c.done()?;
            Some(circuit)
        }
    };
    let mut r = h.nested("release")?;
    let release = Release { multiple: r.f64("multiple")?, floor_per_s: r.f64("floor_per_s")? };
    r.done()?;
    let cache_ms = h.u64("cache_ms")?;
    h.done()?;
    Ok(Some(Health { hold_budget_refusals, pause_max_ms, circuit, release, cache_ms }))
}

fn policy(mut f: Fields, version: u8) -> Result<(Policy, Option<Health>), JournalError> {
    let health = match (version, f.has("health")) {
        (2, true) => health(&mut f)?,
        (_, false) => None,
        (_, true) => return Err(f.err("health", "is a field of journal format 2 (a v2 record)")),
    };
    let window_ms = f.u64("window_ms")?;
    let hard_cap = f.u32("hard_cap")?;
    let backoff = backoff(f.nested("backoff")?)?;
    let budget = budget(f.nested("budget")?)?;
    f.done()?;
    Ok((Policy { backoff, window_ms, hard_cap, budget }, health))
}

fn dead_letter(f: &mut Fields, k: &str) -> Result<Option<DeadLetter>, JournalError> {
    let mut d = match f.take(k)? {
        Value::Null => return Ok(None),
        v => Fields::new(v, &cat(&[&f.prefix, k, "."]), f.line)?,
    };
    let dl = DeadLetter {
        event_id: d.str("event_id")?,
        endpoint_id: d.str("endpoint_id")?,
        attempts: d.u32("attempts")?,
        elapsed_ms: d.u64("elapsed_ms")?,
        stop_reason: d.stop_reason("stop_reason")?.ok_or_else(|| d.err("stop_reason", "must be a stop reason"))?,
    };
    d.done()?;
    Ok(Some(dl))
}

/// Whether `s` is standard base64 with padding (as the `base64` crate's
/// `STANDARD` engine reads it: canonical trailing bits).
fn is_base64(s: &str) -> bool {
    base64::engine::general_purpose::STANDARD.decode(s).is_ok()
}

/// Format 2's fields: none in a v1 record, every one in a v2 record.
struct Hold {
    held_until_ms: u64,
    hold_reason: Option<HoldReason>,
    held_since_ms: u64,
    held_ms: u64,
    needs_reserve: bool,
    wake_refusals: u32,
    replay_of: Option<String>,
    replayed_dead_letter: Option<DeadLetter>,
    replayed_as: Option<String>,
}

fn hold(f: &mut Fields, version: u8, status: Status) -> Result<Hold, JournalError> {
    if version == 1 {
        if let Some(k) = V2_FIELDS.iter().find(|k| f.has(k)) {
            return Err(f.err(k, "is a field of journal format 2, not of a v1 record"));
        }
        return Ok(Hold {
            held_until_ms: 0,
            hold_reason: None,
            held_since_ms: 0,
            held_ms: 0,
            needs_reserve: false,
            wake_refusals: 0,
            replay_of: None,
            replayed_dead_letter: None,
            replayed_as: None,
        });
    }
    let held_until_ms = f.u64("held_until_ms")?;
    let hold_reason = match f.opt_str("hold_reason")? {
        None => None,
        Some(s) => Some(hold_reason(&s).ok_or_else(|| f.err("hold_reason", "is not a hold reason"))?),
    };
    if hold_reason.is_some() != (status == Status::Held) {
        return Err(f.err("hold_reason", "must be non-null exactly when the status is held"));
    }
    Ok(Hold {
        held_until_ms,
        hold_reason,
        held_since_ms: f.u64("held_since_ms")?,
        held_ms: f.u64("held_ms")?,
        needs_reserve: f.bool("needs_reserve")?,
        wake_refusals: f.u32("wake_refusals")?,
        replay_of: f.opt_str("replay_of")?,
        replayed_dead_letter: dead_letter(f, "replayed_dead_letter")?,
        replayed_as: f.opt_str("replayed_as")?,
    })
}

/// An event record of `version` 1 or 2 (its `v` and `type` read by
/// [`kind`]). The policy hash is checked by the reader, per event.
pub fn event(v: Value, version: u8, line: u64) -> Result<EventRecord, JournalError> {
    let mut f = Fields::new(v, "", line)?;
    f.take("v")?;
    f.take("type")?;
    let status = match Status::parse(&f.str("status")?) {
        Some(Status::Held) if version == 1 => None,
        s => s,
    }
    .ok_or_else(|| f.err("status", "is not pending, held (v2 records only), delivered or dead_lettered"))?;
    let h = hold(&mut f, version, status)?;
    let policy_hash = f.str("policy_hash")?;
    if policy_hash.len() != 16 || !policy_hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(f.err("policy_hash", "must be 16 lowercase hex digits"));
    }
    let offsets_ms = match f.take("offsets_ms")? {
        Value::Array(a) => a.iter().map(|o| if let Value::Int(n) = o { Some(*n) } else { None }).collect(),
        _ => None,
    }
    .ok_or_else(|| f.err("offsets_ms", "must be an array of non-negative integers"))?;
    let body_b64 = match f.take_opt("body_b64") {
        None => None,
        Some(Value::String(s)) if is_base64(&s) => Some(s),
        Some(_) => return Err(f.err("body_b64", "must be standard base64 with padding")),
    };
    let (policy, health) = policy(f.nested("policy")?, version)?;
    let rec = EventRecord {
        version,
        event_id: f.str("event_id")?,
        endpoint_id: f.str("endpoint_id")?,
        target: f.str("target")?,
        class: f.str("class")?,
        policy_version: f.str("policy_version")?,
        policy_hash,
        policy,
        health,
        first_attempted_at_ms: f.u64("first_attempted_at_ms")?,
        deadline_ms: f.u64("deadline_ms")?,
        max_attempts: f.u32("max_attempts")?,
        offsets_ms,
        attempts: f.u32("attempts")?,
        credentials_refreshed: f.bool("credentials_refreshed")?,
        next_attempt_at_ms: f.u64("next_attempt_at_ms")?,
        status,
        last_outcome: f.str("last_outcome")?,
        stop_reason: f.stop_reason("stop_reason")?,
        dead_letter: dead_letter(&mut f, "dead_letter")?,
        disable_endpoint: f.bool("disable_endpoint")?,
        finished_at_ms: f.u64("finished_at_ms")?,
        body_b64,
        held_until_ms: h.held_until_ms,
        hold_reason: h.hold_reason,
        held_since_ms: h.held_since_ms,
        held_ms: h.held_ms,
        needs_reserve: h.needs_reserve,
        wake_refusals: h.wake_refusals,
        replay_of: h.replay_of,
        replayed_dead_letter: h.replayed_dead_letter,
        replayed_as: h.replayed_as,
    };
    f.done()?;
    Ok(rec)
}
