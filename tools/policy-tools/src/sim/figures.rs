//! What the side-by-side comparison measures per endpoint (issue 19's
//! figures): totals, per-second requests and held events, and the derived
//! figures (peak retry share over 60 s, the post-recovery rate).

use super::scenario::Failure;
use super::series::ratio;

/// One second of one endpoint.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointSecond {
    /// Requests sent to the endpoint (`send` actions: first attempts, retries, probes).
    pub requests: u64,
    /// Of those, retries (attempt number 2 or more).
    pub retries: u64,
    pub delivered: u64,
    /// Events held at the start of this second (filled by [`Figures::finish`]).
    pub held: u64,
    /// Change of the held count in this second (bookkeeping for `held`).
    pub held_delta: i64,
    /// Requests that did not leave a hold through the release pacer (new
    /// events, retries never held, probes): docs/health.md section 4 does
    /// not pace them.
    pub unpaced: u64,
    /// Per replica, the highest release rate its gates used in this second
    /// (0: none gated), from the engine (`take_release_peak_per_s`).
    pub release_peaks: Vec<f64>,
}

impl EndpointSecond {
    /// docs/health.md section 4's bound on this second's requests: the
    /// unpaced ones plus, per replica that released, the bucket's content
    /// when the second started and what accrued in it, `2 x max(R, 1)`.
    pub fn release_bound(&self) -> f64 {
        let paced: f64 = self.release_peaks.iter().filter(|r| **r > 0.0).map(|r| 2.0 * r.max(1.0)).sum();
        self.unpaced as f64 + paced
    }
}

/// Everything measured for one endpoint over one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub id: String,
    /// New events per second the scenario sends this endpoint (its normal rate).
    pub normal_per_s: f64,
    pub events: u64,
    pub delivered: u64,
    /// Dead letters in [`super::series::DEAD`] order.
    pub dead: [u64; 5],
    pub requests: u64,
    pub retries: u64,
    pub probes: u64,
    /// Answers 429 received.
    pub answers_429: u64,
    /// Requests sent while the endpoint was down (its pattern's outage).
    pub requests_in_outage: u64,
    /// Events that arrived while the endpoint was down, and how many of them were delivered.
    pub outage_arrivals: u64,
    pub outage_arrivals_delivered: u64,
    /// Requests sent before a `Retry-After` instant some reply had already announced.
    pub before_retry_after: u64,
    /// ... of those, sent by a replica whose usable view showed the pause
    /// (beyond gate 2's slack: the rest went out on a stale or missing view,
    /// or one older than the pause).
    pub before_retry_after_aware: u64,
    /// Events that were held at least once, and the held time of the dead-lettered ones.
    pub held_events: u64,
    pub dead_held_ms: u64,
    /// Dead letters of events that were held at least once.
    pub dead_held: u64,
    pub series: Vec<EndpointSecond>,
}

impl Figures {
    pub fn at(&mut self, t_ms: u64) -> &mut EndpointSecond {
        let s = (t_ms / 1000) as usize;
        if self.series.len() <= s {
            self.series.resize(s + 1, EndpointSecond::default());
        }
        &mut self.series[s]
    }

    /// Turn the held deltas into counts per second.
    pub fn finish(&mut self) {
        let mut held: i64 = 0;
        for s in &mut self.series {
            s.held = held.max(0) as u64;
            held += s.held_delta;
        }
    }

    pub fn dead_total(&self) -> u64 {
        self.dead.iter().sum()
    }

    /// Share of the outage's arrivals delivered (`None`: no outage arrivals).
    pub fn outage_delivered_share(&self) -> Option<f64> {
        (self.outage_arrivals > 0).then(|| ratio(self.outage_arrivals_delivered, self.outage_arrivals))
    }

    /// Highest retry share over any `w` consecutive seconds holding at least `floor` requests.
    pub fn peak_share(&self, w: usize, floor: u64) -> f64 {
        let s = &self.series;
        let (mut a, mut r, mut best) = (0u64, 0u64, 0.0f64);
        for i in 0..s.len() {
            a += s[i].requests;
            r += s[i].retries;
            if i >= w {
                a -= s[i - w].requests;
                r -= s[i - w].retries;
            }
            if i + 1 >= w && a >= floor.max(1) {
                best = best.max(ratio(r, a));
            }
        }
        best
    }

