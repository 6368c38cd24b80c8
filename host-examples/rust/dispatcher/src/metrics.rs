//! The dispatcher's metrics, exactly the families of docs/metrics.md, on
//! `prometheus-client` (the Prometheus project's Rust client; OpenMetrics
//! text), served on `GET /metrics`. Every family, its help, closed label
//! values and buckets come from policy-core's one table
//! (`retry_policy_core::metrics::FAMILIES`, the component's `metrics-schema`).
//! The families the table marks `moved_by: engine` move ONLY by the engine's
//! `count` and `gauge` actions ([`Metrics::count`], [`Metrics::gauge`]);
//! every closed label set is there with 0 from the first scrape. The
//! histograms, `webhook_in_flight`, `webhook_policy_reloads_total` and
//! `webhook_policy_info` measure the host's own I/O.

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
use retry_policy_core::metrics::{family, MetricType as Kind, MovedBy, FAMILIES};
use retry_policy_host::ArtifactInfo;

use crate::http_client::Delivery;
use crate::http_server::{Response, Server};
use crate::transport_kind;

/// What `GET /metrics` answers.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The gauge the engine sets.
const HELD_EVENTS: &str = "webhook_held_events";

/// A family of the table (a name this file spells; a test registers them all).
fn spec(name: &str) -> &'static retry_policy_core::metrics::Family {
    family(name).unwrap_or_else(|| panic!("{name} is not in retry_policy_core::metrics::FAMILIES"))
}

/// A labelled family's closed label values.
fn closed_values(name: &str) -> &'static [&'static str] {
    family(name).and_then(|f| f.labels.first()).and_then(|l| l.values).unwrap_or(&[])
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
        let engine_counters = FAMILIES.iter().filter(|f| f.moved_by == MovedBy::Engine && f.kind == Kind::Counter);
        for f in engine_counters {
            // Counters are registered without `_total`: the encoder appends it.
            let short = f.name.strip_suffix("_total").unwrap_or(f.name);
            let c = match f.labels.first() {
                None => {
                    let c = Counter::default();
                    registry.register(short, f.help, c.clone());
                    EngineCounter::Plain(c)
                }
                Some(l) => {
                    let fam = Family::<Label, Counter>::default();
                    for v in l.values.unwrap_or(&[]) {
                        let _ = fam.get_or_create(&label(l.name, v));
                    }
                    registry.register(short, f.help, fam.clone());
                    EngineCounter::Labelled(l.name, fam)
                }
            };
            counters.insert(f.name, c);
        }
        let held = Gauge::default();
        registry.register(HELD_EVENTS, spec(HELD_EVENTS).help, held.clone());
        let m = Metrics {
            registry,
            counters,
            held,
            budget_store_duration: Histogram::new(
                spec("webhook_budget_store_duration_seconds").buckets_s.iter().copied(),
            ),
            delivery_duration: Histogram::new(spec("webhook_delivery_duration_seconds").buckets_s.iter().copied()),
            in_flight: Gauge::default(),
            policy_reloads: Family::default(),
            policy_info: Arc::default(),
        };
        for result in closed_values("webhook_policy_reloads_total") {
            let _ = m.policy_reloads.get_or_create(&label("result", result));
        }
        m.register()
    }
}

impl Metrics {
    fn register(mut self) -> Self {
        let r = &mut self.registry;
        // The encoder appends `_seconds` (the unit) and `_total` to these names.
        let store = spec("webhook_budget_store_duration_seconds");
        r.register_with_unit(
            "webhook_budget_store_duration",
            store.help,
            Unit::Seconds,
            self.budget_store_duration.clone(),
        );
        let delivery = spec("webhook_delivery_duration_seconds");
        r.register_with_unit("webhook_delivery_duration", delivery.help, Unit::Seconds, self.delivery_duration.clone());
        r.register("webhook_in_flight", spec("webhook_in_flight").help, self.in_flight.clone());
        let reloads = spec("webhook_policy_reloads_total");
        r.register("webhook_policy_reloads", reloads.help, self.policy_reloads.clone());
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
            (EngineCounter::Labelled(l, f), Some((k, v))) if *l == k && closed_values(name).contains(&v) => {
                f.get_or_create(&[(*l, v.to_string())]).inc_by(delta);
            }
            _ => return Err(bad()),
        }
        Ok(())
    }

    /// The engine's `gauge {name, value}`.
    pub fn gauge(&self, name: &str, value: u64) -> Result<(), String> {
        if name != HELD_EVENTS {
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
        let info_spec = spec("webhook_policy_info");
        let mut metric = encoder.encode_descriptor(info_spec.name, info_spec.help, None, MetricType::Gauge)?;
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
