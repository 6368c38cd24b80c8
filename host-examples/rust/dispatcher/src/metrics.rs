//! Counters in the Prometheus text format, served on `/metrics`.
//! `webhook_deadletter_total{stop_reason}` is the one the design note asks
//! for: the ratio of `retry_budget_exhausted` to `max_attempts_exhausted`
//! tells "one endpoint is down" from "delivery is degraded everywhere".

use std::fmt::Write as _;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use retry_policy_core::StopReason;
use retry_policy_host::ArtifactInfo;

use crate::http_server::{Response, Server};

/// The dispatcher's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    stops: [AtomicU64; 6],
    first_attempts: AtomicU64,
    retries: AtomicU64,
    budget_store_errors: AtomicU64,
    budget_disagreements: AtomicU64,
    destinations_refused: AtomicU64,
    unexpected_statuses: AtomicU64,
    endpoints_disabled: AtomicU64,
    /// Policy reloads applied and refused (the old document kept).
    policy_reloads: [AtomicU64; 2],
    /// `webhook_policy_info`'s labels: artifact sha256, abi, document version.
    policy_info: Mutex<Option<[String; 3]>>,
}

/// A label value in the Prometheus text format.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn index(r: StopReason) -> usize {
    StopReason::ALL.iter().position(|x| *x == r).unwrap_or(0)
}

