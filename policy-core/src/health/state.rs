//! The health state and the store's format-3 rule (docs/health.md
//! sections 2 and 3), on what an in-memory store holds.
//!
//! # The math
//!
//! Failed attempts are counted per budget bucket, like the budget's counts,
//! and estimated with the budget's own sliding weight:
//!
//! ```text
//! w            = (window_ms - now_ms % window_ms) / window_ms   (sliding; else 0)
//! est_total    = current.total + previous.total * w             (the budget's counts)
//! est_failures = current.f     + previous.f     * w
//! open         = closed && est_total >= min_sample && est_failures / est_total >= failure_ratio
//! ```
//!
//! in doubles, in this order (`est_total >= min_sample >= 1`, so the
//! division is by a positive number).
//!
//! An op runs, after its format-2 effect ([`crate::store::apply`]), in one
//! atomic step: count a failure; raise the pause; then, if the circuit was
//! closed when the call began, maybe open it, else, if this attempt was a
//! granted probe, close it (success) or reopen it with a doubled cooldown
//! (failure, when the cooldown in force had ended: a second probe failing
//! inside the cooldown another probe's failure started moves nothing). The `probe` op grants at most `circuit.probes` per probe
//! window `floor(now_ms / probe_interval_ms)` once the cooldown is over.
//! `opened_at_ms` 0 means closed, so an opening at `now_ms` 0 records 1.

use crate::budget::{Budget, BudgetCounts};
use crate::store::{self, HeldBuckets, Reservation, StoreOp, StoreRequest};

use super::section::Health;

/// The class of the attempt a call follows, for health (not the budget).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HealthOutcome {
    /// 2xx.
    Success,
    /// Retryable: 5xx, 408, 425, 429, timeouts, connection errors.
    Failure,
    /// A terminal answer (the sender's fault, not the endpoint's sickness),
    /// or no attempt at all (a held retry's wake, a `probe` call).
    None,
}

impl HealthOutcome {
    pub const fn as_str(self) -> &'static str {
        match self {
            HealthOutcome::Success => "success",
            HealthOutcome::Failure => "failure",
            HealthOutcome::None => "none",
        }
    }

    pub fn parse(s: &str) -> Option<HealthOutcome> {
        [HealthOutcome::Success, HealthOutcome::Failure, HealthOutcome::None].into_iter().find(|o| o.as_str() == s)
    }
}

/// Every call a format-3 store answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HealthOp {
    /// A format-2 op, then the health steps.
    Budget(StoreOp),
    /// No format-2 effect, only the health steps: the one call of an
    /// attempt format 2 would not count (a retry's attempt whose decision
    /// `evaluate` already knows) when it failed or was a probe.
    Report,
    /// Ask for a probe (the only call not tied to an attempt's outcome).
    Probe,
}

impl HealthOp {
    pub const fn as_str(self) -> &'static str {
        match self {
            HealthOp::Budget(op) => op.as_str(),
            HealthOp::Report => "report",
            HealthOp::Probe => "probe",
        }
    }

    pub fn parse(s: &str) -> Option<HealthOp> {
        match s {
            "report" => Some(HealthOp::Report),
            "probe" => Some(HealthOp::Probe),
            _ => StoreOp::parse(s).map(HealthOp::Budget),
        }
    }
}

/// One call to the store. `bucket` is `floor(now_ms / budget.window_ms)`,
/// as in format 2 (ignored by `probe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HealthRequest {
    pub op: HealthOp,
    pub bucket: u64,
    pub outcome: HealthOutcome,
    /// 0, or when the `Retry-After` pause this outcome asks for ends
    /// ([`super::pause_until_ms`]).
    pub pause_until_ms: u64,
    /// The attempt this call follows was a granted probe.
    pub probe: bool,
}

/// Failed attempts of the newest bucket seen and the one before it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FailureBuckets {
    pub bucket: u64,
    pub current: u64,
    pub previous: u64,
}

/// What the store keeps per endpoint and budget width beside the counts.
/// `Default` is a new endpoint: no failures, no pause, closed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HealthState {
    pub failures: FailureBuckets,
    pub paused_until_ms: u64,
    /// 0 when closed, else when the circuit (re)opened.
    pub opened_at_ms: u64,
    /// The current cooldown; 0 while closed.
    pub cooldown_ms: u64,
    pub probe_window: u64,
    pub probes_granted: u32,
    /// When the circuit last closed (0: never).
    pub closed_at_ms: u64,
    /// Failures counted since the last success, fleet-wide, whatever their
    /// bucket (draft 6); a failure that carries a pause counts none.
    pub consecutive_failures: u64,
    /// Granted probes that have not reported yet (draft 7), while
    /// `now_ms < probe_busy_until_ms`; at most `circuit.probes`.
    pub probes_in_flight: u32,
    /// When the probes in flight stop counting (draft 7): the last grant's
    /// instant plus its lease, `max(cooldown_ms, probe_interval_ms)`. A probe
    /// whose replica died blocks the next one for one lease, as a failure
    /// would have for one cooldown.
    pub probe_busy_until_ms: u64,
}

