//! The learned limit (docs/engine.md section 5, "The learned limit";
//! issue 28 item 1): per replica and endpoint, the request rate the
//! endpoint has shown it accepts, learned from its own answers by additive
//! increase and multiplicative decrease, and applied to every send to it
//! (new events, retries, releases; not probes) while it is known.
//!
//! # The math
//!
//! ```text
//! per_s(b)     = b.current + b.previous * w      1-second buckets, w = (1000 - now_ms % 1000) / 1000
//! sent_per_s   = per_s(requests started)         ok_per_s = per_s(2xx answers)
//! throttled    (a 429, or a 503 with a Retry-After):
//!     no limit:           rate = max(floor, KEEP * ok_per_s)              (ok_per_s > 0)
//!                         rate = max(floor, BETA * sent_per_s)            (no 2xx in the last second)
//!     limit, cut >= 1 s:  rate = max(floor, BETA * rate, min(KEEP * rate, KEEP * ok_per_s))
//!     cut_at_ms = now_ms
//! success, a limit known: rate = max(rate, min(rate + GROWTH_PER_S / max(rate, 1), max(floor, CAP_SENT * sent_per_s)), floor)
//! FORGET_MS after the last cut or doubling (nothing throttled since):
//!     CAP_SENT * sent_per_s <= rate:  forgotten (the limit no longer binds)
//!     else:                           rate = min(CAP_SENT * rate, CAP_SENT * sent_per_s), doubled_at_ms = now_ms
//!     (cuts stay at most one a second from the last cut, not from a doubling)
//! quota of calendar second S = floor(now_ms / 1000):
//!     rate >= 1:  n(S) = floor(rate)
//!     rate <  1:  n(S) = floor((S + 1) * rate) - floor(S * rate)      (one send every 1 / rate s)
//! the k-th send of S (k from 0) starts no earlier than S * 1000 + ceil(k * 1000 / n(S));
//! past n(S) sends, the first slot of the next second whose quota is not 0
//! ```
//!
//! `floor` is `release.floor_per_s` of the event's class.
//!
//! A throttle says the endpoint's capacity was used up; what this replica
//! had through in the second before it (`ok_per_s`) is its share of that
//! capacity, so the limit becomes just under it (`KEEP`, 95%): every
//! replica answered by the endpoint does the same, and their limits sum to
//! just under what the endpoint accepted, in one step and with no store.
//! A cut takes 5% at least and 30% at most (`BETA`), and at most one a
//! second (the answers to requests in flight when the first throttle came
//! back say nothing new).
//!
//! Growth is the same for every replica, whatever its rate: a replica
//! sending at its limit `r >= 1` has `r` successes a second, each adding
//! `GROWTH_PER_S / r`, so its limit grows by `GROWTH_PER_S` (0.1) requests
//! a second (below 1/s, by `0.1 x r`). That is additive increase per unit
//! of time, AIMD's, which with the proportional cuts makes the replicas'
//! limits converge to equal shares. The rule before added a fixed 0.003
//! per success: growth proportional to the rate, under which shares never
//! converge. The first throttle of a run comes in its first second, when
//! each replica's `ok_per_s` is one or two requests: four replicas offered
//! 6/s each at a 10/s receiver started at 1.9, 1, 1 and 5.7, and three of
//! them were still near 1/s with hundreds held 20 s later (simulated: 84%
//! of the cap accepted while arrivals lasted, 56% after; now 95% and 86%).
//! Growth is still slow: at 0.1/s per replica each throttle costs the
//! fleet the endpoint's pause (a `Retry-After: 1` stops every replica for a
//! second), so probing the ceiling often costs more than the few percent
//! probing finds. It was 0.05 until 2026-12-07 (sixth session): once
//! arrivals stop, a replica whose queue empties leaves its share unused
//! and the others win it back only at this rate. Simulated (the
//! real-process policy), 0.1 against 0.05: the backlog drained after
//! arrivals at 91.0% of a 10/s cap against 85.7% (four replicas), 94.1%
//! against 78.8% (bursts), 97.5% against 98.5% (two replicas), with 429s
//! at 3.6%, 4.2% and 2.4% of requests (1.7%, 3.2%, 1.7%); 0.15 drained
//! more but had 5.8% 429s. Real processes (four languages, three runs side
//! by side): 9.1, 8.5 and 9.3 accepted per second after arrivals against
//! 8.4, 8.7 and 8.8, 429s 4.2%, 3.5%, 3.7% against 4.7%, 3.2%, 2.6%. The rule before that (a cut to 0.7 x what was sent, one
//! more request a second each second, TCP's one more per round trip) had
//! 10.2% 429s and 7.3/s accepted at a receiver capped at 10/s, against 4.2%
//! and 8.1/s with the per-success gain (real processes, four languages,
//! docs/health-simulation.md).
//!
//! A success never lowers the limit: twice what the replica sends bounds
//! its growth, not its level. It once did both, and after a `Retry-After`
//! pause (a second with nothing sent) the first success cut a 5.6/s limit
//! to 2/s, where the slow growth left it: the simulator's capped receiver
//! drained its held backlog at 74% of the cap once arrivals stopped (98.5%
//! with this rule, the growth per second above and the admissions' rate
//! kept, release.rs).
//!
//! A limit still in use when `FORGET_MS` have passed without a throttle
//! doubles (bounded by twice what is sent) rather than vanishing: forgotten,
//! the pacer went back to the backlog's need (up to 100 x the floor) at
//! once, a burst the endpoint answered with a run of 429s every 30 s (the
//! simulator's capped receiver: 10.1% 429s with forgetting, 1.1% with
//! doubling). A limit the replica no longer reaches is forgotten.
//!
//! Why whole sends per calendar second, not a token bucket at `rate`: a
//! receiver that caps requests per second (the common rate limit) counts
//! them in its own seconds, and the replicas share the wall clock's. A
//! bucket at 2.4/s gives a second 2 or 3 sends by its phase, so four
//! replicas whose rates sum to 9.5 sent 8 to 12 in a second, and an
//! endpoint capped at 10/s answered the 11th and 12th with a 429 that
//! paused the whole fleet for a second: 80-83% of the cap was accepted with
//! real processes. With `floor(rate)` sends in each second the fleet never
//! sends more in a second than the floors' sum, at most the rates' sum;
//! successes grow the rates until the floors' sum meets the cap, and only
//! that step draws a 429. Simulated (`simulate --compare-health`, a
//! receiver capped at 10/s): 75.5% -> 92.8% of the cap accepted while
//! arrivals last (two replicas, 25/s offered), 81.9% -> 93.3% (four,
//! bursts). Spacing the sends evenly inside the second keeps a receiver
//! that counts over any 1,000 ms (or a token bucket) at the same sum.
//!
//! Why per replica and not in the store: the limit would be one more field
//! of the store call's reply (12 integers) or argument. `fleet/budget.lua`
//! ships in each host's package while the engine ships in the artifact, so
//! during a rollout a replica can run an engine and a script of different
//! releases, and either change makes one refuse the other's call (fails
//! closed). The share rule above makes the replicas' limits sum to what the
//! endpoint accepts without a shared field.