    /// The seconds inside the endpoint's up phases after its first recovery
    /// whose requests exceed [`EndpointSecond::release_bound`], and the
    /// highest requests / bound ratio among all of them (`None`: it never
    /// recovers).
    pub fn release_bound_check(&self, failure: &Failure) -> Option<(u64, f64)> {
        let ups = up_phases(failure, self.series.len() as u64)?;
        let (mut over, mut worst) = (0u64, 0.0f64);
        for (from, to) in ups {
            for s in &self.series[(from as usize).min(self.series.len())..(to as usize).min(self.series.len())] {
                let bound = s.release_bound();
                if s.requests as f64 > bound {
                    over += 1;
                }
                if bound > 0.0 {
                    worst = worst.max(s.requests as f64 / bound);
                }
            }
        }
        Some((over, worst))
    }

    /// Highest mean request rate over any 10 s inside the endpoint's up
    /// phases after its first recovery, as a multiple of its normal rate
    /// (`None`: it never recovers).
    pub fn post_recovery_multiple(&self, failure: &Failure) -> Option<f64> {
        let ups = up_phases(failure, self.series.len() as u64)?;
        let mut best: f64 = 0.0;
        for (from, to) in ups {
            let (from, to) = (from as usize, (to as usize).min(self.series.len()));
            for start in from..to.saturating_sub(9) {
                let n: u64 = self.series[start..start + 10].iter().map(|s| s.requests).sum();
                best = best.max(n as f64 / 10.0);
            }
        }
        Some(if self.normal_per_s > 0.0 { best / self.normal_per_s } else { 0.0 })
    }
}

/// The up phases after a recovery, `[from_s, to_s)`, within `len_s` seconds.
pub fn up_phases(failure: &Failure, len_s: u64) -> Option<Vec<(u64, u64)>> {
    match failure {
        Failure::Outage { to_s, .. } => Some(vec![(*to_s, len_s)]),
        Failure::Flapping { up_s, down_s } => {
            let period = (up_s + down_s).max(1);
            Some((1..=len_s / period).map(|k| (k * period, k * period + up_s)).collect())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_counts_follow_the_deltas_and_start_at_zero() {
        let mut f = Figures::default();
        f.at(0).held_delta += 2;
        f.at(2_500).held_delta -= 1;
        f.at(3_000);
        f.finish();
        let held: Vec<u64> = f.series.iter().map(|s| s.held).collect();
        assert_eq!(held, vec![0, 2, 2, 1]);
    }

    #[test]
    fn the_post_recovery_multiple_reads_only_the_up_phases_after_a_down_one() {
        let mut f = Figures { normal_per_s: 1.0, ..Figures::default() };
        for t in 0..40 {
            f.at(t * 1000).requests = if t < 10 { 9 } else { 2 };
        }
        let outage = Failure::Outage { from_s: 5, to_s: 10, status: 503 };
        assert_eq!(f.post_recovery_multiple(&outage), Some(2.0));
        assert_eq!(f.post_recovery_multiple(&Failure::Always503), None);
    }

    #[test]
    fn a_second_over_the_release_bound_is_counted_and_one_within_it_is_not() {
        let mut f = Figures::default();
        f.at(0).requests = 50; // inside the outage: not judged
                               // 1 unpaced + 2 x max(1.5, 1) + 2 x max(0.5, 1) (a replica that released) = 6.
        *f.at(1000) =
            EndpointSecond { requests: 7, unpaced: 1, release_peaks: vec![1.5, 0.5, 0.0], ..Default::default() };
        *f.at(2000) = EndpointSecond { requests: 6, unpaced: 1, release_peaks: vec![1.5, 0.5], ..Default::default() };
        let outage = Failure::Outage { from_s: 0, to_s: 1, status: 503 };
        let (over, worst) = f.release_bound_check(&outage).unwrap();
        assert_eq!(over, 1);
        assert!((worst - 7.0 / 6.0).abs() < 1e-9, "{worst}");
        assert_eq!(f.release_bound_check(&Failure::Always503), None);
    }
}
