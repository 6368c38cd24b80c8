//! The dispatcher's metrics, exactly the families of docs/metrics.md, on
//! `prometheus-client` (the Prometheus project's Rust client; OpenMetrics
//! text), served on `GET /metrics`. The counters and the held gauge are
//! registered from the engine's tables (`engine::COUNTERS`, `GAUGES`) and
//! move ONLY by the engine's `count` and `gauge` actions
//! ([`Metrics::count`], [`Metrics::gauge`]); every closed label set is
//! there with 0 from the first scrape. The histograms, `webhook_in_flight`,
//! `webhook_policy_reloads_total` and `webhook_policy_info` measure the
//! host's own I/O. `webhook_deadletter_total{stop_reason}` is the one the
//! design note asks for: the ratio of `retry_budget_exhausted` to
//! `max_attempts_exhausted` tells "one endpoint is down" from "delivery is
//! degraded everywhere".

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use retry_policy_core::engine::{COUNTERS, GAUGES};
use retry_policy_core::health::HoldReason;
use retry_policy_core::StopReason;
use retry_policy_host::ArtifactInfo;

use crate::http_client::Delivery;
use crate::http_server::{Response, Server};
use crate::transport_kind;

/// `webhook_budget_store_duration_seconds` buckets (docs/metrics.md).
pub const STORE_BUCKETS_S: [f64; 11] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0];
/// `webhook_delivery_duration_seconds` buckets (docs/metrics.md).
pub const DELIVERY_BUCKETS_S: [f64; 11] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
/// What `GET /metrics` answers.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Every hold reason, in the table's order (docs/health-dispatch.md section 3).
pub const HOLD_REASONS: [HoldReason; 5] = [
    HoldReason::Paused,
    HoldReason::CircuitOpen,
    HoldReason::ProbeRefused,
    HoldReason::ReleasePacing,
    HoldReason::BudgetRefused,
];

/// Each engine counter's help text (docs/metrics.md).
fn help(name: &str) -> &'static str {
    match name {
        "webhook_attempts_total" => "Delivery attempts the policy allowed and the dispatcher started (destination_refused ones included).",
        "webhook_delivered_total" => "Events delivered (a 2xx).",
        "webhook_deadletter_total" => "Events dead-lettered, by the reason their retries stopped.",
        "webhook_transport_errors_total" => "Attempts that ended without a response, by transport kind (fleet/transport-kinds.json).",
        "webhook_endpoint_disable_signals_total" => "410 Gone responses: the receiver asks to be disabled.",
        "webhook_budget_refusals_total" => "Retries the fleet budget refused (the store's verdict reserved = false).",
        "webhook_budget_disagreements_total" => "Store replies whose verdict differs from the policy's rule on the same counts (the store's verdict stands).",
        "webhook_budget_store_errors_total" => "Budget store calls that failed or timed out (those retries fail closed: budget_unavailable).",
        "webhook_holds_total" => "Holds started (format 3): the event waits, spending no attempt.",
        "webhook_probe_calls_total" => "probe store calls made because the gate asked (an open circuit after its cooldown).",
        "webhook_replayed_total" => "Dead letters replayed as new events.",
        "webhook_held_events" => "Events held now (journaled as held).",
        _ => "",
    }
}

/// A labelled counter's closed label values (docs/metrics.md).
fn closed_values(name: &str) -> Vec<String> {
    match name {
        "webhook_attempts_total" => vec!["first".into(), "retry".into()],
        "webhook_deadletter_total" => StopReason::ALL
            .into_iter()
            .filter(|r| *r != StopReason::Delivered)
            .map(|r| r.as_str().to_string())
            .collect(),
        "webhook_transport_errors_total" => transport_kind::ALL.iter().map(|(k, _)| k.to_string()).collect(),
        "webhook_holds_total" => HOLD_REASONS.iter().map(|r| r.as_str().to_string()).collect(),
        "webhook_probe_calls_total" => vec!["true".into(), "false".into(), "error".into()],
        _ => Vec::new(),
    }
}

