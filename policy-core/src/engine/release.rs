//! The hold queue (docs/engine.md section 5, "Release"; issue 28): per
//! endpoint, the events held for a reason that is the endpoint's and not
//! the event's ([`queued`]: a pause, the release pacer, an open circuit, a
//! probe another event holds), earliest deadline first (after the probes each sent).
//!
//! Without it every held event woke at the same instant (the pacer's next
//! token, the cooldown's end, the next probe window), one went on, and
//! every other one wrote a new journaled hold: journal writes grew with
//! the square of the backlog for the pacer, and for an open circuit by two
//! records per held event per cooldown (a 20 s outage: 4 cooldowns, 1,142
//! circuit holds for 798 events with real processes). With it:
//!
//! * an event enters the queue with **one** journaled hold (none when it
//!   leaves a journaled hold of the same reason, as a member or resumed in
//!   it); a member held again for **another** reason writes one (its record
//!   says why it waits);
//! * only the queue's **head** waits for the
//!   instant its hold names; every other member waits for its own
//!   deadline, where the gate stops it (`retry_window_elapsed`) if it never
//!   reached the head;
//! * when the head leaves (sent, probing, held for another reason,
//!   stopped), the next one is due at once and gated: it sends if it may,
//!   else it waits (the head now) with no new record unless its reason
//!   changed.
//!
//! So a held event costs O(1) journal records however long the backlog and
//! however many cooldowns it waits through.
//!
//! **The order: fewest probes sent, then earliest deadline.** Earliest
//! deadline first meets the most deadlines. But under an open circuit the
//! head is the one that probes, and a probe spends an attempt: by deadline
//! alone the same event was the head at every cooldown, spent all its
//! attempts on probes and was dead-lettered `max_attempts_exhausted`
//! (`policy-core/tests/engine_circuit_queue.rs`: 6 attempts, a 120 s
//! outage, one event dead and 27 records for it). So members are ordered
//! first by the probes each was sent as (memory only): a failed prober goes
//! behind the others and the probes rotate through the backlog. Not by
//! attempts: a retry would then wait behind every new arrival, and a
//! sustained backlog at a throttling endpoint would starve retries until
//! their deadlines.
//!
//! **The backlog's need.** A backlog drains at the pacer's rate, which
//! follows the replica's admissions: when arrivals stop after an outage,
//! the rate falls to `release.floor_per_s` and events die in a healthy
//! endpoint's queue. So the gate's normal rate is raised to what the queue
//! needs to meet every deadline in its order: with `t` tokens in hand,
//! releasing in queue order at rate `r` delivers the k-th member by
//! `now + max(k - t, 0) / r`, so every member meets its deadline `d_k` when
//! `r >= max_k (k - t) / (d_k - now)`. `t` is what the pacer holds at `now`
//! at the rate before the need (the admissions' and the kept rate): a
//! higher rate only holds more. The engine takes that maximum over the
//! first [`NEED_HORIZON`] members still inside their window (`d_k - now`
//! counted as at least 10 ms), adds a quarter ([`NEED_MARGIN`]: a release
//! exactly at the deadline is too late, and the need is recomputed only
//! when the queue is gated), caps it at 100 times the section's floor, and
//! sets the pacer's `normal_per_s` to at least `need / release.multiple`,
//! so the pacer's rate (`max(floor, multiple * normal)`) is at least the
//! need.
//!
//! Why the tokens in hand count: the rate also sizes the bucket (one
//! second's worth), and a bucket idle through a pause is full at whatever
//! size the rate gives at its end. Counted as if the bucket were empty
//! (`k / (d_k - now)`), a head 250 ms from its deadline at a pause's end
//! asked for 5/s although the token it held sent it at once; the bucket
//! then held five and the next member went in the same instant. At the
//! simulator's endpoint answering `429 Retry-After: 120` for 10 minutes
//! that happened at two pause ends once paused events waited in the queue:
//! 74 requests against 72 (format 2: 735), both extra ones answered 429
//! (`policy-core/tests/engine_release.rs` pins one pause end).

use alloc::string::String;

use super::Engine;
use crate::health::HoldReason;

