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

DEFAULT_METRICS_HOST = "127.0.0.1"


def parse_metrics_addr(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[IPv6]:PORT``; an empty HOST is 127.0.0.1, port 0 is
    any free port) as ``(host, port)``; ValueError names what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep:
        raise ValueError(f"want HOST:PORT, not {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        if not host:
            raise ValueError(f"want HOST:PORT, not {text!r}")
    elif ":" in host or "[" in host or "]" in host:
        raise ValueError(f"want HOST:PORT ([IPv6]:PORT for an IPv6 address), not {text!r}")
    if not (port.isascii() and port.isdigit()) or int(port) > 65535:
        raise ValueError(f"want HOST:PORT with a port from 0 to 65535, not {text!r}")
    return host or DEFAULT_METRICS_HOST, int(port)


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

    def url(self, path: str = "/metrics") -> str:
        """``http://HOST:PORT/metrics`` of the bound server (IPv6 in brackets)."""
        if self._server is None:
            raise RuntimeError("not serving")
        host, port = self._server.server_address[:2]
        return f"http://{f'[{host}]' if ':' in host else host}:{port}{path}"

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def text(self) -> str:
        return generate_latest(self.registry).decode()