/// One label, its value from a closed set or a table.
type Label = [(&'static str, String); 1];

fn label(name: &'static str, value: &str) -> Label {
    [(name, value.to_string())]
}

/// An engine counter: plain, or a family under one label.
#[derive(Debug)]
enum EngineCounter {
    Plain(Counter),
    Labelled(&'static str, Family<Label, Counter>),
}

/// The dispatcher's metrics and the registry that writes them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    counters: HashMap<&'static str, EngineCounter>,
    held: Gauge,
    budget_store_duration: Histogram,
    delivery_duration: Histogram,
    in_flight: Gauge,
    policy_reloads: Family<Label, Counter>,
    policy_info: Arc<PolicyInfo>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::default();
        let mut counters = HashMap::new();
        for (name, label_name) in COUNTERS {
            // Counters are registered without `_total`: the encoder appends it.
            let short = name.strip_suffix("_total").unwrap_or(name);
            let c = match label_name {
                None => {
                    let c = Counter::default();
                    registry.register(short, help(name), c.clone());
                    EngineCounter::Plain(c)
                }
                Some(l) => {
                    let f = Family::<Label, Counter>::default();
                    for v in closed_values(name) {
                        let _ = f.get_or_create(&[(l, v)]);
                    }
                    registry.register(short, help(name), f.clone());
                    EngineCounter::Labelled(l, f)
                }
            };
            counters.insert(name, c);
        }
        let held = Gauge::default();
        registry.register(GAUGES[0], help(GAUGES[0]), held.clone());
        let m = Metrics {
            registry,
            counters,
            held,
            budget_store_duration: Histogram::new(STORE_BUCKETS_S),
            delivery_duration: Histogram::new(DELIVERY_BUCKETS_S),
            in_flight: Gauge::default(),
            policy_reloads: Family::default(),
            policy_info: Arc::default(),
        };
        for result in ["applied", "refused"] {
            let _ = m.policy_reloads.get_or_create(&label("result", result));
        }
        m.register()
    }
}

impl Metrics {
    fn register(mut self) -> Self {
        let r = &mut self.registry;
        r.register_with_unit(
            "webhook_budget_store_duration",
            "One budget store call, from the request to the reply or the error.",
            Unit::Seconds,
            self.budget_store_duration.clone(),
        );
        r.register_with_unit(
            "webhook_delivery_duration",
            "One HTTP attempt, from the connection to the end of the response body, or to the transport error.",
            Unit::Seconds,
            self.delivery_duration.clone(),
        );
        r.register("webhook_in_flight", "HTTP attempts in progress now.", self.in_flight.clone());
        r.register(
            "webhook_policy_reloads",
            "Policy documents or artifacts loaded without a restart (refused: invalid, the old one kept).",
            self.policy_reloads.clone(),
        );
        r.register_collector(Box::new(self.policy_info.clone()));
        self
    }

    /// The engine's `count {name, label, delta}`: a name or label value
    /// outside docs/metrics.md's tables is `Err` (said by the caller),
    /// never a new series.
    pub fn count(&self, name: &str, label: Option<(&str, &str)>, delta: u64) -> Result<(), String> {
        let bad = || format!("count {name} {label:?}: not a counter of docs/metrics.md");
        match (self.counters.get(name).ok_or_else(bad)?, label) {
            (EngineCounter::Plain(c), None) => {
                c.inc_by(delta);
            }
            (EngineCounter::Labelled(l, f), Some((k, v))) if *l == k && closed_values(name).iter().any(|x| x == v) => {
                f.get_or_create(&[(*l, v.to_string())]).inc_by(delta);
            }
            _ => return Err(bad()),
        }
        Ok(())
    }

    /// The engine's `gauge {name, value}`.
    pub fn gauge(&self, name: &str, value: u64) -> Result<(), String> {
        if name != GAUGES[0] {
            return Err(format!("gauge {name}: not a gauge of docs/metrics.md"));
        }
        self.held.set(i64::try_from(value).unwrap_or(i64::MAX));
        Ok(())
    }

    /// A counter's value (`label` as `(name, value)`), 0 when it has none.
    pub fn counter(&self, name: &str, label: Option<(&str, &str)>) -> u64 {
        match (self.counters.get(name), label) {
            (Some(EngineCounter::Plain(c)), None) => c.get(),
            (Some(EngineCounter::Labelled(l, f)), Some((k, v))) if *l == k => {
                f.get(&[(*l, v.to_string())]).map_or(0, |c| c.get())
            }
            _ => 0,
        }
    }

    /// One HTTP attempt: `webhook_in_flight` while `send` runs, then its
    /// duration in `webhook_delivery_duration_seconds` (not when nothing
    /// was sent: `destination_refused`, or the window's edge passed first).
    pub fn delivery(&self, send: impl FnOnce() -> Delivery) -> Delivery {
        self.in_flight.inc();
        let started = Instant::now();
        let delivery = send();
        self.in_flight.dec();
        if !matches!(delivery, Delivery::Failed(transport_kind::DESTINATION_REFUSED) | Delivery::NotSent) {
            self.delivery_duration.observe(started.elapsed().as_secs_f64());
        }
        delivery
    }

    /// One budget store call's duration, reply or error.
    pub fn store_duration(&self, took: Duration) {
        self.budget_store_duration.observe(took.as_secs_f64());
    }

    /// Count a policy reload (`applied`, or refused with the old document kept).
    pub fn policy_reload(&self, applied: bool) {
        self.policy_reloads.get_or_create(&label("result", if applied { "applied" } else { "refused" })).inc();
    }

    /// What `webhook_policy_info` shows: the running artifact and the
    /// current document's version (the old series disappears).
    pub fn set_policy_info(&self, artifact: &ArtifactInfo, document_version: &str) {
        let info = [artifact.sha256.clone(), artifact.abi.clone(), document_version.to_string()];
        *self.policy_info.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(info);
    }

    /// Policy reloads (applied, refused).
    pub fn policy_reloads(&self) -> (u64, u64) {
        let n = |r: &str| self.policy_reloads.get(&label("result", r)).map_or(0, |c| c.get());
        (n("applied"), n("refused"))
    }

    /// What `webhook_policy_info` shows now: sha256, abi, document version.
    pub fn policy_info(&self) -> Option<[String; 3]> {
        self.policy_info.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// HTTP attempts in progress now.
    pub fn in_flight(&self) -> i64 {
        self.in_flight.get()
    }

    /// The OpenMetrics text exposition (ends with `# EOF`).
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail; a collector's error would end the text early.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }

    /// Serve `GET /metrics` on `bind` (e.g. `127.0.0.1:9090`, or port 0).
    pub fn serve(self: &Arc<Self>, bind: &str) -> io::Result<Server> {
        let m = self.clone();
        Server::start(bind, move |req| match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/metrics") => Response::new(200, CONTENT_TYPE, m.render()),
            _ => Response::text(404, "try GET /metrics\n"),
        })
    }
}

/// `webhook_policy_info`: one series at 1 whose labels are swapped in one
/// step (a scrape never sees both, nor none once set).
#[derive(Debug, Default)]
struct PolicyInfo(Mutex<Option<[String; 3]>>);

impl Collector for PolicyInfo {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), fmt::Error> {
        let info = self.0.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let one = ConstGauge::new(1i64);
        let mut metric = encoder.encode_descriptor(
            "webhook_policy_info",
            "Always 1: the policy artifact this replica runs and its current document's version.",
            None,
            MetricType::Gauge,
        )?;
        if let Some([sha, abi, version]) = &info {
            let labels =
                [("artifact_sha256", sha.as_str()), ("abi", abi.as_str()), ("document_version", version.as_str())];
            one.encode(metric.encode_family(&labels)?)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "tests_metrics.rs"]
mod tests;