/// Members of a queue the need is computed over (the first in queue order).
pub(crate) const NEED_HORIZON: usize = 1024;
/// The need is raised by this factor (a margin: see the module docs).
pub(crate) const NEED_MARGIN: f64 = 1.25;
/// The need is capped at this many times `release.floor_per_s`.
pub const NEED_CAP_FLOORS: f64 = 100.0;

/// The window of the admissions' rate kept (docs/engine.md section 5, "The
/// admissions' rate kept"): the pacer's `normal_per_s` is never below the
/// admissions of the last `NORMAL_KEEP_MS` (sliding), so a backlog held
/// when arrivals stop is released at the rate they came at, decaying over
/// a minute, not over the budget's window (10 s in the real-process policy,
/// after which the release fell to the backlog's need and the floor).
pub(crate) const NORMAL_KEEP_MS: u64 = 60_000;

/// The buckets of the admissions' rate kept: [`normal_per_s`](crate::health::normal_per_s)'s
/// sliding count over `NORMAL_KEEP_MS` (only the window and `sliding` are read).
pub(crate) const KEPT: crate::budget::Budget =
    crate::budget::Budget { ratio: 1.0, window_ms: NORMAL_KEEP_MS, min_sample: 0, sliding: true };

/// Whether a hold for `reason` waits in the endpoint's hold queue: the
/// reasons that are the endpoint's (its pause, its pacer, its circuit, its
/// probe), so one event at a time acts on them. A `budget_refused` hold is
/// the event's own (its retry was refused). (A pause outside the queue
/// emptied it: its head was held `paused` and left, the next became the
/// head and did the same, each writing a record, and all of them woke at
/// the pause's end to write a `release_pacing` hold each.)
pub(crate) fn queued(reason: HoldReason) -> bool {
    matches!(
        reason,
        HoldReason::ReleasePacing | HoldReason::CircuitOpen | HoldReason::ProbeRefused | HoldReason::Paused
    )
}

impl Engine {
    /// Hold `id` in its endpoint's queue until `until_ms` (the instant the
    /// gate named, by its deadline): the queue's rule above.
    pub(crate) fn queue_hold(&mut self, id: &str, until_ms: u64, reason: HoldReason) {
        let e = self.events.get_mut(id).expect("an open event");
        let silent = e.rehold.take() == Some(reason);
        let deadline = e.deadline_ms;
        let probes = e.probes;
        let endpoint = e.endpoint_id.clone();
        let key = match e.pacing {
            Some(k) => k,
            None => {
                self.seq += 1;
                let k = (probes, deadline, self.seq);
                self.events.get_mut(id).expect("checked above").pacing = Some(k);
                self.endpoints.get(&endpoint).release.insert((k.0, k.1, k.2, String::from(id)));
                k
            }
        };
        self.mark_held(id, until_ms, reason, !silent);
        let ep = self.endpoints.get(&endpoint);
        let head = ep.release.first().map(|(a, d, s, _)| (*a, *d, *s));
        if head == Some(key) {
            // The new head waits for its instant; the head it displaced, if
            // any, for its own deadline.
            let second = ep.release.iter().nth(1).map(|(_, d, _, i)| (i.clone(), *d));
            if let Some((other, d)) = second {
                if self.events.get(&other).and_then(|o| o.queued).is_some_and(|(t, _)| t != d) {
                    self.schedule(&other, d);
                }
            }
            self.schedule(id, until_ms);
        } else {
            self.schedule(id, deadline);
        }
    }

    /// `id` leaves its endpoint's hold queue (it sends, probes, holds for a
    /// reason of its own, or stops); a new head is due at once.
    pub(crate) fn leave_release(&mut self, id: &str) {
        let Some(e) = self.events.get_mut(id) else { return };
        e.rehold = None;
        let Some((a, d, s)) = e.pacing.take() else { return };
        let endpoint = e.endpoint_id.clone();
        let ep = self.endpoints.get(&endpoint);
        let was_head = ep.release.first().is_some_and(|(ha, hd, hs, _)| (*ha, *hd, *hs) == (a, d, s));
        ep.release.remove(&(a, d, s, String::from(id)));
        if was_head {
            if let Some((_, _, _, next)) = ep.release.first().cloned() {
                let now = self.now_ms;
                self.schedule(&next, now);
            }
        }
    }
}
