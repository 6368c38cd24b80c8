"""Prometheus metrics of the dispatcher (prometheus-client), served on
``/metrics``: every family of docs/metrics.md, registered from the
artifact's metrics schema (``Artifact.metrics_schema()``, the component's
``metrics-schema``: names, types, help, labels, closed values, buckets), no
list of its own (tests/test_metrics_schema.py compares the registry with the
schema and a scrape with that page's tables). The families the schema marks
``moved_by: engine`` move only by the engine's ``count`` and ``gauge``
actions; the histograms, ``webhook_in_flight``,
``webhook_policy_reloads_total`` and ``webhook_policy_info`` by the host's
own code. ``webhook_policy_info{artifact_sha256, abi, document_version} 1``
names the artifact the replica runs (docs/artifact.md); after a swap the
old series is removed."""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    start_http_server,
)

from ..artifact import current_artifact
from ..errors import PolicyTrap
from ..metrics_schema import MetricFamily

DEFAULT_METRICS_HOST = "127.0.0.1"
M = TypeVar("M", Counter, Gauge, Histogram)


def parse_metrics_addr(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[IPv6]:PORT``; an empty HOST is 127.0.0.1, port 0 is
    any free port) as ``(host, port)``, read by ``urllib.parse`` as a URL's
    authority; ValueError names what is wrong."""
    try:
        parts = urlsplit("//" + text)
        port = parts.port  # a port that is not a number from 0 to 65535 raises
    except ValueError as e:
        raise ValueError(f"want HOST:PORT ([IPv6]:PORT for an IPv6 address), not {text!r}: {e}") from None
    if port is None or parts.netloc != text or "@" in text:
        raise ValueError(f"want HOST:PORT ([IPv6]:PORT for an IPv6 address), not {text!r}")
    return parts.hostname or DEFAULT_METRICS_HOST, port


def metrics_addr_arg(text: str) -> tuple[str, int]:
    """:func:`parse_metrics_addr` as an argparse type (its message kept)."""
    try:
        return parse_metrics_addr(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


_CLIENT_TYPES: dict[str, type[Counter] | type[Gauge]] = {"counter": Counter, "gauge": Gauge}
# the families the host moves by its own code (moved_by "host"), and the label names that code spells
STORE_DURATION = "webhook_budget_store_duration_seconds"
DELIVERY_DURATION = "webhook_delivery_duration_seconds"
IN_FLIGHT = "webhook_in_flight"
POLICY_RELOADS = "webhook_policy_reloads_total"
POLICY_INFO = "webhook_policy_info"


class DispatcherMetrics:
    """Every family of the artifact's metrics schema (``Artifact.metrics_schema()``,
    docs/metrics.md; default: the artifact running now, read once here) on a
    private registry, with the schema's help and buckets, every closed label
    set present from the start at 0, no ``*_created`` series. A schema
    without a family this code moves is :class:`PolicyTrap`."""

    def __init__(self, registry: CollectorRegistry | None = None, *,
                 schema: Sequence[MetricFamily] | None = None) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = registry or CollectorRegistry()
        self.schema = tuple(current_artifact().metrics_schema() if schema is None else schema)
        self.families: dict[str, Counter | Gauge | Histogram] = {f.name: self._register(f) for f in self.schema}
        # what the engine's count and gauge actions may move: the family and its labels (closed values)
        self._engine = {f.name: (self.families[f.name], f) for f in self.schema if f.moved_by == "engine"}
        self.budget_store_duration = self._host(STORE_DURATION, Histogram)
        self.delivery_duration = self._host(DELIVERY_DURATION, Histogram)
        self.in_flight = self._host(IN_FLIGHT, Gauge)
        self.policy_reloads = self._host(POLICY_RELOADS, Counter, ("result",))
        self.policy_info = self._host(POLICY_INFO, Gauge, ("artifact_sha256", "abi", "document_version"))
        self._info_labels: tuple[str, ...] | None = None
        self._unknown: set[str] = set()
        self._server: Any = None

    def _register(self, family: MetricFamily) -> Counter | Gauge | Histogram:
        names = [label.name for label in family.labels]
        metric: Counter | Gauge | Histogram
        if family.type_ == "histogram":
            metric = Histogram(family.name, family.help, names, registry=self.registry, buckets=family.buckets_s)
        else:  # a Counter drops the name's "_total" (its samples get it back)
            metric = _CLIENT_TYPES[family.type_](family.name, family.help, names, registry=self.registry)
        if names and all(label.values is not None for label in family.labels):
            for values in itertools.product(*(label.values or () for label in family.labels)):
                metric.labels(*values)
        return metric

    def _host(self, name: str, cls: type[M], labels: tuple[str, ...] = ()) -> M:
        """The host-moved family ``name`` (a ``cls`` with these label names)."""
        family = next((f for f in self.schema if f.name == name), None)
        metric = self.families.get(name)
        if (family is None or not isinstance(metric, cls) or family.moved_by != "host"
                or tuple(label.name for label in family.labels) != labels):
            raise PolicyTrap(f"the artifact's metrics schema has no host-moved {cls.__name__.lower()} {name}"
                             f"{{{','.join(labels)}}}, which this dispatcher moves")
        return metric

    def _ignored(self, what: str) -> None:
        # An artifact of another release (a rollback) may move a series this
        # schema does not list: said once, ignored, never a new series or a crash.
        if what not in self._unknown:
            self._unknown.add(what)
            print(f"metrics: the engine moved {what}, which the artifact's metrics schema does not list: ignored",
                  file=sys.stderr)

    def count(self, name: str, label: dict[str, str] | None, delta: int) -> None:
        """The engine's ``count`` action (docs/engine.md section 13): the only way its counters move."""
        metric, family = self._engine.get(name, (None, None))
        got = label or {}
        if (not isinstance(metric, Counter) or family is None or list(got) != [x.name for x in family.labels]
                or any(x.values is not None and got[x.name] not in x.values for x in family.labels)):
            self._ignored(f"{name}{label or ''}")
            return
        (metric.labels(*got.values()) if got else metric).inc(delta)

    def gauge(self, name: str, value: int) -> None:
        """The engine's ``gauge`` action (an unlabelled gauge of the schema moved by the engine)."""
        metric, family = self._engine.get(name, (None, None))
        if not isinstance(metric, Gauge) or family is None or family.labels:
            self._ignored(f"gauge {name}")
            return
        metric.set(value)

    def set_policy_info(self, sha256: str, abi: str, document_version: str) -> None:
        """One series, value 1, for the artifact now running (the previous one removed)."""
        labels = (sha256, abi, document_version)  # the schema's order (checked in __init__)
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
