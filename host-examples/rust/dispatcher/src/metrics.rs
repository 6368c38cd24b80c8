//! The dispatcher's metrics, exactly the families of docs/metrics.md, on
//! `prometheus-client` (the Prometheus project's Rust client; OpenMetrics
//! text), served on `GET /metrics`. Every family exists from the start and
//! every closed label set is there with 0. `webhook_deadletter_total{stop_reason}`
//! is the one the design note asks for: the ratio of `retry_budget_exhausted`
//! to `max_attempts_exhausted` tells "one endpoint is down" from "delivery is
//! degraded everywhere".

use std::fmt;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use retry_policy_core::compiled::{CallOp, CallReply, StoreCall};
use retry_policy_core::{Reservation, StopReason, StoreOp, StoreRequest};
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

/// The transport kinds (the closed label set of
/// `webhook_transport_errors_total`): fleet/transport-kinds.json, as the
/// constants of [`crate::transport_kind`].
fn transport_kinds() -> impl Iterator<Item = &'static str> {
    transport_kind::ALL.iter().map(|(kind, _)| *kind)
}

/// One label, its value from a closed set or a table.
type Label = [(&'static str, String); 1];

fn label(name: &'static str, value: &str) -> Label {
    [(name, value.to_string())]
}

/// The dispatcher's metrics and the registry that writes them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    attempts: Family<Label, Counter>,
    delivered: Counter,
    deadletters: Family<Label, Counter>,
    transport_errors: Family<Label, Counter>,
    endpoint_disable_signals: Counter,
    budget_refusals: Counter,
    budget_disagreements: Counter,
    budget_store_errors: Counter,
    budget_store_duration: Histogram,
    delivery_duration: Histogram,
    in_flight: Gauge,
    policy_reloads: Family<Label, Counter>,
    policy_info: Arc<PolicyInfo>,
    /// The format-3 families (docs/health-dispatch.md section 5).
    pub health: crate::metrics_health::HealthMetrics,
}

impl Default for Metrics {
    fn default() -> Self {
        let m = Metrics {
            registry: Registry::default(),
            attempts: Family::default(),
            delivered: Counter::default(),
            deadletters: Family::default(),
            transport_errors: Family::default(),
            endpoint_disable_signals: Counter::default(),
            budget_refusals: Counter::default(),
            budget_disagreements: Counter::default(),
            budget_store_errors: Counter::default(),
            budget_store_duration: Histogram::new(STORE_BUCKETS_S),
            delivery_duration: Histogram::new(DELIVERY_BUCKETS_S),
            in_flight: Gauge::default(),
            policy_reloads: Family::default(),
            policy_info: Arc::default(),
            health: Default::default(),
        };
        // Every closed label set from the first scrape, at 0.
        for kind in ["first", "retry"] {
            let _ = m.attempts.get_or_create(&label("kind", kind));
        }
        for r in StopReason::ALL.into_iter().filter(|r| *r != StopReason::Delivered) {
            let _ = m.deadletters.get_or_create(&label("stop_reason", r.as_str()));
        }
        for kind in transport_kinds() {
            let _ = m.transport_errors.get_or_create(&label("kind", kind));
        }
        for result in ["applied", "refused"] {
            let _ = m.policy_reloads.get_or_create(&label("result", result));
        }
        m.register()
    }
}

impl Metrics {
    fn register(mut self) -> Self {
        let r = &mut self.registry;
        // Counters are named without `_total`: the encoder appends it.
        r.register(
            "webhook_attempts",
            "Delivery attempts the policy allowed and the dispatcher started (destination_refused ones included).",
            self.attempts.clone(),
        );
        r.register("webhook_delivered", "Events delivered (a 2xx).", self.delivered.clone());
        r.register(
            "webhook_deadletter",
            "Events dead-lettered, by the reason their retries stopped.",
            self.deadletters.clone(),
        );
        r.register(
            "webhook_transport_errors",
            "Attempts that ended without a response, by transport kind (fleet/transport-kinds.json).",
            self.transport_errors.clone(),
        );
        r.register(
            "webhook_endpoint_disable_signals",
            "410 Gone responses: the receiver asks to be disabled.",
            self.endpoint_disable_signals.clone(),
        );
        r.register(
            "webhook_budget_refusals",
            "Retries the fleet budget refused (the store's verdict reserved = false).",
            self.budget_refusals.clone(),
        );
        r.register(
            "webhook_budget_disagreements",
            "Store replies whose verdict differs from the policy's rule on the same counts (the store's verdict stands).",
            self.budget_disagreements.clone(),
        );
        r.register(
            "webhook_budget_store_errors",
            "Budget store calls that failed or timed out (those retries fail closed: budget_unavailable).",
            self.budget_store_errors.clone(),
        );
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
        self.health = crate::metrics_health::HealthMetrics::registered(r);
        r.register_collector(Box::new(self.policy_info.clone()));
        self
    }

    pub fn stopped(&self, reason: StopReason, disable_endpoint: bool) {
        if reason == StopReason::Delivered {
            self.delivered.inc();
        } else {
            self.deadletters.get_or_create(&label("stop_reason", reason.as_str())).inc();
        }
        if disable_endpoint {
            self.endpoint_disable_signals.inc();
        }
    }

    pub fn attempted(&self, first: bool) {
        self.attempts.get_or_create(&label("kind", if first { "first" } else { "retry" })).inc();
    }

    /// Count a failed budget store call; returns how many there were.
    pub fn budget_store_error(&self) -> u64 {
        self.budget_store_errors.inc() + 1
    }

    /// Count a `budget_disagreement` from `settle`; returns how many there were.
    pub fn budget_disagreement(&self) -> u64 {
        self.budget_disagreements.inc() + 1
    }

    /// Count an attempt that ended without a response, by its transport
    /// kind; a kind outside fleet/transport-kinds.json has no series
    /// (every kind this dispatcher produces is in the table).
    pub fn transport_failure(&self, kind: &str) {
        if transport_kinds().any(|k| k == kind) {
            self.transport_errors.get_or_create(&label("kind", kind)).inc();
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

    /// One budget store call: its duration in
    /// `webhook_budget_store_duration_seconds`, and a refused reservation
    /// (`reserve`, `record_reserve`) in `webhook_budget_refusals_total`.
    pub fn budget_store_call(
        &self,
        request: &StoreRequest,
        call: impl FnOnce() -> Result<Reservation, String>,
    ) -> Result<Reservation, String> {
        let started = Instant::now();
        let reply = call();
        self.budget_store_duration.observe(started.elapsed().as_secs_f64());
        if matches!(&reply, Ok(r) if !r.reserved) && request.op != StoreOp::Record {
            self.budget_refusals.inc();
        }
        reply
    }

    /// One whole store call (ABI 0.3 `store-call`, formats 2 and 3), timed
    /// and counted as [`Metrics::budget_store_call`]: a refused reservation
    /// of `reserve` / `record_reserve` is a budget refusal.
    pub fn budget_store_call_whole(
        &self,
        call: &StoreCall,
        f: impl FnOnce() -> Result<CallReply, String>,
    ) -> Result<CallReply, String> {
        let started = Instant::now();
        let reply = f();
        self.budget_store_duration.observe(started.elapsed().as_secs_f64());
        let judged = matches!(call.op, CallOp::Reserve | CallOp::RecordReserve);
        if judged && matches!(&reply, Ok(CallReply { reservation: Some(r), .. }) if !r.reserved) {
            self.budget_refusals.inc();
        }
        reply
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

    fn count(family: &Family<Label, Counter>, name: &'static str, value: &str) -> u64 {
        family.get(&label(name, value)).map(|c| c.get()).unwrap_or(0)
    }

    /// Policy reloads (applied, refused).
    pub fn policy_reloads(&self) -> (u64, u64) {
        (Self::count(&self.policy_reloads, "result", "applied"), Self::count(&self.policy_reloads, "result", "refused"))
    }

    pub fn budget_store_errors(&self) -> u64 {
        self.budget_store_errors.get()
    }

    pub fn budget_disagreements(&self) -> u64 {
        self.budget_disagreements.get()
    }

    pub fn budget_refusals(&self) -> u64 {
        self.budget_refusals.get()
    }

    /// Attempts that ended with the transport kind `kind`.
    pub fn transport_errors(&self, kind: &str) -> u64 {
        Self::count(&self.transport_errors, "kind", kind)
    }

    pub fn destinations_refused(&self) -> u64 {
        self.transport_errors(crate::transport_kind::DESTINATION_REFUSED)
    }

    /// Events stopped with `reason`.
    pub fn stops(&self, reason: StopReason) -> u64 {
        match reason {
            StopReason::Delivered => self.delivered.get(),
            r => Self::count(&self.deadletters, "stop_reason", r.as_str()),
        }
    }

    pub fn first_attempts(&self) -> u64 {
        Self::count(&self.attempts, "kind", "first")
    }

    pub fn retries(&self) -> u64 {
        Self::count(&self.attempts, "kind", "retry")
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
