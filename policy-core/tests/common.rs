#![allow(dead_code)]
use retry_policy_core::*;

pub fn note_backoff() -> Backoff {
    Backoff { base_ms: 2_000, factor: 2.0, cap_ms: 300_000, jitter: Jitter::Full }
}

pub fn note_policy() -> Policy {
    Policy { backoff: note_backoff(), window_ms: 900_000, hard_cap: 16, budget: Budget::default() }
}

pub fn state(attempt: u32) -> DeliveryState {
    DeliveryState {
        event_id: "evt_1".into(),
        endpoint_id: "ep_42".into(),
        attempt,
        max_attempts: 13,
        first_attempted_at_ms: 1_700_000_000_000,
        credentials_refreshed: false,
    }
}

pub fn status(code: u16) -> AttemptOutcome {
    AttemptOutcome::Response { status: code, retry_after_ms: None }
}

pub fn healthy_counts() -> BudgetCounts {
    BudgetCounts {
        current: BucketCounts { total: 1000, retries: 5 },
        previous: BucketCounts { total: 1000, retries: 5 },
    }
}

pub fn stop_reason(d: &Decision) -> Option<StopReason> {
    match d {
        Decision::Stop(s) => Some(s.reason),
        Decision::Retry(_) => None,
    }
}

/// The event id a journal line (`<crc32> <json>`) is about; `None` for a header.
pub fn journal_event_id(line: &str) -> Option<String> {
    let at = line.find("\"event_id\":\"")?;
    line[at + 12..].split('"').next().map(String::from)
}
