"""Prometheus metrics of the dispatcher (prometheus-client), served on
``/metrics``. ``webhook_deadletter_total{stop_reason}`` is the one the
design note asks for: the ratio of ``retry_budget_exhausted`` to
``max_attempts_exhausted`` tells "one endpoint is down" from "delivery is
degraded everywhere". ``webhook_policy_info{artifact_sha256, abi,
document_version} 1`` names the artifact the replica runs
(docs/artifact.md); after a swap the old series is removed."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest, start_http_server


class DispatcherMetrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        self.deadletter = Counter(
            "webhook_deadletter", "Events dead-lettered, by stop reason", ["stop_reason"], registry=self.registry
        )
        self.delivered = Counter("webhook_delivered", "Events delivered", registry=self.registry)
        self.budget_disagreements = Counter(
            "webhook_budget_disagreements", "Store replies whose verdict differs from the policy's rule (the store's stands)",
            registry=self.registry,
        )
        self.attempts = Counter("webhook_attempts", "Delivery attempts sent", ["attempt_kind"], registry=self.registry)
        self.destinations_refused = Counter(
            "webhook_destination_refused", "Attempts not sent: the target resolved to a refused address",
            registry=self.registry)
        self.policy_info = Gauge(
            "webhook_policy_info", "The policy artifact this replica runs (value 1)",
            ["artifact_sha256", "abi", "document_version"], registry=self.registry)
        self._info_labels: tuple[str, str, str] | None = None
        self._server: Any = None

    def set_policy_info(self, sha256: str, abi: str, document_version: str) -> None:
        """One series, value 1, for the artifact now running (the previous one removed)."""
        labels = (sha256, abi, document_version)
        if self._info_labels is not None and self._info_labels != labels:
            self.policy_info.remove(*self._info_labels)
        self.policy_info.labels(*labels).set(1)
        self._info_labels = labels

    def serve(self, port: int = 0, addr: str = "127.0.0.1") -> int:
        """Serve ``/metrics`` on ``addr:port`` (0 = any free port) in a
        daemon thread; returns the port."""
        server, _thread = start_http_server(port, addr=addr, registry=self.registry)
        self._server = server
        return int(server.server_address[1])

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def text(self) -> str:
        return generate_latest(self.registry).decode()
