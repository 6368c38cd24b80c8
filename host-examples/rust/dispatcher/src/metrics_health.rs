//! The format-3 families of docs/metrics.md (docs/health-dispatch.md
//! section 5): holds started by reason, events held now, `probe` calls by
//! result, budget-held wakes' `reserve` calls and dead letters replayed.
//! Registered beside the others in [`crate::metrics::Metrics`]; every
//! closed label value exists from the first scrape at 0, so a format-2
//! replica exports them all at zero.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use retry_policy_host::HoldReason;

/// One label, its value from a closed set.
type Label = [(&'static str, String); 1];

fn label(name: &'static str, value: &str) -> Label {
    [(name, value.to_string())]
}

/// Every hold reason, in the table's order (docs/health-dispatch.md section 3).
pub const HOLD_REASONS: [HoldReason; 5] = [
    HoldReason::Paused,
    HoldReason::CircuitOpen,
    HoldReason::ProbeRefused,
    HoldReason::ReleasePacing,
    HoldReason::BudgetRefused,
];

/// A hold reason from its word (`None`: not one).
pub fn hold_reason_from_str(s: &str) -> Option<HoldReason> {
    HOLD_REASONS.into_iter().find(|r| r.as_str() == s)
}

/// What a `probe` call answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeResult {
    Granted,
    Refused,
    /// The call failed or timed out.
    Error,
}

#[derive(Debug, Default)]
pub struct HealthMetrics {
    holds: Family<Label, Counter>,
    held: Gauge,
    probe_calls: Family<Label, Counter>,
    wake_calls: Counter,
    replayed: Counter,
}

impl HealthMetrics {
    /// The families, every closed label value at 0, registered in `r`.
    pub fn registered(r: &mut Registry) -> HealthMetrics {
        let m = HealthMetrics::default();
        for reason in HOLD_REASONS {
            let _ = m.holds.get_or_create(&label("reason", reason.as_str()));
        }
        for granted in ["true", "false", "error"] {
            let _ = m.probe_calls.get_or_create(&label("granted", granted));
        }
        r.register("webhook_holds", "Holds started (format 3): the event waits, spending no attempt.", m.holds.clone());
        r.register("webhook_held_events", "Events held now (journaled as held).", m.held.clone());
        r.register(
            "webhook_probe_calls",
            "probe store calls made because the gate asked (an open circuit after its cooldown).",
            m.probe_calls.clone(),
        );
        r.register(
            "webhook_wake_calls",
            "reserve calls made by budget-held events at their wake.",
            m.wake_calls.clone(),
        );
        r.register("webhook_replayed", "Dead letters replayed as new events.", m.replayed.clone());
        m
    }

    /// A hold started (the event is now held).
    pub fn hold(&self, reason: HoldReason) {
        self.holds.get_or_create(&label("reason", reason.as_str())).inc();
    }

    /// Events held now: one more (`+1`) or one less (`-1`).
    pub fn held_change(&self, delta: i64) {
        self.held.inc_by(delta);
    }

    pub fn probe_call(&self, result: ProbeResult) {
        let v = match result {
            ProbeResult::Granted => "true",
            ProbeResult::Refused => "false",
            ProbeResult::Error => "error",
        };
        self.probe_calls.get_or_create(&label("granted", v)).inc();
    }

    pub fn wake_call(&self) {
        self.wake_calls.inc();
    }

    pub fn replayed(&self, n: u64) {
        self.replayed.inc_by(n);
    }

    /// Holds started with `reason`.
    pub fn holds(&self, reason: HoldReason) -> u64 {
        self.holds.get(&label("reason", reason.as_str())).map(|c| c.get()).unwrap_or(0)
    }

    pub fn held(&self) -> i64 {
        self.held.get()
    }

    /// `probe` calls, every result.
    pub fn probe_calls(&self) -> u64 {
        ["true", "false", "error"]
            .iter()
            .map(|g| self.probe_calls.get(&label("granted", g)).map(|c| c.get()).unwrap_or(0))
            .sum()
    }

    /// `probe` calls the store granted.
    pub fn probes_granted(&self) -> u64 {
        self.probe_calls.get(&label("granted", "true")).map(|c| c.get()).unwrap_or(0)
    }

    pub fn wake_calls(&self) -> u64 {
        self.wake_calls.get()
    }

    pub fn replayed_total(&self) -> u64 {
        self.replayed.get()
    }
}
