//! The learned limit (docs/engine.md section 5, "The learned limit";
//! issue 28 item 1): per replica and endpoint, the request rate the
//! endpoint has shown it accepts, learned from its own answers by additive
//! increase and multiplicative decrease, and applied to every send to it
//! (new events, retries, releases; not probes) while it is known.
//!
//! # The math
//!
//! ```text
//! sent_per_s   = sent.current + sent.previous * w        1-second buckets, w = (1000 - now_ms % 1000) / 1000
//! throttled    (a 429, or a 503 with a Retry-After):
//!     no limit:           rate = max(floor, BETA * sent_per_s)
//!     limit, cut >= 1 s:  rate = max(floor, BETA * rate)          (at most one cut a second)
//!     cut_at_ms = now_ms
//! success, a limit known: rate = min(rate + 1 / rate, max(floor, CAP_SENT * sent_per_s))
//! forgotten:   FORGET_MS after the last cut (nothing throttled since)
//! token:       tokens' = min(1, tokens + rate * elapsed_ms / 1000); >= 1: send, tokens' - 1;
//!              else wait until now_ms + max(1, ceil((1 - tokens') * 1000 / rate))
//! ```
//!
//! `floor` is `release.floor_per_s` of the event's class. One success adds
//! `1 / rate`, so a replica that sends at its limit and is answered with
//! successes adds about one request per second each second; a throttle
//! takes 30% off, once a second at most (the answers to requests already in
//! flight when the first throttle came back say nothing new). The bucket
//! holds one token: sends are spaced, never burst.
//!
//! Why per replica and not in the store: the limit would be one more field
//! of the store call's reply (12 integers) or argument. `fleet/budget.lua`
//! ships in each host's package while the engine ships in the artifact, so
//! during a rollout a replica can run an engine and a script of different
//! releases, and either change makes one refuse the other's call (fails
//! closed). Replicas throttled by one endpoint share its answers, so their
//! limits converge on shares of its capacity as TCP's windows do.

/// The share of the rate kept at a throttle.
pub(crate) const BETA: f64 = 0.7;
/// A limit is forgotten this long after its last cut.
pub(crate) const FORGET_MS: u64 = 30_000;
/// The limit never grows past this multiple of what the replica sends.
pub(crate) const CAP_SENT: f64 = 2.0;

/// One replica's learned limit for one endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Limit {
    /// Requests per second; 0: no limit known.
    pub rate_per_s: f64,
    tokens: f64,
    updated_ms: u64,
    cut_at_ms: u64,
    /// Requests sent per second (buckets `now_ms / 1000`).
    sent: super::endpoint::TwoBuckets,
}

impl Limit {
    fn sent_per_s(&mut self, now_ms: u64) -> f64 {
        self.sent.roll(now_ms / 1000);
        let w = (1000 - now_ms % 1000) as f64 / 1000.0;
        self.sent.current as f64 + self.sent.previous as f64 * w
    }

    /// A request to the endpoint started.
    pub fn sent(&mut self, now_ms: u64) {
        self.sent.add(now_ms / 1000);
    }

    /// Whether a limit is known at `now_ms` (forgets it when due).
    pub fn active(&mut self, now_ms: u64) -> bool {
        if self.rate_per_s > 0.0 && now_ms >= self.cut_at_ms.saturating_add(FORGET_MS) {
            self.rate_per_s = 0.0;
        }
        self.rate_per_s > 0.0
    }

    /// The endpoint answered "slow down".
    pub fn throttled(&mut self, floor_per_s: f64, now_ms: u64) {
        let sent = self.sent_per_s(now_ms);
        if !self.active(now_ms) {
            self.rate_per_s = (BETA * sent).max(floor_per_s);
            self.tokens = 0.0;
            self.updated_ms = now_ms;
        } else if now_ms >= self.cut_at_ms.saturating_add(1000) {
            self.rate_per_s = (BETA * self.rate_per_s).max(floor_per_s);
        } else {
            return;
        }
        self.cut_at_ms = now_ms;
    }

    /// The endpoint accepted a request.
    pub fn succeeded(&mut self, floor_per_s: f64, now_ms: u64) {
        if !self.active(now_ms) {
            return;
        }
        let cap = (CAP_SENT * self.sent_per_s(now_ms)).max(floor_per_s);
        self.rate_per_s = (self.rate_per_s + 1.0 / self.rate_per_s).min(cap).max(floor_per_s);
    }

    /// Spend a token for one send, or say when the next one accrues.
    pub fn take(&mut self, now_ms: u64) -> Result<(), u64> {
        let rate = self.rate_per_s;
        let elapsed = now_ms.saturating_sub(self.updated_ms) as f64;
        let tokens = (self.tokens + rate * elapsed / 1000.0).min(1.0);
        self.updated_ms = now_ms;
        if tokens >= 1.0 {
            self.tokens = tokens - 1.0;
            return Ok(());
        }
        self.tokens = tokens;
        let wait = crate::health::pacer::ceil_u64((1.0 - tokens) * 1000.0 / rate).max(1);
        Err(now_ms.saturating_add(wait))
    }
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
    fn successes_grow_the_limit_by_about_one_per_second_and_never_past_twice_the_sent_rate() {
        let mut l = Limit { rate_per_s: 5.0, cut_at_ms: T, ..Limit::default() };
        for i in 0..5 {
            l.sent(T + i * 200); // a second at the limit before: 5/s sent
        }
        for i in 0..5 {
            l.sent(T + 1000 + i * 200);
            l.succeeded(1.0, T + 1000 + i * 200);
        }
        assert!(l.rate_per_s > 5.9 && l.rate_per_s < 6.1, "{}", l.rate_per_s);
        let mut idle = Limit { rate_per_s: 5.0, cut_at_ms: T, ..Limit::default() };
        idle.sent(T + 10);
        idle.succeeded(1.0, T + 10);
        assert_eq!(idle.rate_per_s, 2.0, "one request sent: capped at 2 x 1/s");
    }

    #[test]
    fn a_limit_is_forgotten_thirty_seconds_after_its_last_cut() {
        let mut l = Limit { rate_per_s: 5.0, cut_at_ms: T, ..Limit::default() };
        assert!(l.active(T + FORGET_MS - 1));
        assert!(!l.active(T + FORGET_MS));
    }

    #[test]
    fn tokens_space_sends_at_the_rate_with_no_burst() {
        let mut l = Limit { rate_per_s: 4.0, updated_ms: T, tokens: 1.0, cut_at_ms: T, ..Limit::default() };
        assert_eq!(l.take(T + 10_000), Ok(()));
        assert_eq!(l.take(T + 10_000), Err(T + 10_250));
        assert_eq!(l.take(T + 10_250), Ok(()));
    }
}