/// The least share of the rate kept at a throttle (a 30% cut at most).
pub(crate) const BETA: f64 = 0.7;
/// The share of what the endpoint accepted (and of the rate) a throttle keeps at most.
pub(crate) const KEEP: f64 = 0.95;
/// Requests a second a known limit grows by each second it is used (one
/// success at rate `r` adds `GROWTH_PER_S / max(r, 1)`).
pub(crate) const GROWTH_PER_S: f64 = 0.1;
/// A limit doubles (in use) or is forgotten (not) this long after its last cut or doubling.
pub(crate) const FORGET_MS: u64 = 30_000;
/// The limit never grows past this multiple of what the replica sends.
pub(crate) const CAP_SENT: f64 = 2.0;

/// One replica's learned limit for one endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Limit {
    /// Requests per second; 0: no limit known.
    pub rate_per_s: f64,
    /// The calendar second (`now_ms / 1000`) `used` counts sends of.
    second: u64,
    /// Sends started in `second` (`u32::MAX`: none more in it).
    used: u32,
    cut_at_ms: u64,
    /// The last doubling (the 30 s run from the later of this and the last cut).
    doubled_at_ms: u64,
    /// Requests sent per second (buckets `now_ms / 1000`).
    sent: super::endpoint::TwoBuckets,
    /// 2xx answers per second (buckets `now_ms / 1000`).
    ok: super::endpoint::TwoBuckets,
}

