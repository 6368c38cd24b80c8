//! Events entering the engine: `admit` (a new event under the current
//! document), `replay` (a dead letter admitted again, at most once) and
//! `resume` (the journal's events, after a restart, in any language).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::event::{Event, Phase};
use super::io::{NewEvent, Output, ReplayFilter};
use super::{metrics, EngineError};
use crate::document::Admission;
use crate::journal::{EventRecord, Status};

/// The longest id or class the engine takes (bounded memory per event).
pub const MAX_ID_BYTES: usize = 512;
/// The longest target URL.
pub const MAX_TARGET_BYTES: usize = 8192;
/// The default and largest replay `limit`.
pub const REPLAY_LIMIT: u64 = 10_000;

fn check_text(field: &str, s: &str, max: usize) -> Result<(), EngineError> {
    if s.is_empty() {
        return Err(EngineError::invalid(field, "must not be empty"));
    }
    if s.len() > max {
        return Err(EngineError::invalid(field, &format!("longer than {max} bytes")));
    }
    Ok(())
}

impl super::Engine {
    /// A new event from an admission (attempts 0, due now).
    fn admitted_event(&mut self, ev: &NewEvent, a: Admission) -> Event {
        self.order += 1;
        let known = &self.policies[&a.policy_hash].policy;
        let rec = EventRecord {
            version: 2,
            event_id: ev.event_id.clone(),
            endpoint_id: ev.endpoint_id.clone(),
            target: ev.target.clone(),
            class: a.class,
            policy_version: a.policy_version,
            policy_hash: a.policy_hash,
            policy: *known.policy(),
            health: known.health().copied(),
            first_attempted_at_ms: a.first_attempted_at_ms,
            deadline_ms: a.deadline_ms,
            max_attempts: a.plan.max_attempts,
            offsets_ms: a.plan.offsets_ms,
            attempts: 0,
            credentials_refreshed: false,
            next_attempt_at_ms: self.now_ms,
            status: Status::Pending,
            last_outcome: String::new(),
            stop_reason: None,
            dead_letter: None,
            disable_endpoint: false,
            finished_at_ms: 0,
            body_b64: ev.body_b64.clone(),
            held_until_ms: 0,
            hold_reason: None,
            held_since_ms: 0,
            held_ms: 0,
            needs_reserve: false,
            wake_refusals: 0,
            replay_of: None,
            replayed_dead_letter: None,
            replayed_as: None,
        };
        Event {
            rec,
            refresh_next: false,
            resumed: false,
            order: self.order,
            phase: Phase::Waiting,
            queued: None,
            unwritten: None,
            pacing: None,
            rehold: None,
            probes: 0,
            send_url: None,
        }
    }

    fn admission(&self, class: &str) -> Result<Admission, EngineError> {
        let hash = self.classes.get(class).ok_or_else(|| {
            crate::error::PolicyError::new(
                crate::error::ErrorCode::UnknownEventClass,
                "class",
                format!("the current document has no class {class:?}"),
            )
        })?;
        Ok(self.policies[hash].policy.admit(class, &self.version, self.now_ms)?)
    }

    pub(super) fn admit(&mut self, ev: NewEvent) -> Result<(), EngineError> {
        if self.draining {
            return Err(EngineError::Draining);
        }
        check_text("event_id", &ev.event_id, MAX_ID_BYTES)?;
        check_text("endpoint_id", &ev.endpoint_id, MAX_ID_BYTES)?;
        check_text("class", &ev.class, MAX_ID_BYTES)?;
        check_text("target", &ev.target, MAX_TARGET_BYTES)?;
        let send_url = match crate::destination::read_target(&ev.target) {
            Ok(t) => t.url(),
            Err(t) => return Err(EngineError::InvalidTarget { reason: t.code, message: t.message }),
        };
        if self.events.contains_key(&ev.event_id) {
            return Err(EngineError::DuplicateEvent { event_id: ev.event_id });
        }
        if let Some(max_open) = self.config.max_open.filter(|m| self.open_events() as u64 >= *m) {
            return Err(EngineError::AtCapacity { max_open });
        }
        if self.open_events() as u64 >= self.config.max_events {
            return Err(EngineError::Full { max_events: self.config.max_events });
        }
        let a = self.admission(&ev.class)?;
        self.started = true;
        let mut event = self.admitted_event(&ev, a);
        event.send_url = Some(send_url);
        let known = &self.policies[&event.policy_hash].policy;
        if known.health().is_some() {
            let budget = known.policy().budget;
            self.endpoints.get(&event.endpoint_id).admitted(&budget, self.now_ms);
        }
        let id = event.event_id.clone();
        self.events.insert(id.clone(), event);
        self.journal(&id);
        self.schedule(&id, self.now_ms);
        Ok(())
    }

    /// Whether dead letter `id` was replayed: its own `replayed_as`, or any
    /// event's `replay_of` naming it (the replay's own record is the commit).
    fn replayed(&self, id: &str) -> bool {
        self.events.get(id).is_some_and(|e| e.replayed_as.is_some())
            || self.events.values().any(|e| e.replay_of.as_deref() == Some(id))
    }

