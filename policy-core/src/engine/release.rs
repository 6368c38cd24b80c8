//! The release queue (docs/engine.md section 5, "Release"; issue 28): per
//! endpoint, the events held for the release pacer, earliest deadline first.
//!
//! Without it every held event woke at the pacer's next token, one won it,
//! and every other one wrote a new journaled hold: journal writes grew with
//! the square of the backlog. With it:
//!
//! * an event enters the queue with **one** journaled `release_pacing` hold
//!   (none when it was already waiting for the pacer, e.g. resumed so);
//! * only the queue's **head** (the earliest deadline) waits for the next
//!   token; every other member waits for its own deadline, where the gate
//!   stops it (`retry_window_elapsed`) if it never reached the head;
//! * when the head leaves (sent, held for another reason, stopped), the
//!   next one is due at once and gated: it sends if a token is left, else
//!   it waits for the next token with no new record.
//!
//! So a held event costs O(1) journal records however long the backlog.
//!
//! **The backlog's need.** A backlog drains at the pacer's rate, which
//! follows the replica's admissions: when arrivals stop after an outage,
//! the rate falls to `release.floor_per_s` and events die in a healthy
//! endpoint's queue. So the gate's normal rate is raised to what the queue
//! needs to meet every deadline in order: releasing in deadline order at
//! rate `r` delivers the k-th event by `now + k / r`, so every event meets
//! its deadline `d_k` when `r >= max_k k / (d_k - now)`. The engine takes
//! that maximum over the first [`NEED_HORIZON`] members still inside their
//! window (`d_k - now` counted as at least 10 ms), adds a quarter
//! ([`NEED_MARGIN`]: a release exactly at the deadline is too late, and the
//! need is recomputed only when the queue is gated), caps it at 100 times
//! the section's floor, and sets the pacer's `normal_per_s` to at least
//! `need / release.multiple`, so the pacer's rate (`max(floor, multiple *
//! normal)`) is at least the need.

use alloc::string::String;

use super::Engine;
use crate::health::HoldReason;

/// Members of a queue the need is computed over (the earliest deadlines).
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

impl Engine {
    /// Hold `id` for the release pacer until `until_ms` (the next token, by
    /// its deadline): the queue's rule above.
    pub(crate) fn pace_hold(&mut self, id: &str, until_ms: u64) {
        let e = self.events.get_mut(id).expect("an open event");
        let silent = e.pacing.is_some() || core::mem::replace(&mut e.pacing_held, false);
        let deadline = e.deadline_ms;
        let endpoint = e.endpoint_id.clone();
        let key = match e.pacing {
            Some(k) => k,
            None => {
                self.seq += 1;
                let k = (deadline, self.seq);
                self.events.get_mut(id).expect("checked above").pacing = Some(k);
                self.endpoints.get(&endpoint).release.insert((k.0, k.1, String::from(id)));
                k
            }
        };
        self.mark_held(id, until_ms, HoldReason::ReleasePacing, !silent);
        let ep = self.endpoints.get(&endpoint);
        let head = ep.release.first().map(|(d, s, _)| (*d, *s));
        if head == Some(key) {
            // The new head waits for the token; the head it displaced, if
            // any, for its own deadline.
            let second = ep.release.iter().nth(1).map(|(d, _, i)| (i.clone(), *d));
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

    /// `id` leaves its endpoint's release queue (it sends, holds for another
    /// reason, or stops); a new head is due at once.
    pub(crate) fn leave_release(&mut self, id: &str) {
        let Some(e) = self.events.get_mut(id) else { return };
        e.pacing_held = false;
        let Some((d, s)) = e.pacing.take() else { return };
        let endpoint = e.endpoint_id.clone();
        let ep = self.endpoints.get(&endpoint);
        let was_head = ep.release.first().is_some_and(|(hd, hs, _)| (*hd, *hs) == (d, s));
        ep.release.remove(&(d, s, String::from(id)));
        if was_head {
            if let Some((_, _, next)) = ep.release.first().cloned() {
                let now = self.now_ms;
                self.schedule(&next, now);
            }
        }
    }
}
