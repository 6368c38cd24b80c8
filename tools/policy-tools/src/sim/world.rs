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

/// The answer of an endpoint with `failure` at `t_ms` since the start.
pub fn answer(failure: &Failure, t_ms: u64) -> Answer {
    let s = t_ms / 1000;
    match failure {
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
    fn an_outage_covers_from_s_up_to_but_not_including_to_s() {
        let f = Failure::Outage { from_s: 60, to_s: 120, status: 502 };
        assert_eq!(answer(&f, 59_999).status, 200);
        assert_eq!(answer(&f, 60_000).status, 502);
        assert_eq!(answer(&f, 120_000).status, 200);
    }
}