impl Metrics {
    pub fn stopped(&self, reason: StopReason, disable_endpoint: bool) {
        self.stops[index(reason)].fetch_add(1, Ordering::Relaxed);
        if disable_endpoint {
            self.endpoints_disabled.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn attempted(&self, first: bool) {
        let c = if first { &self.first_attempts } else { &self.retries };
        c.fetch_add(1, Ordering::Relaxed);
    }

    /// Count a failed budget store call; returns how many there were.
    pub fn budget_store_error(&self) -> u64 {
        self.budget_store_errors.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Count a `budget_disagreement` from `settle`; returns how many there were.
    pub fn budget_disagreement(&self) -> u64 {
        self.budget_disagreements.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Count the transport failures that have their own metric.
    pub fn transport_failure(&self, kind: &str) {
        match kind {
            "destination_refused" => self.destinations_refused.fetch_add(1, Ordering::Relaxed),
            "unexpected_status" => self.unexpected_statuses.fetch_add(1, Ordering::Relaxed),
            _ => 0,
        };
    }

    /// Count a policy reload (`applied`, or refused with the old document kept).
    pub fn policy_reload(&self, applied: bool) {
        self.policy_reloads[usize::from(!applied)].fetch_add(1, Ordering::Relaxed);
    }

    /// What `webhook_policy_info` shows: the running artifact and the
    /// current document's version (the old series disappears).
    pub fn set_policy_info(&self, artifact: &ArtifactInfo, document_version: &str) {
        let info = [artifact.sha256.clone(), artifact.abi.clone(), document_version.to_string()];
        *self.policy_info.lock().unwrap_or_else(|e| e.into_inner()) = Some(info);
    }

    /// Policy reloads (applied, refused).
    pub fn policy_reloads(&self) -> (u64, u64) {
        (self.policy_reloads[0].load(Ordering::Relaxed), self.policy_reloads[1].load(Ordering::Relaxed))
    }

    pub fn budget_store_errors(&self) -> u64 {
        self.budget_store_errors.load(Ordering::Relaxed)
    }

    pub fn budget_disagreements(&self) -> u64 {
        self.budget_disagreements.load(Ordering::Relaxed)
    }

    pub fn destinations_refused(&self) -> u64 {
        self.destinations_refused.load(Ordering::Relaxed)
    }

    /// Events stopped with `reason`.
    pub fn stops(&self, reason: StopReason) -> u64 {
        self.stops[index(reason)].load(Ordering::Relaxed)
    }

    pub fn first_attempts(&self) -> u64 {
        self.first_attempts.load(Ordering::Relaxed)
    }

    pub fn retries(&self) -> u64 {
        self.retries.load(Ordering::Relaxed)
    }

    /// The Prometheus text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP webhook_deadletter_total Events dead-lettered, by the reason their retries stopped.\n");
        out.push_str("# TYPE webhook_deadletter_total counter\n");
        for r in StopReason::ALL.into_iter().filter(|r| *r != StopReason::Delivered) {
            let _ = writeln!(out, "webhook_deadletter_total{{stop_reason=\"{}\"}} {}", r.as_str(), self.stops(r));
        }
        let simple = [
            ("webhook_delivered_total", "Events delivered (2xx).", self.stops(StopReason::Delivered)),
            ("webhook_endpoint_disable_signals_total", "410 Gone responses (the endpoint should be disabled).", self.endpoints_disabled.load(Ordering::Relaxed)),
            ("webhook_budget_store_errors_total", "Budget store calls that failed or timed out (retries then fail closed).", self.budget_store_errors.load(Ordering::Relaxed)),
            ("webhook_budget_disagreements_total", "Store replies whose verdict differs from the policy's rule on the same counts (the store's verdict stands).", self.budget_disagreements()),
            ("webhook_destination_refused_total", "Attempts not sent: the target resolves to a loopback, private, link-local or other internal address.", self.destinations_refused()),
            ("webhook_unexpected_status_total", "Responses with a status outside 100-599 (transport kind unexpected_status, terminal).", self.unexpected_statuses.load(Ordering::Relaxed)),
        ];
        for (name, help, v) in simple {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}");
        }
        let (applied, refused) = self.policy_reloads();
        out.push_str("# HELP webhook_policy_reloads_total Policy documents loaded without a restart (refused: invalid, the old one kept).\n");
        out.push_str("# TYPE webhook_policy_reloads_total counter\n");
        let _ = writeln!(out, "webhook_policy_reloads_total{{result=\"applied\"}} {applied}");
        let _ = writeln!(out, "webhook_policy_reloads_total{{result=\"refused\"}} {refused}");
        out.push_str("# HELP webhook_attempts_total Delivery attempts, first ones and retries.\n");
        out.push_str("# TYPE webhook_attempts_total counter\n");
        let _ = writeln!(out, "webhook_attempts_total{{kind=\"first\"}} {}", self.first_attempts());
        let _ = writeln!(out, "webhook_attempts_total{{kind=\"retry\"}} {}", self.retries());
        if let Some([sha, abi, version]) = self.policy_info.lock().unwrap_or_else(|e| e.into_inner()).clone() {
            out.push_str(
                "# HELP webhook_policy_info The policy artifact this replica runs and its current document.\n",
            );
            out.push_str("# TYPE webhook_policy_info gauge\n");
            let _ = writeln!(
                out,
                "webhook_policy_info{{artifact_sha256=\"{}\",abi=\"{}\",document_version=\"{}\"}} 1",
                label(&sha),
                label(&abi),
                label(&version)
            );
        }
        out
    }

    /// Serve `GET /metrics` on `bind` (e.g. `127.0.0.1:9090`, or port 0).
    pub fn serve(self: &Arc<Self>, bind: &str) -> io::Result<Server> {
        let m = self.clone();
        Server::start(bind, move |req| match (req.method.as_str(), req.path.as_str()) {
            ("GET", "/metrics") => Response::new(200, "text/plain; version=0.0.4; charset=utf-8", m.render()),
            _ => Response::text(404, "try GET /metrics\n"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dead_letter_reason_is_exported_with_its_label_even_at_zero() {
        let m = Metrics::default();
        m.stopped(StopReason::RetryBudgetExhausted, false);
        m.stopped(StopReason::RetryBudgetExhausted, false);
        m.stopped(StopReason::Delivered, false);
        let text = m.render();
        assert!(text.contains("webhook_deadletter_total{stop_reason=\"retry_budget_exhausted\"} 2\n"), "{text}");
        assert!(text.contains("webhook_deadletter_total{stop_reason=\"budget_unavailable\"} 0\n"), "{text}");
        assert!(!text.contains("stop_reason=\"delivered\""), "delivered is not a dead letter");
        assert!(text.contains("webhook_delivered_total 1\n"), "{text}");
        assert!(text.contains("webhook_budget_disagreements_total 0\n"), "{text}");
        m.transport_failure("destination_refused");
        assert!(m.render().contains("webhook_destination_refused_total 1\n"));
    }
}
