//! Replay of dead letters (docs/health-dispatch.md section 4): each chosen
//! dead letter (`dead_lettered`, not yet replayed, matching the filter, in
//! journal order, at most `limit`) is admitted again under the **current**
//! document's policy for its class (`admit-compiled` at `now_ms` for a class
//! with `health`) as a new pending event `<id>~r<n>` with `replay_of` and
//! `replayed_dead_letter`. That record is the commit: the dead letter's own
//! `replayed_as` record follows, and a crash between the two replays
//! nothing twice (the reader derives `replayed_as` from `replay_of`). The
//! next run sends the replays, held at their first gate.

use retry_policy_core::StopReason;
use retry_policy_host::{HostError, Policies, PolicyInstance};
use serde_json::{json, Value};

use crate::journal_error::JournalError;
use crate::store::{EventRecord, EventStore, HoldFields, Status};

/// Default `limit`.
pub const DEFAULT_LIMIT: usize = 10_000;

/// Which dead letters to replay.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayFilter {
    pub endpoint_id: Option<String>,
    pub stop_reason: Option<StopReason>,
    /// `finished_at_ms >= from_ms`
    pub from_ms: Option<u64>,
    /// `finished_at_ms < to_ms`
    pub to_ms: Option<u64>,
    pub limit: usize,
}

impl Default for ReplayFilter {
    fn default() -> Self {
        ReplayFilter { endpoint_id: None, stop_reason: None, from_ms: None, to_ms: None, limit: DEFAULT_LIMIT }
    }
}

impl ReplayFilter {
    fn chooses(&self, r: &EventRecord) -> bool {
        r.status == Status::DeadLettered
            && self.endpoint_id.as_ref().is_none_or(|e| *e == r.endpoint_id)
            && self.stop_reason.is_none_or(|s| Some(s) == r.stop_reason)
            && self.from_ms.is_none_or(|f| r.finished_at_ms >= f)
            && self.to_ms.is_none_or(|t| r.finished_at_ms < t)
    }
}

/// What a replay did (the command's JSON line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayReport {
    pub replayed: u64,
    pub already_replayed: u64,
    pub skipped_no_class: u64,
    /// The new event ids, in order.
    pub ids: Vec<String>,
}

impl ReplayReport {
    pub fn to_json(&self) -> Value {
        json!({"replayed": self.replayed, "already_replayed": self.already_replayed,
               "skipped_no_class": self.skipped_no_class, "ids": self.ids})
    }
}

/// Why a replay stopped.
#[derive(Debug)]
pub enum ReplayError {
    Journal(JournalError),
    Policy(HostError),
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplayError::Journal(e) => write!(f, "{e}"),
            ReplayError::Policy(e) => write!(f, "the policy refused a replay's admission: {e}"),
        }
    }
}

/// The replay's id: `<id>~r1`, or `~r<n+1>` in place of an `~r<n>` suffix.
pub fn replay_id(event_id: &str) -> String {
    if let Some((base, n)) = event_id.rsplit_once("~r") {
        let digits = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0');
        if let (true, Ok(n)) = (digits, n.parse::<u64>()) {
            return format!("{base}~r{}", n.saturating_add(1));
        }
    }
    format!("{event_id}~r1")
}

/// Replay what `filter` chooses among `records` (the journal's newest
/// records in first-seen order, `replayed_as` derived), writing to `store`
/// (the journal's one writer).
pub fn replay(
    store: &EventStore,
    records: &[EventRecord],
    policies: &Policies,
    inst: &mut PolicyInstance,
    filter: &ReplayFilter,
    now_ms: u64,
) -> Result<ReplayReport, ReplayError> {
    let mut out = ReplayReport::default();
    let current = policies.current();
    for dl in records.iter().filter(|r| filter.chooses(r)) {
        if dl.hold.replayed_as.is_some() {
            out.already_replayed += 1;
            continue;
        }
        if (out.replayed + out.skipped_no_class) as usize >= filter.limit {
            break;
        }
        if !current.document.classes.iter().any(|c| c.name == dl.class) {
            out.skipped_no_class += 1;
            continue;
        }
        let admission = policies.admit(inst, &dl.class, now_ms).map_err(ReplayError::Policy)?;
        let Some((policy, health)) = policies.by_hash_health(&admission.policy_hash) else {
            out.skipped_no_class += 1;
            continue;
        };
        let new_id = replay_id(&dl.event_id);
        let replay = EventRecord {
            event_id: new_id.clone(),
            endpoint_id: dl.endpoint_id.clone(),
            target: dl.target.clone(),
            class: dl.class.clone(),
            policy_version: admission.policy_version,
            policy_hash: admission.policy_hash,
            policy,
            first_attempted_at_ms: admission.first_attempted_at_ms,
            deadline_ms: admission.deadline_ms,
            max_attempts: admission.schedule.max_attempts,
            offsets_ms: admission.schedule.offsets_ms,
            attempts: 0,
            credentials_refreshed: false,
            next_attempt_at_ms: now_ms,
            status: Status::Pending,
            last_outcome: String::new(),
            stop_reason: None,
            dead_letter: None,
            disable_endpoint: false,
            finished_at_ms: 0,
            body_b64: dl.body_b64.clone(),
            health,
            hold: HoldFields {
                replay_of: Some(dl.event_id.clone()),
                replayed_dead_letter: dl.dead_letter.clone(),
                ..HoldFields::default()
            },
        };
        store.put(&replay).map_err(ReplayError::Journal)?; // the commit
        let mut marked = dl.clone();
        marked.hold.replayed_as = Some(new_id.clone());
        store.put(&marked).map_err(ReplayError::Journal)?;
        out.replayed += 1;
        out.ids.push(new_id);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::replay_id;

    #[test]
    fn a_replay_id_adds_r1_or_counts_up_an_existing_suffix() {
        assert_eq!(replay_id("ev-1"), "ev-1~r1");
        assert_eq!(replay_id("ev-1~r1"), "ev-1~r2");
        assert_eq!(replay_id("ev-1~r9"), "ev-1~r10");
        assert_eq!(replay_id("ev~rx"), "ev~rx~r1");
        assert_eq!(replay_id("ev~r"), "ev~r~r1");
        assert_eq!(replay_id("ev~r01"), "ev~r01~r1");
    }
}
