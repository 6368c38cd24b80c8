//! What an endpoint answers at a virtual instant.

use super::scenario::Failure;

/// An endpoint's answer: the status and its `Retry-After` header, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub retry_after: Option<String>,
}

impl Answer {
    fn status(status: u16) -> Answer {
        Answer { status, retry_after: None }
    }
}

/// What a receiver with state (a capacity) remembers: requests in the
/// current second. One per endpoint and run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Load {
    pub second: u64,
    pub requests: u64,
}

/// The answer of an endpoint with `failure` to a request at `t_ms` since
/// the start, counting it in `load` (only a capacity reads it).
pub fn answer_counted(failure: &Failure, t_ms: u64, load: &mut Load) -> Answer {
    let s = t_ms / 1000;
    if let Failure::Capacity { per_s, retry_after_s } = failure {
        if load.second != s {
            *load = Load { second: s, requests: 0 };
        }
        load.requests += 1;
        return if load.requests <= *per_s {
            Answer::status(200)
        } else {
            Answer { status: 429, retry_after: Some(retry_after_s.to_string()) }
        };
    }
    answer(failure, t_ms)
}

/// Whether the endpoint is down at `t_ms` by its pattern: an outage, a
/// flapping endpoint's down phase, always 503, always 429. A capacity is
/// never down (it answers 429 only beyond its rate).
pub fn is_down(failure: &Failure, t_ms: u64) -> bool {
    match failure {
        Failure::Healthy | Failure::Capacity { .. } => false,
        Failure::Always503 | Failure::RateLimited { .. } => true,
        _ => answer(failure, t_ms).status != 200,
    }
}

/// The answer of a stateless endpoint with `failure` at `t_ms` since the
/// start (a capacity, without its load, answers as if idle: 200).
pub fn answer(failure: &Failure, t_ms: u64) -> Answer {
    let s = t_ms / 1000;
    match failure {
        Failure::Capacity { .. } => Answer::status(200),
        Failure::Healthy => Answer::status(200),
        Failure::Always503 => Answer::status(503),
        Failure::Flapping { up_s, down_s } => {
            let period = (up_s + down_s).max(1);
            Answer::status(if s % period < *up_s { 200 } else { 503 })
        }
        Failure::RateLimited { retry_after_s } => Answer { status: 429, retry_after: Some(retry_after_s.to_string()) },
        Failure::Outage { from_s, to_s, status } => {
            Answer::status(if (*from_s..*to_s).contains(&s) { *status } else { 200 })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flapping_endpoint_is_up_then_down_then_up_again() {
        let f = Failure::Flapping { up_s: 10, down_s: 5 };
        let statuses: Vec<u16> = [0, 9_999, 10_000, 14_999, 15_000].iter().map(|t| answer(&f, *t).status).collect();
        assert_eq!(statuses, vec![200, 200, 503, 503, 200]);
    }

    #[test]
    fn a_capacity_answers_429_with_retry_after_beyond_its_rate_and_starts_again_each_second() {
        let f = Failure::Capacity { per_s: 2, retry_after_s: 1 };
        let mut load = Load::default();
        let statuses: Vec<u16> =
            [0, 10, 20, 999, 1_000].iter().map(|t| answer_counted(&f, *t, &mut load).status).collect();
        assert_eq!(statuses, vec![200, 200, 429, 429, 200]);
        let mut load = Load::default();
        for _ in 0..2 {
            answer_counted(&f, 5, &mut load);
        }
        assert_eq!(answer_counted(&f, 6, &mut load).retry_after.as_deref(), Some("1"));
    }

    #[test]
    fn an_outage_covers_from_s_up_to_but_not_including_to_s() {
        let f = Failure::Outage { from_s: 60, to_s: 120, status: 502 };
        assert_eq!(answer(&f, 59_999).status, 200);
        assert_eq!(answer(&f, 60_000).status, 502);
        assert_eq!(answer(&f, 120_000).status, 200);
    }
}