/// `b`'s count over the last second at `now_ms`: this second's and the part
/// of the previous one still inside the last 1000 ms.
fn per_s(b: &mut super::endpoint::TwoBuckets, now_ms: u64) -> f64 {
    b.roll(now_ms / 1000);
    let w = (1000 - now_ms % 1000) as f64 / 1000.0;
    b.current as f64 + b.previous as f64 * w
}

impl Limit {
    /// A request to the endpoint started.
    pub fn sent(&mut self, now_ms: u64) {
        self.sent.add(now_ms / 1000);
    }

    /// Whether a limit is known at `now_ms` (forgets it when due).
    pub fn active(&mut self, now_ms: u64) -> bool {
        if self.rate_per_s > 0.0 && now_ms >= self.cut_at_ms.max(self.doubled_at_ms).saturating_add(FORGET_MS) {
            let sent = per_s(&mut self.sent, now_ms);
            if CAP_SENT * sent <= self.rate_per_s {
                self.rate_per_s = 0.0;
            } else {
                self.rate_per_s = (CAP_SENT * self.rate_per_s).min(CAP_SENT * sent);
                self.doubled_at_ms = now_ms;
            }
        }
        self.rate_per_s > 0.0
    }

    /// The endpoint answered "slow down".
    pub fn throttled(&mut self, floor_per_s: f64, now_ms: u64) {
        let ok = per_s(&mut self.ok, now_ms);
        if !self.active(now_ms) {
            let first = if ok > 0.0 { KEEP * ok } else { BETA * per_s(&mut self.sent, now_ms) };
            self.rate_per_s = first.max(floor_per_s);
            // No more sends in this second (the first throttle's "no token").
            self.second = now_ms / 1000;
            self.used = u32::MAX;
        } else if now_ms >= self.cut_at_ms.saturating_add(1000) {
            let rate = self.rate_per_s;
            self.rate_per_s = (KEEP * rate).min(KEEP * ok).max(BETA * rate).max(floor_per_s);
        } else {
            return;
        }
        self.cut_at_ms = now_ms;
    }

    /// The endpoint accepted a request.
    pub fn succeeded(&mut self, floor_per_s: f64, now_ms: u64) {
        self.ok.add(now_ms / 1000);
        if !self.active(now_ms) {
            return;
        }
        let cap = (CAP_SENT * per_s(&mut self.sent, now_ms)).max(floor_per_s);
        let grown = self.rate_per_s + GROWTH_PER_S / self.rate_per_s.max(1.0);
        self.rate_per_s = self.rate_per_s.max(grown.min(cap)).max(floor_per_s);
    }

    /// Take a slot for one send now, or say when the next one is.
    pub fn take(&mut self, now_ms: u64) -> Result<(), u64> {
        let second = now_ms / 1000;
        if second != self.second {
            self.second = second;
            self.used = 0;
        }
        let n = quota(second, self.rate_per_s);
        let used = u64::from(self.used);
        if used < n {
            let slot = second * 1000 + (used * 1000).div_ceil(n);
            if now_ms >= slot {
                self.used = self.used.saturating_add(1);
                return Ok(());
            }
            return Err(slot);
        }
        Err(next_second_with_quota(second, self.rate_per_s).saturating_mul(1000))
    }
}

/// Sends allowed in calendar second `second` at `rate` a second (> 0).
fn quota(second: u64, rate: f64) -> u64 {
    if rate >= 1.0 {
        return rate as u64;
    }
    ((second + 1) as f64 * rate) as u64 - (second as f64 * rate) as u64
}

