//! Per-second counters of one run, and their percentiles.

use retry_policy_core::StopReason;

/// The five dead-letter reasons, in the order the series lists them.
pub const DEAD: [StopReason; 5] = [
    StopReason::TerminalResponse,
    StopReason::MaxAttemptsExhausted,
    StopReason::RetryWindowElapsed,
    StopReason::RetryBudgetExhausted,
    StopReason::BudgetUnavailable,
];

pub fn dead_index(r: StopReason) -> Option<usize> {
    DEAD.iter().position(|d| *d == r)
}

/// One second of virtual time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Second {
    pub attempts: u64,
    pub first_attempts: u64,
    pub retries: u64,
    /// Attempts and retries to endpoints that are not healthy (what the budget sees).
    pub failing_attempts: u64,
    pub failing_retries: u64,
    pub delivered: u64,
    pub dead: [u64; 5],
    /// Delivery latencies (first attempt to delivery) of events delivered in this second.
    pub latencies_ms: Vec<u64>,
}

impl Second {
    pub fn retry_share(&self) -> f64 {
        ratio(self.retries, self.attempts)
    }

    pub fn failing_share(&self) -> f64 {
        ratio(self.failing_retries, self.failing_attempts)
    }

    /// The `q` quantile (0..=1) of this second's delivery latencies (nearest rank).
    pub fn latency(&self, q: f64) -> Option<u64> {
        percentile(&self.latencies_ms, q)
    }
}

pub fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Nearest-rank quantile of unsorted values.
pub fn percentile(values: &[u64], q: f64) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_unstable();
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}

/// Seconds, grown on demand.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series(pub Vec<Second>);

impl Series {
    pub fn at(&mut self, t_ms: u64) -> &mut Second {
        let s = (t_ms / 1000) as usize;
        if self.0.len() <= s {
            self.0.resize(s + 1, Second::default());
        }
        &mut self.0[s]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 0.5), Some(50));
        assert_eq!(percentile(&v, 0.99), Some(99));
        assert_eq!(percentile(&[7], 0.9), Some(7));
        assert_eq!(percentile(&[], 0.5), None);
    }
}