    fn chosen(&self, e: &Event, f: &ReplayFilter) -> bool {
        e.status == Status::DeadLettered
            && f.endpoint_id.as_ref().is_none_or(|x| *x == e.endpoint_id)
            && f.stop_reason.as_ref().is_none_or(|x| e.stop_reason.is_some_and(|r| r.as_str() == x))
            && f.from_ms.is_none_or(|x| e.finished_at_ms >= x)
            && f.to_ms.is_none_or(|x| e.finished_at_ms < x)
    }

    /// docs/health-dispatch.md section 4, one `Replayed` output.
    pub(super) fn replay(&mut self, f: &ReplayFilter) -> Result<(), EngineError> {
        if self.draining {
            return Err(EngineError::Draining);
        }
        let limit = f.limit.unwrap_or(REPLAY_LIMIT).min(REPLAY_LIMIT);
        let mut candidates: Vec<(u64, String)> =
            self.events.values().filter(|e| self.chosen(e, f)).map(|e| (e.order, e.event_id.clone())).collect();
        candidates.sort();
        let (mut ids, mut already, mut skipped) = (Vec::new(), 0u64, 0u64);
        for (_, id) in candidates {
            if self.replayed(&id) {
                already += 1;
                continue;
            }
            if ids.len() as u64 >= limit {
                break;
            }
            let old = self.events[&id].clone();
            let Ok(a) = self.admission(&old.class) else {
                skipped += 1;
                continue;
            };
            let new_id = replay_id(&old.event_id);
            if self.events.contains_key(&new_id) {
                already += 1;
                continue;
            }
            self.started = true;
            let ne = NewEvent {
                event_id: new_id.clone(),
                endpoint_id: old.endpoint_id.clone(),
                target: old.target.clone(),
                class: old.class.clone(),
                body_b64: old.body_b64.clone(),
            };
            let mut event = self.admitted_event(&ne, a);
            event.replay_of = Some(old.event_id.clone());
            event.replayed_dead_letter = old.dead_letter.clone();
            self.events.insert(new_id.clone(), event);
            self.journal(&new_id);
            self.schedule(&new_id, self.now_ms);
            self.events.get_mut(&id).expect("chosen from the map").replayed_as = Some(new_id.clone());
            self.journal(&id);
            self.count(metrics::REPLAYED);
            ids.push(new_id);
        }
        let replayed = ids.len() as u64;
        self.out.push_back(Output::Replayed { replayed, already_replayed: already, skipped_no_class: skipped, ids });
        Ok(())
    }

    /// A journal's events: open ones scheduled (judged by `resume` when
    /// due), dead letters kept for replay, delivered ones dropped. An event
    /// an earlier `resume` already gave is skipped (the first journal wins;
    /// one `warn` says how many). `copy`: the bytes are another journal,
    /// read only: its open events are journaled into the host's own, and
    /// its torn tail and header are not the host's business.
    pub(super) fn resume(&mut self, bytes: &[u8], copy: bool) -> Result<(), EngineError> {
        if self.started {
            return Err(EngineError::ResumeTooLate);
        }
        let recovered = super::records::recover(bytes)?;
        if !copy {
            if recovered.torn_bytes > 0 {
                self.write_records();
                self.out.push_back(Output::JournalTruncate { keep_bytes: recovered.good_len });
            }
            self.header_written |= recovered.has_header;
            self.journal_records += recovered.records;
        }
        let mut skipped = 0u64;
        let mut ids = Vec::new();
        for (mut event, policy) in recovered.events {
            if self.events.contains_key(&event.event_id) {
                skipped += 1;
                continue;
            }
            self.policies.entry(event.policy_hash.clone()).or_insert(super::Known { policy });
            self.order += 1;
            event.order = self.order;
            let id = event.event_id.clone();
            let due = match event.status {
                Status::Pending => Some(event.next_attempt_at_ms),
                Status::Held => Some(event.held_until_ms),
                Status::DeadLettered => None,
                Status::Delivered => continue,
            };
            if event.status == Status::Held {
                self.held_changed(true);
            }
            event.resumed = true;
            let dead = event.status == Status::DeadLettered;
            self.events.insert(id.clone(), event);
            if dead {
                self.keep_dead(&id);
            }
            if let Some(t) = due {
                ids.push(id.clone());
                if copy {
                    self.journal(&id);
                }
                self.schedule(&id, t.max(self.now_ms));
            }
        }
        if skipped > 0 {
            let message = alloc::format!("resume: {skipped} events an earlier journal gave were skipped");
            self.out.push_back(Output::Warn { event_id: None, message });
        }
        self.out.push_back(Output::Resumed { ids });
        Ok(())
    }

    /// The state as journal text: a header at `now_ms`, then every event's
    /// record in first-seen order. Only while nothing is in flight, so no
    /// record names an attempt whose result is still to come.
    pub(super) fn snapshot(&mut self) -> Result<(), EngineError> {
        if self.busy > 0 || !self.calls.is_empty() {
            return Err(EngineError::Busy { in_flight: self.busy, calls: self.calls.len() as u64 });
        }
        let journal = self.state_text();
        self.write_records();
        self.out.push_back(Output::Snapshot { journal });
        Ok(())
    }
}

/// `<id>~r<n>`: `n` one more than the `~r<n>` suffix `id` already ends with, else 1.
pub fn replay_id(id: &str) -> String {
    if let Some((base, n)) = id.rsplit_once("~r") {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(n) = n.parse::<u64>() {
                return format!("{base}~r{}", n.saturating_add(1));
            }
        }
    }
    format!("{id}~r1")
}