/// The first second after `second` whose quota is not 0: the next one at
/// a rate of 1 or more; below, the one where `floor((S + 1) * rate)` next
/// steps up.
fn next_second_with_quota(second: u64, rate: f64) -> u64 {
    if rate >= 1.0 {
        return second + 1;
    }
    let done = ((second + 1) as f64 * rate) as u64; // sends due through `second`
    let mut s = (crate::health::pacer::ceil_u64((done + 1) as f64 / rate).saturating_sub(1)).max(second + 1);
    // Rounding can land a second early: the quota itself decides, a few
    // seconds on at most. (Never a walk to the next step: at a tiny rate that
    // is 1 / rate seconds of loop. A wake in a second with no quota only
    // asks again.)
    for _ in 0..3 {
        if quota(s, rate) > 0 {
            break;
        }
        s += 1;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: u64 = 1_800_000_000_000;

    #[test]
    fn a_first_throttle_sets_the_limit_to_seventy_percent_of_what_was_sent() {
        let mut l = Limit::default();
        for i in 0..20 {
            l.sent(T + i * 50);
        }
        l.throttled(1.0, T + 1000);
        // At T + 1000 the previous second's 20 count whole: 0.7 * 20 = 14.
        assert!((l.rate_per_s - 14.0).abs() < 1e-9, "{}", l.rate_per_s);
    }

    #[test]
    fn throttles_within_a_second_of_a_cut_cut_nothing_and_the_floor_holds() {
        let mut l = Limit { rate_per_s: 10.0, cut_at_ms: T, ..Limit::default() };
        l.throttled(1.0, T + 999);
        assert_eq!(l.rate_per_s, 10.0);
        l.throttled(1.0, T + 1000);
        assert!((l.rate_per_s - 7.0).abs() < 1e-9);
        for k in 1..40 {
            l.throttled(1.0, T + 1000 + k * 1000);
        }
        assert_eq!(l.rate_per_s, 1.0);
    }

    #[test]
    fn a_first_throttle_after_successes_keeps_ninety_five_percent_of_what_the_endpoint_accepted() {
        let mut l = Limit::default();
        for i in 0..20 {
            l.sent(T + i * 50);
            if i % 2 == 0 {
                l.succeeded(1.0, T + i * 50 + 20);
            }
        }
        l.throttled(1.0, T + 1000);
        // 10 of the previous second's 20 were accepted: 0.95 * 10.
        assert!((l.rate_per_s - 9.5).abs() < 1e-9, "{}", l.rate_per_s);
    }

    #[test]
    fn a_later_cut_keeps_between_seventy_and_ninety_five_percent_of_the_rate() {
        let busy = |accepted: u64| {
            let mut l = Limit { rate_per_s: 10.0, cut_at_ms: T, ..Limit::default() };
            for i in 0..10 {
                l.sent(T + 1000 + i * 10);
            }
            for i in 0..accepted {
                l.succeeded(1.0, T + 1000 + i * 10);
            }
            l.throttled(1.0, T + 1999);
            l.rate_per_s
        };
        assert!((busy(10) - 9.5).abs() < 1e-9, "all accepted: a 5% cut");
        assert!((busy(9) - 0.95 * 9.0).abs() < 1e-9, "0.95 * 9 accepted");
        // Two successes at 10/s grew it by about 2 x GROWTH_PER_S / 10.
        let grown = 10.0 + GROWTH_PER_S / 10.0;
        let grown = grown + GROWTH_PER_S / grown;
        assert!((busy(2) - BETA * grown).abs() < 1e-9, "few accepted: a 30% cut at most");
    }

    #[test]
    fn a_second_of_successes_at_the_limit_grows_it_by_growth_per_s_never_past_twice_the_sent_rate_nor_lower() {
        let mut l = Limit { rate_per_s: 5.0, cut_at_ms: T, ..Limit::default() };
        for i in 0..5 {
            l.sent(T + i * 200); // a second at the limit before: 5/s sent
        }
        for i in 0..5 {
            l.sent(T + 1000 + i * 200);
            l.succeeded(1.0, T + 1000 + i * 200);
        }
        // Five successes at about 5/s: about GROWTH_PER_S in the second,
        // whatever the rate (at 2/s, two successes would add the same).
        let mut want = 5.0;
        for _ in 0..5 {
            want += GROWTH_PER_S / want;
        }
        assert!((l.rate_per_s - want).abs() < 1e-9, "{}", l.rate_per_s);
        assert!((want - 5.0 - GROWTH_PER_S).abs() < 1e-3);
        // After a quiet second (a Retry-After pause held every send), one
        // request sent: growth stops at 2 x 1/s, and the limit stays where
        // it was (it once fell to 2/s here, and a paused replica then
        // drained its backlog at a fifth of what the endpoint accepted).
        let mut idle = Limit { rate_per_s: 5.0, cut_at_ms: T, ..Limit::default() };
        idle.sent(T + 10);
        idle.succeeded(1.0, T + 10);
        assert_eq!(idle.rate_per_s, 5.0, "a success never lowers the limit");
        let mut low = Limit { rate_per_s: 1.999, cut_at_ms: T, ..Limit::default() };
        low.sent(T + 10);
        low.succeeded(1.0, T + 10);
        assert_eq!(low.rate_per_s, 2.0, "grown up to 2 x 1/s sent, no further");
    }

    #[test]
    fn thirty_seconds_after_its_last_cut_a_limit_in_use_doubles_and_one_not_in_use_is_forgotten() {
        let busy = |sends: u64| {
            let mut l = Limit { rate_per_s: 5.0, cut_at_ms: T, ..Limit::default() };
            for i in 0..sends {
                l.sent(T + FORGET_MS - 1000 + i * 10);
            }
            assert!(l.active(T + FORGET_MS - 1));
            assert_eq!(l.rate_per_s, 5.0, "nothing moves before");
            let on = l.active(T + FORGET_MS);
            (on, l.rate_per_s)
        };
        // 5 sent in the second before (at the limit): it doubles, at most to 2 x sent.
        assert_eq!(busy(5), (true, 10.0));
        // 3 sent: more than half of it, so still in use; 2 x 3 = 6 caps the doubling.
        assert_eq!(busy(3), (true, 6.0));
        // 2 sent: 2 x 2 <= 5, the limit no longer binds: forgotten.
        assert_eq!(busy(2), (false, 0.0));
        // A throttle right after a doubling cuts (cuts are spaced from cuts).
        let mut l = Limit { rate_per_s: 5.0, cut_at_ms: T, ..Limit::default() };
        for i in 0..5 {
            l.sent(T + FORGET_MS - 1000 + i * 10);
        }
        assert!(l.active(T + FORGET_MS));
        l.throttled(1.0, T + FORGET_MS + 10);
        assert!((l.rate_per_s - 7.0).abs() < 1e-9, "0.7 x 10 (no 2xx): {}", l.rate_per_s);
    }

    #[test]
    fn a_limit_allows_its_whole_sends_in_each_calendar_second_spaced_inside_it() {
        let mut l = Limit { rate_per_s: 3.9, cut_at_ms: T, ..Limit::default() };
        // T is a round second: 3 slots, at +0, +334 and +667.
        assert_eq!(l.take(T + 10_000), Ok(()));
        assert_eq!(l.take(T + 10_000), Err(T + 10_334));
        assert_eq!(l.take(T + 10_334), Ok(()));
        assert_eq!(l.take(T + 10_900), Ok(()), "a late send takes the slot it missed");
        assert_eq!(l.take(T + 10_950), Err(T + 11_000), "three sent: the next second");
        assert_eq!(l.take(T + 11_000), Ok(()));
    }

    #[test]
    fn below_one_a_second_a_limit_sends_once_every_so_many_seconds() {
        let mut l = Limit { rate_per_s: 0.25, cut_at_ms: T, ..Limit::default() };
        let mut sent = alloc::vec::Vec::new();
        let mut now = T;
        while now < T + 20_000 {
            match l.take(now) {
                Ok(()) => {
                    sent.push((now - T) / 1000);
                    now += 1;
                }
                Err(at) => {
                    assert!(at > now);
                    now = at;
                }
            }
        }
        assert_eq!(sent.len(), 5, "{sent:?}");
        assert!(sent.windows(2).all(|w| w[1] - w[0] == 4), "one every 4 s: {sent:?}");
    }

    #[test]
    fn a_tiny_rate_answers_at_once_with_a_second_ahead() {
        let mut l = Limit { rate_per_s: 1e-9, cut_at_ms: T, ..Limit::default() };
        let at = match l.take(T + 5_000) {
            Ok(()) => l.take(T + 5_000).unwrap_err(),
            Err(at) => at,
        };
        assert!(at > T + 5_000 && at % 1000 == 0, "{at}");
    }

    #[test]
    fn a_first_throttle_leaves_no_more_sends_in_its_second() {
        let mut l = Limit::default();
        l.throttled(1.0, T + 500);
        assert_eq!(l.take(T + 600), Err(T + 1000));
        assert_eq!(l.take(T + 1000), Ok(()));
    }
}
