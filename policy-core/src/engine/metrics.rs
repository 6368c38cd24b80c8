//! The metrics the engine moves: the families of [`crate::metrics::FAMILIES`]
//! marked `moved_by: engine`. Hosts register every family from that table
//! and move an engine family only when the engine says so
//! ([`super::Output::Count`], [`super::Output::Gauge`]). Latency histograms,
//! `webhook_in_flight`, reloads and the artifact's info stay the host's (it
//! owns the time an HTTP request or a store call takes, and its artifact).
//! In debug builds (tests, fuzzing) every count is checked against the
//! table: its family, its label and a closed label's value.

use alloc::string::String;

use super::{Engine, Output};
use crate::metrics::{family, MetricType, MovedBy};

/// The counter a replay moves.
pub(crate) const REPLAYED: &str = "webhook_replayed_total";

/// The gauge the engine sets.
const HELD_EVENTS: &str = "webhook_held_events";

/// Whether the table has an engine `kind` family `name` whose labels are
/// exactly `label` (name and, when closed, one of its values).
/// A `value` of `None` is not checked against a closed set.
fn in_table(name: &str, kind: MetricType, label: Option<(&str, Option<&str>)>) -> bool {
    let Some(f) = family(name) else { return false };
    let labels_match = match (label, f.labels) {
        (None, []) => true,
        (Some((l, v)), [one]) => one.name == l && v.is_none_or(|v| one.values.is_none_or(|vs| vs.contains(&v))),
        _ => false,
    };
    f.kind == kind && f.moved_by == MovedBy::Engine && labels_match
}

impl Engine {
    pub(crate) fn count(&mut self, name: &'static str) {
        debug_assert!(
            in_table(name, MetricType::Counter, None),
            "{name} is not an engine counter of metrics::FAMILIES"
        );
        self.out.push_back(Output::Count { name, label: None, delta: 1 });
    }

    pub(crate) fn count_by(&mut self, name: &'static str, label: &'static str, value: &str) {
        debug_assert!(
            in_table(name, MetricType::Counter, Some((label, Some(value)))),
            "{name}{{{label}={value}}} is not an engine counter of metrics::FAMILIES"
        );
        self.out.push_back(Output::Count { name, label: Some((label, String::from(value))), delta: 1 });
    }

    /// `count_by` for a label value the host chose: a transport error's
    /// kind, which the engine takes as given (an unknown kind is terminal,
    /// `classify_error`); a host reports only `fleet/transport-kinds.json`'s.
    pub(crate) fn count_reported(&mut self, name: &'static str, label: &'static str, value: &str) {
        debug_assert!(in_table(name, MetricType::Counter, Some((label, None))));
        self.out.push_back(Output::Count { name, label: Some((label, String::from(value))), delta: 1 });
    }

    pub(crate) fn held_changed(&mut self, up: bool) {
        self.held_gauge = if up { self.held_gauge.saturating_add(1) } else { self.held_gauge.saturating_sub(1) };
    }

    /// The gauge's new value, once per input, when it moved.
    pub(crate) fn say_gauges(&mut self) {
        debug_assert!(in_table(HELD_EVENTS, MetricType::Gauge, None));
        if self.held_gauge != self.held_said {
            self.held_said = self.held_gauge;
            self.out.push_back(Output::Gauge { name: HELD_EVENTS, value: self.held_gauge });
        }
    }
}
