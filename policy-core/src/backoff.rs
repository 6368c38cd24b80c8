//! Backoff curve: ceilings, expected delays and the deterministic jitter.
//!
//! # The math
//!
//! Retry `i` (0-indexed; retry 0 is the wait before attempt 2) has the
//! ceiling `min(cap_ms, floor(base_ms * factor^i))`, where `factor^i` is
//! computed by repeated multiplication in doubles, `p = 1; p *= factor` `i`
//! times, each product rounded on its own (not `powi`, which rounds
//! differently; not fused). Every host does exactly this, so every host
//! agrees bit for bit.
//!
//! The expected delay is what the jitter mode draws on average:
//! `none` -> `c`, `full` -> `c / 2`, `equal` -> `3c / 4` (integer division).
//!
//! The jittered delay is a pure function of (event id, retry index, backoff),
//! so an operator can recompute any event's exact schedule:
//!
//! ```text
//! h    = fnv1a64(utf8(event_id))               (offset 0xcbf29ce484222325, prime 0x100000001b3)
//! draw = splitmix64(h XOR retry_index)         (all u64 arithmetic wrapping)
//! lo   = c (none) | 0 (full) | c / 2 (equal)
//! delay_ms = lo + draw mod (c - lo + 1)
//! ```

use crate::error::{ErrorCode, PolicyError};

/// Largest `cap_ms` (and so `base_ms`) accepted: one day.
pub const MAX_CAP_MS: u64 = 86_400_000;

/// How a delay is drawn beneath its ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Jitter {
    /// Always the ceiling.
    None,
    /// Uniform in `[0, c]`.
    Full,
    /// Uniform in `[c / 2, c]`.
    Equal,
}

impl Jitter {
    pub const fn as_str(self) -> &'static str {
        match self {
            Jitter::None => "none",
            Jitter::Full => "full",
            Jitter::Equal => "equal",
        }
    }

    pub fn parse(name: &str) -> Result<Jitter, PolicyError> {
        match name {
            "none" => Ok(Jitter::None),
            "full" => Ok(Jitter::Full),
            "equal" => Ok(Jitter::Equal),
            other => Err(PolicyError::new(
                ErrorCode::InvalidBackoff,
                "jitter",
                crate::text::cat(&["unknown jitter `", other, "` (expected none, full or equal)"]),
            )),
        }
    }
}

/// The backoff curve of a policy.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// Ceiling of retry 0, in milliseconds.
    pub base_ms: u64,
    /// Growth per retry; `>= 1.0` and finite.
    pub factor: f64,
    /// Largest ceiling, in milliseconds.
    pub cap_ms: u64,
    pub jitter: Jitter,
}

impl Backoff {
    /// `1 <= base_ms <= cap_ms <= 86_400_000`, `factor` finite and `>= 1`.
    pub fn validate(&self) -> Result<(), PolicyError> {
        let bad = |field: &str, msg: &str| Err(PolicyError::new(ErrorCode::InvalidBackoff, field, msg));
        if self.base_ms < 1 {
            return bad("base_ms", "must be at least 1 ms");
        }
        if self.cap_ms > MAX_CAP_MS {
            return bad("cap_ms", "must be at most 86400000 ms (one day)");
        }
        if self.base_ms > self.cap_ms {
            return bad("base_ms", "must not exceed cap_ms");
        }
        // `!(x >= 1.0)` also refuses NaN.
        // NaN compares as neither: `partial_cmp` is `None`, refused like < 1.
        if !self.factor.is_finite() || !self.factor.partial_cmp(&1.0).is_some_and(|o| o.is_ge()) {
            return bad("factor", "must be a finite number >= 1.0");
        }
        Ok(())
    }

    /// Ceiling of retry `retry_index`, in milliseconds. Assumes a valid backoff.
    pub fn ceiling_ms(&self, retry_index: u32) -> u64 {
        let cap = self.cap_ms as f64;
        let base = self.base_ms as f64;
        let mut p = 1.0_f64;
        for _ in 0..retry_index {
            let next = p * self.factor;
            // Fixed point (factor 1, or growth lost to rounding): p is final.
            if next == p {
                break;
            }
            p = next;
            // Once a ceiling reaches the cap, every later one is the cap.
            if base * p >= cap {
                return self.cap_ms;
            }
        }
        let raw = base * p;
        if !raw.is_finite() || raw >= cap {
            self.cap_ms
        } else {
            // raw >= base_ms >= 1, so truncation is floor.
            raw as u64
        }
    }

    /// Lower bound of the jittered delay for ceiling `c`.
    fn low_ms(&self, c: u64) -> u64 {
        match self.jitter {
            Jitter::None => c,
            Jitter::Full => 0,
            Jitter::Equal => c / 2,
        }
    }

    /// Mean delay of retry `retry_index` under this jitter mode.
    pub fn expected_ms(&self, retry_index: u32) -> u64 {
        let c = self.ceiling_ms(retry_index);
        match self.jitter {
            Jitter::None => c,
            Jitter::Full => c / 2,
            Jitter::Equal => (3 * c) / 4,
        }
    }

    /// The jittered delay of retry `retry_index` for `event_id`: always in
    /// `[low, ceiling]`, identical on every host.
    pub fn delay_ms(&self, event_id: &str, retry_index: u32) -> u64 {
        let c = self.ceiling_ms(retry_index);
        let lo = self.low_ms(c);
        lo + draw(event_id, retry_index) % (c - lo + 1)
    }
}

/// FNV-1a, 64-bit.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser (Steele, Lea & Flood).
pub fn splitmix64(x: u64) -> u64 {
    let x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let z = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The per-event, per-retry random draw.
pub fn draw(event_id: &str, retry_index: u32) -> u64 {
    splitmix64(fnv1a64(event_id.as_bytes()) ^ u64::from(retry_index))
}