/// Everything a format-3 store holds for one endpoint and bucket width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HeldHealth {
    pub buckets: HeldBuckets,
    pub health: HealthState,
}

/// What every reply carries: the state a host's `gate` reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HealthView {
    pub paused_until_ms: u64,
    pub opened_at_ms: u64,
    pub cooldown_ms: u64,
    pub closed_at_ms: u64,
    /// The store's `now_ms` for this call.
    pub as_of_ms: u64,
}

/// The store's answer to a [`HealthRequest`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HealthReply {
    /// The format-2 answer (`None` for `report` and `probe`).
    pub reservation: Option<Reservation>,
    /// Whether a probe was granted (`None` for every op but `probe`).
    pub granted: Option<bool>,
    pub view: HealthView,
}

/// Failures of `bucket` and `bucket - 1`.
fn failures_at(f: &FailureBuckets, bucket: u64) -> (u64, u64) {
    let get = |b: u64| {
        if b == f.bucket {
            f.current
        } else if Some(b) == f.bucket.checked_sub(1) {
            f.previous
        } else {
            0
        }
    };
    (get(bucket), bucket.checked_sub(1).map_or(0, get))
}

/// Add a failure to `bucket`, rolling forward to it first; a bucket older
/// than both held ones is read by no one: dropped.
fn count_failure(f: &mut FailureBuckets, bucket: u64) {
    if bucket > f.bucket {
        let (current, previous) = failures_at(f, bucket);
        *f = FailureBuckets { bucket, current, previous };
    }
    if bucket == f.bucket {
        f.current = f.current.saturating_add(1);
    } else if Some(bucket) == f.bucket.checked_sub(1) {
        f.previous = f.previous.saturating_add(1);
    }
}

/// The budget's sliding weight of the previous bucket at `now_ms`.
pub(crate) fn sliding_weight(budget: &Budget, now_ms: u64) -> f64 {
    match now_ms.checked_rem(budget.window_ms) {
        Some(rem) if budget.sliding => (budget.window_ms - rem) as f64 / budget.window_ms as f64,
        _ => 0.0,
    }
}

/// The run of consecutive failures that opens a closed circuit (draft 6):
/// `ceil(min_sample * failure_ratio)`, the fewest failures the estimates
/// can ever open on (`est_failures >= failure_ratio * est_total >=
/// failure_ratio * min_sample`), so a run never opens on less evidence than
/// the estimates accept, and at least 1. In doubles; the product is at most
/// `min_sample` (`failure_ratio <= 1`); the result is kept in
/// `1..=min_sample`.
pub fn run_to_open(circuit: &super::section::Circuit) -> u64 {
    let run = super::pacer::ceil_u64(circuit.min_sample as f64 * circuit.failure_ratio);
    run.clamp(1, circuit.min_sample.max(1))
}

/// Whether the estimates open the circuit (module docs).
pub fn should_open(
    circuit: &super::section::Circuit,
    budget: &Budget,
    now_ms: u64,
    counts: &BudgetCounts,
    failures: (u64, u64),
) -> bool {
    let w = sliding_weight(budget, now_ms);
    let est_total = counts.current.total as f64 + counts.previous.total as f64 * w;
    let est_failures = failures.0 as f64 + failures.1 as f64 * w;
    est_total >= circuit.min_sample as f64 && est_failures / est_total >= circuit.failure_ratio
}

fn view(h: &HealthState, now_ms: u64) -> HealthView {
    HealthView {
        paused_until_ms: h.paused_until_ms,
        opened_at_ms: h.opened_at_ms,
        cooldown_ms: h.cooldown_ms,
        closed_at_ms: h.closed_at_ms,
        as_of_ms: now_ms,
    }
}

