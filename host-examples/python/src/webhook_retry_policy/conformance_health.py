"""Format-3 vector files (``tests/vectors/format3-*.json``, format
``webhook-retry-policy/health-vectors 1``, docs/health.md section 7): the
``parse_document`` cases run through this host's glue
(``load-health-document`` on the document as text); every other format-3
op runs inside the artifact (``vector-case``, ``conformance.py``).

An error is ``{error, field}`` (without ``field``: only the code is
compared). Answers compare as JSON values: numbers by value, a boolean
never equal to a number.
"""

from __future__ import annotations

import json
from typing import Any

from . import conformance_json as cj
from .errors import PolicyError
from .ops import PolicyOps
from .types import Health, HealthClass

FORMAT = "webhook-retry-policy/health-vectors 1"
CIRCUIT_KEYS = ("failure_ratio", "min_sample", "cooldown_ms", "cooldown_max_ms", "probes", "probe_interval_ms")


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers by value, booleans only to booleans."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def section_to_json(h: Health) -> dict[str, Any]:
    c = h.circuit
    circuit_json = None if c is None else {k: getattr(c, k) for k in CIRCUIT_KEYS}
    return {"hold_budget_refusals": h.hold_budget_refusals, "pause": {"max_ms": h.pause_max_ms},
            "circuit": circuit_json,
            "release": {"multiple": h.release.multiple, "floor_per_s": h.release.floor_per_s}, "cache_ms": h.cache_ms}


def health_class_to_json(c: HealthClass) -> dict[str, Any]:
    return {"name": c.name, "health": None if c.health is None else section_to_json(c.health),
            "hash_words": None if c.health is None else [f"{w:016x}" for w in c.hash_words],
            "policy_hash": c.policy_hash}


def parse_document(ops: PolicyOps, inp: Any) -> Any:
    """A ``parse_document`` case's answer: the classes, or ``{error, field}``."""
    f = cj.fields(inp, "input", ("document",))
    try:
        doc = ops.load_health_document(json.dumps(f["document"], allow_nan=False))
    except PolicyError as e:
        return {"error": e.code.value, "field": e.field}
    return {"classes": [health_class_to_json(c) for c in doc.classes]}


def compare(expect: Any, actual: Any) -> str | None:
    # An expected error without a `field` pins only the code (docs/health.md
    # section 7; as the format-2 vectors do for an op's inputs).
    if isinstance(expect, dict) and "error" in expect and "field" not in expect and isinstance(actual, dict):
        actual = {k: v for k, v in actual.items() if k != "field"}
    if same(expect, actual):
        return None
    return f"expected {json.dumps(expect, sort_keys=True)}, got {json.dumps(actual, sort_keys=True)}"
