//! Journal format 2 (docs/journal.md, "Journal format 2"): the fields an
//! event record adds for holds and replays, and the `health` section its
//! `policy` carries, fully expanded. Read as strictly as format 1: a v2
//! record missing one of them, or a v1 record carrying one, is
//! `journal_record_invalid` naming the field.

use retry_policy_core::health::{Circuit, Health, Release};
use retry_policy_core::Policy;
use serde_json::{json, Map, Value};

use crate::journal_error::JournalError;
use crate::journal_record::{dead_letter, policy_json, Fields};
use crate::store::{EventRecord, HoldFields, Status};

/// The fields format 2 adds to an event record, in the table's order.
pub const V2_FIELDS: [&str; 9] = [
    "held_until_ms",
    "hold_reason",
    "held_since_ms",
    "held_ms",
    "needs_reserve",
    "wake_refusals",
    "replay_of",
    "replayed_dead_letter",
    "replayed_as",
];

/// A section fully expanded (every default written out).
pub fn health_json(h: &Health) -> Value {
    json!({
        "hold_budget_refusals": h.hold_budget_refusals,
        "pause": {"max_ms": h.pause_max_ms},
        "circuit": h.circuit.map(|c| json!({
            "failure_ratio": c.failure_ratio, "min_sample": c.min_sample, "cooldown_ms": c.cooldown_ms,
            "cooldown_max_ms": c.cooldown_max_ms, "probes": c.probes, "probe_interval_ms": c.probe_interval_ms,
        })),
        "release": {"multiple": h.release.multiple, "floor_per_s": h.release.floor_per_s},
        "cache_ms": h.cache_ms,
    })
}

/// The record's `policy`: format 1's object, plus `health` when the class has one.
pub fn policy_with_health(p: &Policy, health: Option<&Health>) -> Value {
    let mut v = policy_json(p);
    if let (Some(h), Some(m)) = (health, v.as_object_mut()) {
        m.insert("health".into(), health_json(h));
    }
    v
}

/// `policy.health` of a v2 record (`null`: none). Its values are checked by
/// the component when the reader checks the hash (`load-health-document`).
pub fn parse_health(v: Value, line: usize) -> Result<Option<Health>, JournalError> {
    if v.is_null() {
        return Ok(None);
    }
    let mut f = Fields::new(&v, "policy.health.", line)?;
    let hold_budget_refusals = f.bool("hold_budget_refusals")?;
    let mut p = Fields::new(&f.take("pause")?, "policy.health.pause.", line)?;
    let pause_max_ms = p.u64("max_ms")?;
    p.done()?;
    let circuit = match f.take("circuit")? {
        Value::Null => None,
        c => {
            let mut c = Fields::new(&c, "policy.health.circuit.", line)?;
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
    let mut r = Fields::new(&f.take("release")?, "policy.health.release.", line)?;
    let release = Release { multiple: r.f64("multiple")?, floor_per_s: r.f64("floor_per_s")? };
    r.done()?;
    let cache_ms = f.u64("cache_ms")?;
    f.done()?;
    Ok(Some(Health { hold_budget_refusals, pause_max_ms, circuit, release, cache_ms }))
}

/// Write format 2's fields into an event record's object.
pub fn write_fields(r: &EventRecord, m: &mut Map<String, Value>) {
    let h = &r.hold;
    let dl = h.replayed_dead_letter.as_ref().map(|d| {
        json!({"event_id": d.event_id, "endpoint_id": d.endpoint_id, "attempts": d.attempts,
               "elapsed_ms": d.elapsed_ms, "stop_reason": d.stop_reason.as_str()})
    });
    let fields = [
        json!(h.held_until_ms),
        json!(h.hold_reason.map(|x| x.as_str())),
        json!(h.held_since_ms),
        json!(h.held_ms),
        json!(h.needs_reserve),
        json!(h.wake_refusals),
        json!(h.replay_of),
        dl.unwrap_or(Value::Null),
        json!(h.replayed_as),
    ];
    for (k, v) in V2_FIELDS.iter().zip(fields) {
        m.insert(k.to_string(), v);
    }
}

fn opt_str(f: &mut Fields<'_>, k: &str) -> Result<Option<String>, JournalError> {
    match f.take(k)? {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        _ => Err(f.err(k, "must be a string or null")),
    }
}

/// Read format 2's fields of a record of `version` (1: none may be there;
/// 2: every one must be), with `status` already read.
pub(crate) fn read_fields(
    f: &mut Fields<'_>,
    version: u64,
    status: Status,
    line: usize,
) -> Result<HoldFields, JournalError> {
    if version == 1 {
        if let Some(k) = V2_FIELDS.iter().find(|k| f.obj.contains_key(**k)) {
            return Err(f.err(k, "is a field of journal format 2, not of a v1 record"));
        }
        return Ok(HoldFields::default());
    }
    let held_until_ms = f.u64("held_until_ms")?;
    let hold_reason = match f.take("hold_reason")? {
        Value::Null => None,
        Value::String(s) => Some(
            crate::metrics_health::hold_reason_from_str(&s)
                .ok_or_else(|| f.err("hold_reason", "is not a hold reason"))?,
        ),
        _ => return Err(f.err("hold_reason", "must be a string or null")),
    };
    if hold_reason.is_some() != (status == Status::Held) {
        return Err(f.err("hold_reason", "must be non-null exactly when the status is held"));
    }
    let fields = HoldFields {
        held_until_ms,
        hold_reason,
        held_since_ms: f.u64("held_since_ms")?,
        held_ms: f.u64("held_ms")?,
        needs_reserve: f.bool("needs_reserve")?,
        wake_refusals: f.u32("wake_refusals")?,
        replay_of: opt_str(f, "replay_of")?,
        replayed_dead_letter: None,
        replayed_as: None,
    };
    let replayed_dead_letter = dead_letter(f.take("replayed_dead_letter")?, "replayed_dead_letter.", line)?;
    let replayed_as = opt_str(f, "replayed_as")?;
    Ok(HoldFields { replayed_dead_letter, replayed_as, ..fields })
}
