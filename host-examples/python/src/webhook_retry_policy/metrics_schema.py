"""The component's metrics schema (docs/metrics.md "The schema as data"):
``metrics-schema()`` answers docs/metrics.md's families as JSON text,
``{"format": 1, "families": [...]}``, which :func:`parse_metrics_schema`
reads into :class:`MetricFamily` values, in the page's order.

A dispatcher registers its Prometheus client's families from them
(``dispatcher/metrics.py``); no list of names, help texts, label values or
buckets is kept here. An answer that is not that JSON is :class:`PolicyTrap`
(the artifact's bug), with what is wrong.
"""

from __future__ import annotations

import json
from typing import Any, Literal, NamedTuple, cast

from .errors import PolicyTrap

__all__ = ["MetricFamily", "MetricLabel", "parse_metrics_schema"]

SCHEMA_FORMAT = 1
_TYPES = ("counter", "gauge", "histogram")
_MOVERS = ("engine", "host")
_FIELDS = {"name", "type", "help", "labels", "buckets_s", "moved_by"}

MetricType = Literal["counter", "gauge", "histogram"]
MovedBy = Literal["engine", "host"]


class MetricLabel(NamedTuple):
    """One label of a family."""

    name: str
    values: tuple[str, ...] | None
    """its closed set of values, or None when open (``webhook_policy_info``'s)"""


class MetricFamily(NamedTuple):
    """One family of docs/metrics.md's table."""

    name: str
    """the sample name, ``_total`` included (``webhook_attempts_total``)"""
    type: MetricType
    help: str
    labels: tuple[MetricLabel, ...]
    buckets_s: tuple[float, ...]
    """a histogram's upper bounds in seconds (``+Inf`` not included); empty otherwise"""
    moved_by: MovedBy
    """``engine``: moved only by the engine's ``count``/``gauge`` actions; ``host``: by the host's own code"""


def _bad(where: str, what: str) -> PolicyTrap:
    return PolicyTrap(f"`metrics-schema` answered {where}: {what}")


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise _bad(where, f"want a non-empty string, got {json.dumps(value)[:80]}")
    return value


def _label(value: Any, where: str) -> MetricLabel:
    if not isinstance(value, dict) or set(value) != {"name", "values"}:
        raise _bad(where, "want an object with exactly name and values")
    values = value["values"]
    if values is not None and not isinstance(values, list):
        raise _bad(f"{where}.values", "want a list of strings or null")
    closed = None if values is None else tuple(_str(v, f"{where}.values[{i}]") for i, v in enumerate(values))
    return MetricLabel(_str(value["name"], f"{where}.name"), closed)


def _family(value: Any, where: str) -> MetricFamily:
    if not isinstance(value, dict) or set(value) != _FIELDS:
        raise _bad(where, f"want an object with exactly {', '.join(sorted(_FIELDS))}")
    name = _str(value["name"], f"{where}.name")
    kind, mover = value["type"], value["moved_by"]
    if kind not in _TYPES:
        raise _bad(f"{where}.type", f"want one of {', '.join(_TYPES)}, got {json.dumps(kind)[:80]}")
    if mover not in _MOVERS:
        raise _bad(f"{where}.moved_by", f"want one of {', '.join(_MOVERS)}, got {json.dumps(mover)[:80]}")
    labels, buckets = value["labels"], value["buckets_s"]
    if not isinstance(labels, list):
        raise _bad(f"{where}.labels", "want a list")
    if not isinstance(buckets, list) or not all(isinstance(b, (int, float)) and not isinstance(b, bool)
                                                for b in buckets):
        raise _bad(f"{where}.buckets_s", "want a list of numbers")
    if not isinstance(value["help"], str):
        raise _bad(f"{where}.help", "want a string")
    return MetricFamily(name, cast(MetricType, kind), value["help"],
                        tuple(_label(label, f"{where}.labels[{i}]") for i, label in enumerate(labels)),
                        tuple(float(b) for b in buckets), cast(MovedBy, mover))


def parse_metrics_schema(text: str) -> tuple[MetricFamily, ...]:
    """The families of ``metrics-schema()``'s JSON text, in its order (names unique)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise _bad("text that is not JSON", str(e)) from None
    if not isinstance(doc, dict) or doc.get("format") != SCHEMA_FORMAT or not isinstance(doc.get("families"), list):
        raise _bad("no schema", f'want {{"format": {SCHEMA_FORMAT}, "families": [...]}}')
    families = tuple(_family(f, f"families[{i}]") for i, f in enumerate(doc["families"]))
    names = [f.name for f in families]
    if len(set(names)) != len(names):
        raise _bad("families", f"a name twice: {sorted({n for n in names if names.count(n) > 1})}")
    return families
