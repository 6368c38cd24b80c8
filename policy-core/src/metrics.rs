//! The dispatcher's metrics schema (docs/metrics.md): every family a
//! dispatcher exports, with its type, help, labels, closed label values and
//! histogram buckets, in one table. Hosts register their Prometheus client's
//! families from this table (the component's `metrics-schema` export gives it
//! as JSON) instead of keeping a copy each; the engine moves the families
//! marked [`MovedBy::Engine`] through its counter and gauge outputs
//! ([`crate::engine::Output::Count`], [`crate::engine::Output::Gauge`]), the
//! host moves the others (the time an HTTP request or a store call takes,
//! attempts in flight, artifact reloads and the artifact's info).
//!
//! Names are sample names: a counter is written with its `_total`. A host
//! whose client library appends `_total` itself strips it before
//! registering.

use crate::classify::TRANSPORT_KINDS;

/// A family's Prometheus type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricType {
    Counter,
    Gauge,
    Histogram,
}

impl MetricType {
    pub const fn as_str(self) -> &'static str {
        match self {
            MetricType::Counter => "counter",
            MetricType::Gauge => "gauge",
            MetricType::Histogram => "histogram",
        }
    }
}

/// Who moves a family's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MovedBy {
    /// Only the engine's `count` and `gauge` outputs.
    Engine,
    /// The host (it owns the clock of an HTTP request or a store call, and its artifact).
    Host,
}

impl MovedBy {
    pub const fn as_str(self) -> &'static str {
        match self {
            MovedBy::Engine => "engine",
            MovedBy::Host => "host",
        }
    }
}

/// A label: its name and, when closed, every value it takes (each series
/// exists at 0 from the first scrape).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Label {
    pub name: &'static str,
    /// `None`: open (any value, e.g. an artifact's sha256).
    pub values: Option<&'static [&'static str]>,
}

/// One metric family.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Family {
    pub name: &'static str,
    pub kind: MetricType,
    pub help: &'static str,
    pub labels: &'static [Label],
    /// Upper bounds in seconds (`+Inf` implied); histograms only.
    pub buckets_s: &'static [f64],
    pub moved_by: MovedBy,
}

/// `StopReason::ALL` but `delivered`, and `HoldReason::ALL`, as words
/// (a test holds them equal: `const fn` cannot call `as_str` through a table).
pub(crate) const DEAD_LETTER_REASONS: [&str; 5] = [
    "terminal_response",
    "max_attempts_exhausted",
    "retry_window_elapsed",
    "retry_budget_exhausted",
    "budget_unavailable",
];
pub(crate) const HOLD_REASONS: [&str; 5] =
    ["paused", "circuit_open", "probe_refused", "release_pacing", "budget_refused"];

const fn closed(name: &'static str, values: &'static [&'static str]) -> Label {
    Label { name, values: Some(values) }
}

const fn engine_counter(name: &'static str, help: &'static str, labels: &'static [Label]) -> Family {
    Family { name, kind: MetricType::Counter, help, labels, buckets_s: &[], moved_by: MovedBy::Engine }
}

/// docs/metrics.md's families table, in its order.
pub const FAMILIES: [Family; 17] = [
    engine_counter(
        "webhook_attempts_total",
        "Delivery attempts the policy allowed and the dispatcher started.",
        &[closed("kind", &["first", "retry"])],
    ),
    engine_counter("webhook_delivered_total", "Events delivered (a 2xx).", &[]),
    engine_counter(
        "webhook_deadletter_total",
        "Events dead-lettered, by the reason their retries stopped.",
        &[closed("stop_reason", &DEAD_LETTER_REASONS)],
    ),
    engine_counter(
        "webhook_transport_errors_total",
        "Attempts that ended without a response, by transport kind.",
        &[closed("kind", &TRANSPORT_KINDS)],
    ),
    engine_counter(
        "webhook_endpoint_disable_signals_total",
        "410 Gone responses: the receiver asks to be disabled.",
        &[],
    ),
    engine_counter(
        "webhook_budget_refusals_total",
        "Retries the fleet budget refused (the store answered reserved = false).",
        &[],
    ),
    engine_counter(
        "webhook_budget_disagreements_total",
        "Store replies whose verdict differs from the policy's rule on the same counts (the store's verdict stands).",
        &[],
    ),
    engine_counter(
        "webhook_budget_store_errors_total",
        "Budget store calls that failed or timed out (those retries fail closed).",
        &[],
    ),
    Family {
        name: "webhook_budget_store_duration_seconds",
        kind: MetricType::Histogram,
        help: "One budget store call, from the request to the reply or the error.",
        labels: &[],
        buckets_s: &[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0],
        moved_by: MovedBy::Host,
    },
    Family {
        name: "webhook_delivery_duration_seconds",
        kind: MetricType::Histogram,
        help: "One HTTP attempt, from the start of the connection to the end of the response body read, or to the transport error.",
        labels: &[],
        buckets_s: &[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0],
        moved_by: MovedBy::Host,
    },
    Family {
        name: "webhook_in_flight",
        kind: MetricType::Gauge,
        help: "HTTP attempts in progress now.",
        labels: &[],
        buckets_s: &[],
        moved_by: MovedBy::Host,
    },
    Family {
        name: "webhook_policy_reloads_total",
        kind: MetricType::Counter,
        help: "Policy documents or artifacts loaded without a restart (refused: invalid, the old one kept).",
        labels: &[closed("result", &["applied", "refused"])],
        buckets_s: &[],
        moved_by: MovedBy::Host,
    },
    engine_counter(
        "webhook_holds_total",
        "Holds started (format 3): the event waits, spending no attempt.",
        &[closed("reason", &HOLD_REASONS)],
    ),
    Family {
        name: "webhook_held_events",
        kind: MetricType::Gauge,
        help: "Events held now (journaled as held).",
        labels: &[],
        buckets_s: &[],
        moved_by: MovedBy::Engine,
    },
    engine_counter(
        "webhook_probe_calls_total",
        "Probe store calls made because the gate asked (an open circuit after its cooldown).",
        &[closed("granted", &["true", "false", "error"])],
    ),
    engine_counter("webhook_replayed_total", "Dead letters replayed as new events.", &[]),
    Family {
        name: "webhook_policy_info",
        kind: MetricType::Gauge,
        help: "The policy artifact this dispatcher runs and its current document version (value always 1).",
        labels: &[
            Label { name: "artifact_sha256", values: None },
            Label { name: "abi", values: None },
            Label { name: "document_version", values: None },
        ],
        buckets_s: &[],
        moved_by: MovedBy::Host,
    },
];

/// The family named `name` (a sample name, `_total` included).
pub fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().find(|f| f.name == name)
}

#[cfg(test)]
mod tests;