/// The `probe` op: grant when the circuit is open, its cooldown is over,
/// the probe window (a later window resets the count) has one left and
/// (draft 7) fewer than `circuit.probes` granted probes are still in flight
/// fleet-wide. A probe window alone let a second replica probe one
/// millisecond after the first when a window boundary fell between them:
/// two probes in flight on an endpoint slower than the interval.
fn probe(section: &Health, now_ms: u64, h: &mut HealthState) -> bool {
    let Some(c) = &section.circuit else { return false };
    if h.opened_at_ms == 0 || now_ms < h.opened_at_ms.saturating_add(h.cooldown_ms) {
        return false;
    }
    let window = now_ms / c.probe_interval_ms;
    if window > h.probe_window {
        h.probe_window = window;
        h.probes_granted = 0;
    }
    if now_ms >= h.probe_busy_until_ms {
        // Every lease has lapsed: what never reported no longer counts.
        h.probes_in_flight = 0;
    }
    if h.probes_granted < c.probes && h.probes_in_flight < c.probes {
        h.probes_granted += 1;
        h.probes_in_flight += 1;
        h.probe_busy_until_ms = now_ms.saturating_add(h.cooldown_ms.max(c.probe_interval_ms));
        return true;
    }
    false
}

/// A granted probe reported (draft 7): one fewer in flight; none left frees the slot.
fn probe_reported(h: &mut HealthState) {
    h.probes_in_flight = h.probes_in_flight.saturating_sub(1);
    if h.probes_in_flight == 0 {
        h.probe_busy_until_ms = 0;
    }
}

/// The store's format-3 rule: answer `request` on what it holds, judged
/// with `section` and `budget` at `now_ms`. Returns the reply and what to
/// hold afterwards. `section` and `budget` are meant validated (an invalid
/// one gives some answer, never a panic).
pub fn apply(
    request: &HealthRequest,
    section: &Health,
    budget: &Budget,
    now_ms: u64,
    held: &HeldHealth,
) -> (HealthReply, HeldHealth) {
    let mut next = *held;
    if request.op == HealthOp::Probe {
        let granted = probe(section, now_ms, &mut next.health);
        return (HealthReply { reservation: None, granted: Some(granted), view: view(&next.health, now_ms) }, next);
    }
    let reservation = match request.op {
        HealthOp::Budget(op) => {
            let r = StoreRequest {
                op,
                endpoint_id: alloc::string::String::new(),
                window_ms: budget.window_ms,
                bucket: request.bucket,
            };
            let (reservation, buckets) = store::apply(&r, budget, now_ms, &held.buckets);
            next.buckets = buckets;
            Some(reservation)
        }
        _ => None,
    };
    let h = &mut next.health;
    // 2. A pause only grows.
    h.paused_until_ms = h.paused_until_ms.max(request.pause_until_ms);
    if let Some(c) = &section.circuit {
        let was_open = h.opened_at_ms != 0;
        if request.probe {
            probe_reported(h);
        }
        // 1. Count the failure; the run of failures since the last success
        // (a throttled answer, one carrying a pause, is not counted: the
        // pause answers it).
        if request.outcome == HealthOutcome::Failure {
            count_failure(&mut h.failures, request.bucket);
            if request.pause_until_ms == 0 {
                h.consecutive_failures = h.consecutive_failures.saturating_add(1);
            }
        } else if request.outcome == HealthOutcome::Success {
            h.consecutive_failures = 0;
        }
        if !was_open {
            // 3. Open: on the estimates, or on a run of failures as long as
            // the sample the estimates need (draft 6: the estimates are
            // diluted by the previous bucket's successes, and starved of a
            // sample when held retries make no attempts).
            let counts = crate::store::view(&next.buckets, request.bucket);
            let failures = failures_at(&h.failures, request.bucket);
            if h.consecutive_failures >= run_to_open(c) || should_open(c, budget, now_ms, &counts, failures) {
                h.opened_at_ms = now_ms.max(1);
                h.cooldown_ms = c.cooldown_ms;
            }
        } else if request.probe {
            // 4. The probe's result.
            match request.outcome {
                HealthOutcome::Success => {
                    h.opened_at_ms = 0;
                    h.closed_at_ms = now_ms;
                    h.failures = FailureBuckets::default();
                    h.cooldown_ms = 0;
                }
                // Only a probe of a cooldown that had ended moves it: a second
                // probe's failure inside the cooldown the first one's failure
                // started (two probes in flight at once) changes nothing, so
                // the cooldown doubles once per failed round (draft 5).
                HealthOutcome::Failure if now_ms >= h.opened_at_ms.saturating_add(h.cooldown_ms) => {
                    h.opened_at_ms = now_ms.max(1);
                    h.cooldown_ms = h.cooldown_ms.saturating_mul(2).min(c.cooldown_max_ms);
                }
                HealthOutcome::Failure => {}
                HealthOutcome::None => {}
            }
        }
    }
    (HealthReply { reservation, granted: None, view: view(&next.health, now_ms) }, next)
}
