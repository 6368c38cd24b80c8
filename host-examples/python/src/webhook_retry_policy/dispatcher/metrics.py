"""Prometheus metrics of the dispatcher (prometheus-client), served on
``/metrics``: exactly the families, labels, types and buckets of
docs/metrics.md (tests/test_metrics_schema.py compares them with that
page's tables). ``webhook_deadletter_total{stop_reason}`` is the one the
design note asks for: the ratio of ``retry_budget_exhausted`` to
``max_attempts_exhausted`` tells "one endpoint is down" from "delivery is
degraded everywhere". ``webhook_policy_info{artifact_sha256, abi,
document_version} 1`` names the artifact the replica runs
(docs/artifact.md); after a swap the old series is removed."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    start_http_server,
)

from ..transport_kinds import ALL_KINDS
from ..types import HoldReason, StopReason

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


def metrics_addr_arg(text: str) -> tuple[str, int]:
    """:func:`parse_metrics_addr` as an argparse type (its message kept)."""
    try:
        return parse_metrics_addr(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


STORE_BUCKETS_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
DELIVERY_BUCKETS_S = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
ATTEMPT_KINDS = ("first", "retry")
RELOAD_RESULTS = ("applied", "refused")
PROBE_GRANTED = ("true", "false", "error")


class DispatcherMetrics:
    """Every family of docs/metrics.md on a private registry, each closed
    label set present from the start at 0, no ``*_created`` series."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = r = registry or CollectorRegistry()
        self.attempts = Counter("webhook_attempts", "Delivery attempts the policy allowed and the dispatcher started",
                                ["kind"], registry=r)
        self.delivered = Counter("webhook_delivered", "Events delivered (a 2xx)", registry=r)
        self.deadletter = Counter("webhook_deadletter", "Events dead-lettered, by the reason their retries stopped",
                                  ["stop_reason"], registry=r)
        self.transport_errors = Counter("webhook_transport_errors", "Attempts that ended without a response, by kind",
                                        ["kind"], registry=r)
        self.endpoint_disable_signals = Counter("webhook_endpoint_disable_signals",
                                                "410 Gone responses: the receiver asks to be disabled", registry=r)
        self.budget_refusals = Counter("webhook_budget_refusals", "Retries the fleet budget refused", registry=r)
        self.budget_disagreements = Counter(
            "webhook_budget_disagreements", "Store replies whose verdict differs from the policy's rule (the store's stands)",
            registry=r)
        self.budget_store_errors = Counter("webhook_budget_store_errors",
                                           "Budget store calls that failed or timed out", registry=r)
        self.budget_store_duration = Histogram("webhook_budget_store_duration_seconds", "One budget store call",
                                               buckets=STORE_BUCKETS_S, registry=r)
        self.delivery_duration = Histogram("webhook_delivery_duration_seconds", "One HTTP attempt",
                                           buckets=DELIVERY_BUCKETS_S, registry=r)
        self.in_flight = Gauge("webhook_in_flight", "HTTP attempts in progress now", registry=r)
        self.policy_reloads = Counter("webhook_policy_reloads", "Policy documents or artifacts loaded without a restart",
                                      ["result"], registry=r)
        self.policy_info = Gauge("webhook_policy_info", "The policy artifact this replica runs (value 1)",
                                 ["artifact_sha256", "abi", "document_version"], registry=r)
        # format 3 (docs/health-dispatch.md section 5): zeros for a format-2 replica
        self.holds = Counter("webhook_holds", "Holds started: the event waits, spending no attempt", ["reason"],
                             registry=r)
        self.held_events = Gauge("webhook_held_events", "Events held now (journaled as held)", registry=r)
        self.probe_calls = Counter("webhook_probe_calls", "probe store calls made because the gate asked",
                                   ["granted"], registry=r)
        self.replayed = Counter("webhook_replayed", "Dead letters replayed as new events", registry=r)
        for family, values in ((self.holds, [h.value for h in HoldReason]), (self.probe_calls, PROBE_GRANTED),
                               (self.attempts, ATTEMPT_KINDS), (self.transport_errors, [k.value for k in ALL_KINDS]),
                               (self.deadletter, [s.value for s in StopReason if s is not StopReason.DELIVERED]),
                               (self.policy_reloads, RELOAD_RESULTS)):
            for value in values:
                family.labels(value)
        self._info_labels: tuple[str, str, str] | None = None
        self._unknown: set[str] = set()
        # the counters the engine's count actions move (reloads are the host's own)
        self._counters = {f"{c._name}_total": c for c in vars(self).values()
                          if isinstance(c, Counter) and c is not self.policy_reloads}
        self._server: Any = None

    def count(self, name: str, label: dict[str, str] | None, delta: int) -> None:
        """The engine's ``count`` action (docs/engine.md section 13): the only way a counter moves."""
        counter = self._counters.get(name)
        if counter is None:
            # An artifact of another release (a rollback) may move a counter
            # this host does not know: said once, ignored, never a crash.
            if name not in self._unknown:
                self._unknown.add(name)
                print(f"metrics: the engine moved {name}, a counter docs/metrics.md does not list: ignored",
                      file=sys.stderr)
            return
        (counter.labels(*label.values()) if label else counter).inc(delta)

    def gauge(self, name: str, value: int) -> None:
        """The engine's ``gauge`` action."""
        if name != "webhook_held_events":
            raise KeyError(f"the engine set {name!r}, a gauge docs/metrics.md does not list")
        self.held_events.set(value)

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
