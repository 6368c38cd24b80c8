//! The metrics the engine moves (docs/metrics.md): hosts register every
//! name below from these tables and move a counter only when the engine
//! says so ([`super::Output::Count`], [`super::Output::Gauge`]). Latency
//! histograms and `webhook_in_flight` stay the host's (it owns the time an
//! HTTP request or a store call takes).

use alloc::string::String;

use super::{Engine, Output};

/// Every counter the engine moves, with its label name (if any).
pub const COUNTERS: [(&str, Option<&str>); 11] = [
    ("webhook_attempts_total", Some("kind")),
    ("webhook_delivered_total", None),
    ("webhook_deadletter_total", Some("stop_reason")),
    ("webhook_transport_errors_total", Some("kind")),
    ("webhook_endpoint_disable_signals_total", None),
    ("webhook_budget_refusals_total", None),
    ("webhook_budget_disagreements_total", None),
    ("webhook_budget_store_errors_total", None),
    ("webhook_holds_total", Some("reason")),
    ("webhook_probe_calls_total", Some("granted")),
    ("webhook_replayed_total", None),
];

/// Every gauge the engine sets.
pub const GAUGES: [&str; 1] = ["webhook_held_events"];

/// A name the engine moves by hand.
pub(crate) const REPLAYED: &str = COUNTERS[10].0;

impl Engine {
    pub(crate) fn count(&mut self, name: &'static str) {
        self.out.push_back(Output::Count { name, label: None, delta: 1 });
    }

    pub(crate) fn count_by(&mut self, name: &'static str, label: &'static str, value: &str) {
        self.out.push_back(Output::Count { name, label: Some((label, String::from(value))), delta: 1 });
    }

    pub(crate) fn held_changed(&mut self, up: bool) {
        self.held_gauge = if up { self.held_gauge.saturating_add(1) } else { self.held_gauge.saturating_sub(1) };
    }

    /// The gauge's new value, once per input, when it moved.
    pub(crate) fn say_gauges(&mut self) {
        if self.held_gauge != self.held_said {
            self.held_said = self.held_gauge;
            self.out.push_back(Output::Gauge { name: GAUGES[0], value: self.held_gauge });
        }
    }
}
