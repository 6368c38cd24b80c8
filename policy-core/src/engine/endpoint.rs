//! Per endpoint, per replica, memory only (docs/health-dispatch.md section
//! 1): the newest health view, the release pacer, the admissions counted in
//! the budget's buckets, the probe window and the learned limit. At most `max_endpoints`
//! entries; past that the least recently used one is dropped (a dropped
//! view is a missing view: the gate fails open).

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;

use crate::budget::Budget;
use crate::health::{normal_per_s, HealthView, Pacer};

/// Events counted in bucket `bucket` and the one before it: the engine's
/// admissions per budget bucket (the pacer's normal rate) and its sends per
/// second (the learned limit, limit.rs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TwoBuckets {
    bucket: u64,
    pub current: u64,
    pub previous: u64,
}

impl TwoBuckets {
    /// Roll to `bucket`: the next one shifts, any later one zeroes, an
    /// older one changes nothing (time is monotonic in the engine).
    pub fn roll(&mut self, bucket: u64) {
        if bucket <= self.bucket {
            return;
        }
        self.previous = if Some(bucket) == self.bucket.checked_add(1) { self.current } else { 0 };
        self.current = 0;
        self.bucket = bucket;
    }

    /// Count one in `bucket` (rolled to it first).
    pub fn add(&mut self, bucket: u64) {
        self.roll(bucket);
        self.current = self.current.saturating_add(1);
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Endpoint {
    pub view: Option<HealthView>,
    pub pacer: Pacer,
    /// Admissions in the budget's buckets.
    admissions: TwoBuckets,
    /// No probe call before this instant (the end of the probe window of the last answered probe).
    pub probe_busy_until_ms: u64,
    pub probe_in_flight: bool,
    /// The hold queue (release.rs): `(probes, deadline_ms, seq, event id)`,
    /// fewest probes sent first, then earliest deadline.
    pub release: BTreeSet<(u32, u64, u64, String)>,
    /// The rate this endpoint has shown it accepts (limit.rs).
    pub limit: super::limit::Limit,
    /// The highest release rate (`rate_per_s`, tokens a second) a gate
    /// used since [`super::Engine::take_release_peak_per_s`] last read it.
    pub release_peak_per_s: f64,
    /// Admissions in `NORMAL_KEEP_MS` buckets (release.rs, "the
    /// admissions' rate kept").
    admissions_kept: TwoBuckets,
    used: u64,
}

impl Endpoint {
    /// Count a new event's admission (replays do not count).
    pub fn admitted(&mut self, budget: &Budget, now_ms: u64) {
        self.admissions.add(budget.bucket(now_ms));
        self.admissions_kept.add(super::release::KEPT.bucket(now_ms));
    }

    /// Set the pacer's `normal_per_s` from the admissions, rolled to `now_ms`.
    pub fn set_normal(&mut self, budget: &Budget, now_ms: u64) {
        self.admissions.roll(budget.bucket(now_ms));
        let a = self.admissions;
        self.pacer.normal_per_s = normal_per_s(budget, now_ms, a.current, a.previous);
    }

    /// The admissions' rate over the last `NORMAL_KEEP_MS` (sliding, as
    /// the budget's): what a backlog is released against once arrivals
    /// slow or stop.
    pub fn kept_normal_per_s(&mut self, now_ms: u64) -> f64 {
        let kept = &super::release::KEPT;
        self.admissions_kept.roll(kept.bucket(now_ms));
        let a = self.admissions_kept;
        normal_per_s(kept, now_ms, a.current, a.previous)
    }

    /// What the hold queue needs per second to meet every deadline in
    /// order when the pacer holds `in_hand` tokens (release.rs, "The
    /// backlog's need"); 0 for an empty queue.
    pub fn backlog_need_per_s(&self, now_ms: u64, in_hand: f64) -> f64 {
        let mut need: f64 = 0.0;
        for (k, (_, deadline, _, _)) in self.release.iter().take(super::release::NEED_HORIZON).enumerate() {
            let left_ms = deadline.saturating_sub(now_ms);
            let wait = (k + 1) as f64 - in_hand;
            if left_ms > 0 && wait > 0.0 {
                need = need.max(wait * 1000.0 / left_ms.max(10) as f64);
            }
        }
        need * super::release::NEED_MARGIN
    }

    /// Keep `view` unless the kept one is newer.
    pub fn observe(&mut self, view: HealthView) {
        if self.view.is_none_or(|v| v.as_of_ms <= view.as_of_ms) {
            self.view = Some(view);
        }
    }
}

/// The bounded table.
#[derive(Clone, Debug, Default)]
pub(crate) struct Endpoints {
    map: BTreeMap<String, Endpoint>,
    max: usize,
    clock: u64,
}

impl Endpoints {
    pub fn new(max: usize) -> Self {
        Endpoints { map: BTreeMap::new(), max: max.max(1), clock: 0 }
    }

    /// The entry for `id` if there is one (not counted as a use).
    pub fn peek(&mut self, id: &str) -> Option<&mut Endpoint> {
        self.map.get_mut(id)
    }

    /// The entry for `id`, created (evicting the least recently used) when missing.
    pub fn get(&mut self, id: &str) -> &mut Endpoint {
        self.clock += 1;
        if !self.map.contains_key(id) {
            if self.map.len() >= self.max {
                // O(n) over at most `max` entries, only when a new endpoint
                // arrives at a full table.
                let oldest = self
                    .map
                    .iter()
                    .filter(|(_, e)| !e.probe_in_flight && e.release.is_empty())
                    .min_by_key(|(_, e)| e.used);
                if let Some(k) = oldest.map(|(k, _)| k.clone()) {
                    self.map.remove(&k);
                }
            }
            self.map.insert(String::from(id), Endpoint::default());
        }
        let e = self.map.get_mut(id).expect("inserted above");
        e.used = self.clock;
        e
    }
}

#[cfg(test)]
mod tests {
    use super::Endpoint;
    use crate::budget::Budget;

    #[test]
    fn the_kept_admissions_rate_slides_over_the_last_minute_after_arrivals_stop() {
        let budget = Budget { ratio: 0.1, window_ms: 10_000, min_sample: 20, sliding: true };
        let mut ep = Endpoint::default();
        // One admission a second through the first minute ([0, 60 s)).
        for s in 0..60 {
            ep.admitted(&budget, s * 1000);
        }
        // Arrivals stopped: 15 s into the next minute the previous one
        // weighs 0.75, so 60 x 0.75 admissions over 60 s: 0.75/s (the
        // budget's 10 s window would give 0 by then).
        assert!((ep.kept_normal_per_s(75_000) - 0.75).abs() < 1e-12);
        assert_eq!(ep.kept_normal_per_s(120_000), 0.0, "a minute with none: nothing kept");
    }
}
