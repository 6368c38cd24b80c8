//! The event record (docs/journal.md, "Records" and "Journal format 2"):
//! every field typed, and its JSON value as every writer now writes it
//! (`"v": 2`, the table's order, `policy` fully expanded with its `health`
//! section when the class has one).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::codec::dead_letter_to_value;
use crate::decide::{DeadLetter, DeliveryState, Policy, StopReason};
use crate::health::codec::section_to_value;
use crate::health::{Health, HoldReason};
use crate::json::Value;

/// The header's `format`.
pub const FORMAT: &str = "webhook-retry-policy/journal";

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

/// Where an event stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Due at `next_attempt_at_ms`.
    Pending,
    /// Waiting until `held_until_ms`, spending no attempt (format 2 only).
    Held,
    Delivered,
    DeadLettered,
}

impl Status {
    pub const ALL: [Status; 4] = [Status::Pending, Status::Held, Status::Delivered, Status::DeadLettered];

    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Held => "held",
            Status::Delivered => "delivered",
            Status::DeadLettered => "dead_lettered",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// Every hold reason, for parsing (`HoldReason` has no list of its own).
pub(crate) const HOLD_REASONS: [HoldReason; 5] = [
    HoldReason::Paused,
    HoldReason::CircuitOpen,
    HoldReason::ProbeRefused,
    HoldReason::ReleasePacing,
    HoldReason::BudgetRefused,
];

pub(crate) fn hold_reason(s: &str) -> Option<HoldReason> {
    HOLD_REASONS.into_iter().find(|x| x.as_str() == s)
}

pub(crate) fn stop_reason(s: &str) -> Option<StopReason> {
    StopReason::ALL.into_iter().find(|x| x.as_str() == s)
}

/// One event record: the event's whole state (the newest record wins).
#[derive(Clone, Debug, PartialEq)]
pub struct EventRecord {
    /// The record's `v` as read (1 or 2); records are always written as 2.
    pub version: u8,
    pub event_id: String,
    pub endpoint_id: String,
    pub target: String,
    pub class: String,
    pub policy_version: String,
    /// 16 lowercase hex digits: the fingerprint `policy` (and `health`) must have.
    pub policy_hash: String,
    /// The admitted class policy (never the current document's).
    pub policy: Policy,
    /// The class's `health` section (format 3; v2 records only).
    pub health: Option<Health>,
    pub first_attempted_at_ms: u64,
    pub deadline_ms: u64,
    pub max_attempts: u32,
    pub offsets_ms: Vec<u64>,
    /// Attempts made so far (0 before the first).
    pub attempts: u32,
    pub credentials_refreshed: bool,
    pub next_attempt_at_ms: u64,
    pub status: Status,
    /// The last attempt's status code (`"503"`) or transport kind; `""` before one.
    pub last_outcome: String,
    pub stop_reason: Option<StopReason>,
    pub dead_letter: Option<DeadLetter>,
    pub disable_endpoint: bool,
    /// When it stopped (0 while pending or held).
    pub finished_at_ms: u64,
    /// The payload, standard base64 with padding (`None`: the host derives it).
    pub body_b64: Option<String>,
    /// When a held event is due (0 unless held).
    pub held_until_ms: u64,
    /// Non-null exactly when `status` is held.
    pub hold_reason: Option<HoldReason>,
    /// When the current hold began (0 unless held).
    pub held_since_ms: u64,
    /// Total time spent in holds already ended.
    pub held_ms: u64,
    /// A budget-held retry: its wake makes a `reserve` call first.
    pub needs_reserve: bool,
    /// Wakes the budget refused in this hold.
    pub wake_refusals: u32,
    /// The dead letter this event replays.
    pub replay_of: Option<String>,
    /// That dead letter's `dead_letter` object, kept for the record.
    pub replayed_dead_letter: Option<DeadLetter>,
    /// On a dead letter: the id of its replay ([`super::recover()`] also
    /// derives it from the replay's `replay_of`).
    pub replayed_as: Option<String>,
}

impl EventRecord {
    /// Pending or held: recovery puts it through `resume`.
    pub fn is_open(&self) -> bool {
        matches!(self.status, Status::Pending | Status::Held)
    }

    /// What compaction keeps: pending and held events and dead letters not
    /// replayed (docs/journal.md, "Compaction").
    pub fn is_live(&self) -> bool {
        self.is_open() || (self.status == Status::DeadLettered && self.replayed_as.is_none())
    }

