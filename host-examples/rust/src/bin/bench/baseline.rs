//! The floor a team would hand-write: a plain Rust port of the design
//! note's decision path (its `classify_status`, `stop_reason`, budget check
//! `retries < total * ratio`, random full jitter), with no validation and
//! none of the contract's fixes. The benchmark compares the component to it.

use retry_policy_core::{AttemptOutcome, BudgetCounts, DeliveryState};

pub struct NotePolicy {
    pub base_ms: f64,
    pub factor: f64,
    pub cap_ms: f64,
    pub window_ms: u64,
    pub max_attempts: u32,
    pub ratio: f64,
    pub min_sample: u64,
}

/// xorshift64*: the "random" of the note's jitter, seeded per process.
pub struct Rng(pub u64);

impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn classify_status(status: u16) -> u8 {
    match status {
        200..=299 => 0,
        408 | 425 | 429 | 500 | 502 | 503 | 504 => 1,
        400 | 401 | 403 | 404 | 405 | 409 | 410 | 422 => 2,
        500..=599 => 1,
        _ => 2,
    }
}

/// `None`: retry after the returned delay; `Some(reason)`: stop.
pub fn decide(
    p: &NotePolicy,
    s: &DeliveryState,
    o: &AttemptOutcome,
    now_ms: u64,
    c: &BudgetCounts,
    rng: &mut Rng,
) -> Result<u64, &'static str> {
    let class = match o {
        AttemptOutcome::Response { status, .. } => classify_status(*status),
        AttemptOutcome::TransportError { kind } => {
            u8::from(!matches!(kind.as_str(), "connect_timeout" | "read_timeout")) * 2
        }
    };
    match class {
        0 => return Err("delivered"),
        2 => return Err("terminal_response"),
        _ => {}
    }
    if s.attempt >= p.max_attempts {
        return Err("max_attempts_exhausted");
    }
    if now_ms.saturating_sub(s.first_attempted_at_ms) >= p.window_ms {
        return Err("retry_window_elapsed");
    }
    let total = c.current.total;
    if total >= p.min_sample && (c.current.retries as f64) >= total as f64 * p.ratio {
        return Err("retry_budget_exhausted");
    }
    let ceiling = p.cap_ms.min(p.base_ms * p.factor.powi(s.attempt as i32 - 1));
    Ok((rng.next_f64() * ceiling) as u64)
}
