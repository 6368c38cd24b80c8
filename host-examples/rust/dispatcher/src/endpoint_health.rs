//! Per replica, per endpoint, in memory only (docs/health-dispatch.md
//! section 1): the newest health `view` a store reply gave, the release
//! `pacer` the gate hands back, and the endpoint's `admissions` counted in
//! the class budget's buckets (for `normal-per-s`). Bounded to
//! [`MAX_ENDPOINTS`]: past it the least recently used endpoint is dropped
//! (a dropped view is a missing one: the gate fails open; a dropped pacer
//! is a new one). No policy rule here: the rate is the component's
//! `normal-per-s`, the gate's; this file only keeps values.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

use retry_policy_core::health::{HealthView, Pacer};
use retry_policy_core::Budget;

/// Most endpoints kept.
pub const MAX_ENDPOINTS: usize = 10_000;

/// New events admitted to an endpoint, in the budget's buckets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Admissions {
    pub bucket: u64,
    pub current: u64,
    pub previous: u64,
}

impl Admissions {
    /// Rolled to `bucket`: the next bucket moves `current` to `previous`,
    /// a later one zeroes both (an older one changes nothing).
    pub fn rolled(self, bucket: u64) -> Admissions {
        match bucket.checked_sub(self.bucket) {
            Some(0) | None => self,
            Some(1) => Admissions { bucket, current: 0, previous: self.current },
            Some(_) => Admissions { bucket, current: 0, previous: 0 },
        }
    }
}

/// What is kept for one endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EndpointHealth {
    pub view: Option<HealthView>,
    pub pacer: Pacer,
    pub admissions: Admissions,
    /// One probe call per endpoint and probe window: none before this instant.
    pub probe_busy_until_ms: u64,
    /// A probe call for the endpoint is in flight.
    pub probe_in_flight: bool,
}

#[derive(Default)]
pub struct Table {
    entries: HashMap<String, (EndpointHealth, u64)>,
    /// Last use -> endpoint (the oldest first).
    by_use: BTreeMap<u64, String>,
    clock: u64,
}

impl Table {
    /// The endpoint's entry (a new one when missing), marked used now; the
    /// least recently used one is dropped past [`MAX_ENDPOINTS`].
    pub fn entry(&mut self, endpoint_id: &str) -> &mut EndpointHealth {
        self.clock += 1;
        let clock = self.clock;
        if let Some((_, used)) = self.entries.get(endpoint_id) {
            self.by_use.remove(used);
        } else if self.entries.len() >= MAX_ENDPOINTS {
            if let Some((_, oldest)) = self.by_use.pop_first() {
                self.entries.remove(&oldest);
            }
        }
        self.by_use.insert(clock, endpoint_id.to_string());
        let e = self.entries.entry(endpoint_id.to_string()).or_default();
        e.1 = clock;
        &mut e.0
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry, if kept (not marked used).
    pub fn peek(&self, endpoint_id: &str) -> Option<&EndpointHealth> {
        self.entries.get(endpoint_id).map(|(e, _)| e)
    }
}

/// The shared table (one per dispatcher).
#[derive(Default)]
pub struct EndpointTable(Mutex<Table>);

impl EndpointTable {
    pub fn lock(&self) -> MutexGuard<'_, Table> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keep `view` unless the kept one is newer (a failed call changes nothing).
    pub fn keep_view(&self, endpoint_id: &str, view: Option<HealthView>) {
        let Some(v) = view else { return };
        let mut t = self.lock();
        let e = t.entry(endpoint_id);
        if e.view.is_none_or(|kept| v.as_of_ms >= kept.as_of_ms) {
            e.view = Some(v);
        }
    }

    /// Whether this replica may make a `probe` call for the endpoint now (none
    /// in flight, the last one's probe window over); if so it is marked in flight.
    pub fn try_probe(&self, endpoint_id: &str, now_ms: u64) -> bool {
        let mut t = self.lock();
        let e = t.entry(endpoint_id);
        let free = !e.probe_in_flight && now_ms >= e.probe_busy_until_ms;
        e.probe_in_flight |= free;
        free
    }

    /// The probe call ended; `busy_until_ms` (when it was answered) is the end
    /// of the probe window no other call is made in.
    pub fn probe_done(&self, endpoint_id: &str, busy_until_ms: Option<u64>) {
        let mut t = self.lock();
        let e = t.entry(endpoint_id);
        e.probe_in_flight = false;
        if let Some(until) = busy_until_ms {
            e.probe_busy_until_ms = until;
        }
    }

    /// A new event was admitted to the endpoint at `now_ms`.
    pub fn admitted(&self, endpoint_id: &str, budget: &Budget, now_ms: u64) {
        let bucket = now_ms / budget.window_ms.max(1);
        let mut t = self.lock();
        let e = t.entry(endpoint_id);
        e.admissions = e.admissions.rolled(bucket);
        e.admissions.current += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_ten_thousand_endpoints_the_least_recently_used_is_dropped() {
        let mut t = Table::default();
        for i in 0..MAX_ENDPOINTS {
            t.entry(&format!("ep-{i}")).pacer.tokens = 1.0;
        }
        t.entry("ep-0"); // used again: ep-1 is now the oldest
        t.entry("ep-new");
        assert_eq!(t.len(), MAX_ENDPOINTS);
        assert!(t.peek("ep-0").is_some(), "a recently used endpoint stays");
        assert!(t.peek("ep-1").is_none(), "the least recently used one is dropped");
        assert_eq!(t.entry("ep-1").pacer, Pacer::default(), "a dropped pacer comes back new");
    }

    #[test]
    fn an_older_view_never_replaces_a_newer_one_and_admissions_roll_by_bucket() {
        let table = EndpointTable::default();
        let v = |as_of_ms| Some(HealthView { as_of_ms, ..HealthView::default() });
        table.keep_view("ep", v(20));
        table.keep_view("ep", v(10));
        table.keep_view("ep", None);
        assert_eq!(table.lock().peek("ep").unwrap().view.unwrap().as_of_ms, 20);
        let a = Admissions { bucket: 5, current: 3, previous: 1 };
        assert_eq!(a.rolled(5), a);
        assert_eq!(a.rolled(6), Admissions { bucket: 6, current: 0, previous: 3 });
        assert_eq!(a.rolled(9), Admissions { bucket: 9, current: 0, previous: 0 });
        assert_eq!(a.rolled(4), a, "an older bucket changes nothing");
    }
}