    /// The contract's delivery state of this event (`attempt`: attempts made).
    pub fn delivery_state(&self) -> DeliveryState {
        DeliveryState {
            event_id: self.event_id.clone(),
            endpoint_id: self.endpoint_id.clone(),
            attempt: self.attempts,
            max_attempts: self.max_attempts,
            first_attempted_at_ms: self.first_attempted_at_ms,
            credentials_refreshed: self.credentials_refreshed,
        }
    }
}

pub(crate) fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn opt_str(s: &Option<String>) -> Value {
    s.as_deref().map_or(Value::Null, Value::from)
}

fn opt_dead_letter(d: &Option<DeadLetter>) -> Value {
    d.as_ref().map_or(Value::Null, dead_letter_to_value)
}

/// The record's `policy`: format 1's object, plus `health` when there is one.
pub fn policy_to_value(p: &Policy, health: Option<&Health>) -> Value {
    let b = &p.backoff;
    let g = &p.budget;
    let mut v = obj([
        ("window_ms", p.window_ms.into()),
        ("hard_cap", p.hard_cap.into()),
        (
            "backoff",
            obj([
                ("base_ms", b.base_ms.into()),
                ("factor", Value::Float(b.factor)),
                ("cap_ms", b.cap_ms.into()),
                ("jitter", b.jitter.as_str().into()),
            ]),
        ),
        (
            "budget",
            obj([
                ("ratio", Value::Float(g.ratio)),
                ("window_ms", g.window_ms.into()),
                ("min_sample", g.min_sample.into()),
                ("sliding", g.sliding.into()),
            ]),
        ),
    ]);
    if let (Some(h), Value::Object(m)) = (health, &mut v) {
        m.push(("health".to_string(), section_to_value(h)));
    }
    v
}

/// The record as a format-2 JSON object, in the table's order.
pub fn event_to_value(r: &EventRecord) -> Value {
    let mut v = obj([
        ("v", 2u64.into()),
        ("type", "event".into()),
        ("event_id", r.event_id.as_str().into()),
        ("endpoint_id", r.endpoint_id.as_str().into()),
        ("target", r.target.as_str().into()),
        ("class", r.class.as_str().into()),
        ("policy_version", r.policy_version.as_str().into()),
        ("policy_hash", r.policy_hash.as_str().into()),
        ("policy", policy_to_value(&r.policy, r.health.as_ref())),
        ("first_attempted_at_ms", r.first_attempted_at_ms.into()),
        ("deadline_ms", r.deadline_ms.into()),
        ("max_attempts", r.max_attempts.into()),
        ("offsets_ms", Value::Array(r.offsets_ms.iter().map(|&o| o.into()).collect())),
        ("attempts", r.attempts.into()),
        ("credentials_refreshed", r.credentials_refreshed.into()),
        ("next_attempt_at_ms", r.next_attempt_at_ms.into()),
        ("status", r.status.as_str().into()),
        ("last_outcome", r.last_outcome.as_str().into()),
        ("stop_reason", r.stop_reason.map_or(Value::Null, |s| s.as_str().into())),
        ("dead_letter", opt_dead_letter(&r.dead_letter)),
        ("disable_endpoint", r.disable_endpoint.into()),
        ("finished_at_ms", r.finished_at_ms.into()),
    ]);
    let v2 = [
        r.held_until_ms.into(),
        r.hold_reason.map_or(Value::Null, |h| h.as_str().into()),
        r.held_since_ms.into(),
        r.held_ms.into(),
        r.needs_reserve.into(),
        r.wake_refusals.into(),
        opt_str(&r.replay_of),
        opt_dead_letter(&r.replayed_dead_letter),
        opt_str(&r.replayed_as),
    ];
    if let Value::Object(m) = &mut v {
        if let Some(b) = &r.body_b64 {
            m.push(("body_b64".to_string(), b.as_str().into()));
        }
        m.extend(V2_FIELDS.iter().map(|k| k.to_string()).zip(v2));
    }
    v
}

/// A header record of format 2.
pub fn header_to_value(created_at_ms: u64) -> Value {
    obj([
        ("v", 2u64.into()),
        ("type", "header".into()),
        ("format", FORMAT.into()),
        ("created_at_ms", created_at_ms.into()),
    ])
}
