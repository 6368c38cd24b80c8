"""Format-3 vector files (``tests/vectors/format3-*.json``, format
``webhook-retry-policy/health-vectors 1``, docs/health.md section 7) run
through the COMPONENT, as ``policy-core/tests/health_vectors.rs`` runs them
through the Rust reference:

* ``parse_document``: ``load-health-document`` on the document as text;
* ``apply``: ``apply-call`` call by call (the store-call built from the
  case's request, the section's circuit and the budget), the held state
  carried from one call to the next;
* ``gate``, ``after_probe``, ``settle`` (``finish``), ``settle_wake``:
  ``compile(policy, health)``, the handle's function, then ``discard``;
* ``pace`` (call by call), ``normal_per_s``, ``health_outcome``,
  ``pause_until``: their functions.

An error is ``{error, field}`` (without ``field``: only the code is compared). Answers compare as JSON values: numbers by
value, a boolean never equal to a number.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from . import contract_json as cj
from . import health_json as hj
from .compiled import CompiledPolicy
from .errors import PolicyError
from .ops import PolicyOps
from .types import Health, HeldHealth, Policy

FORMAT = "webhook-retry-policy/health-vectors 1"
KEYS: dict[str, tuple[str, ...]] = {
    "parse_document": ("document",),
    "apply": ("section", "budget", "held", "calls"),
    "gate": ("policy", "health", "event", "pacer", "now_ms"),
    "after_probe": ("policy", "health", "event", "granted", "view", "pacer", "now_ms"),
    "settle": ("policy", "health", "state", "outcome", "now_ms", "reply"),
    "settle_wake": ("policy", "wake", "reply", "now_ms"),
    "health_outcome": ("outcome",),
    "pause_until": ("health", "outcome", "now_ms"),
    "pace": ("release", "pacer", "calls"),
    "normal_per_s": ("budget", "now_ms", "current", "previous"),
}
OPTIONAL: dict[str, tuple[str, ...]] = {"gate": ("view",)}


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


def _compiled(policy: Policy, health: Health | None, fn: Callable[[CompiledPolicy], Any]) -> Any:
    with CompiledPolicy(policy, health) as cp:
        return fn(cp)


class HealthRunner:
    """Runs one format-3 case: its answer in the vectors' shape, or ``{error, field}``."""

    def __init__(self, ops: PolicyOps) -> None:
        self.ops = ops

    def run_case(self, op: str, inp: Any) -> Any:
        if op not in KEYS:
            raise cj.ShapeError("op", f"unknown op {op!r}")
        f = cj.fields(inp, "input", KEYS[op], OPTIONAL.get(op, ()))
        try:
            return getattr(self, f"_{op}")(f)
        except PolicyError as e:
            return {"error": e.code.value, "field": e.field}

    def _parse_document(self, f: dict[str, Any]) -> Any:
        doc = self.ops.load_health_document(json.dumps(f["document"], allow_nan=False))
        return {"classes": [hj.health_class_to_json(c) for c in doc.classes]}

    def _apply(self, f: dict[str, Any]) -> Any:
        sec = hj.section(f["section"], "section")
        if sec is None:
            raise cj.ShapeError("section", "a store case has a section")
        budget = cj.budget(f["budget"])
        held: HeldHealth = hj.held(f["held"])
        if not isinstance(f["calls"], list):
            raise cj.ShapeError("calls", "expected a list")
        replies = []
        for i, call in enumerate(f["calls"]):
            c = cj.fields(call, f"calls.{i}", ("now_ms", "request"))
            applied = self.ops.apply_call(hj.store_call(c["request"], sec, budget, f"calls.{i}.request"), c["now_ms"], held)
            replies.append(hj.reply_to_json(applied.reply))
            held = applied.held
        return {"replies": replies, "held": hj.held_to_json(held)}

    def _gate(self, f: dict[str, Any]) -> Any:
        view = None if f.get("view") is None else hj.view(f["view"])
        event, pacer = hj.gate_event(f["event"]), hj.pacer(f["pacer"])
        return _compiled(cj.policy(f["policy"]), hj.section(f["health"]),
                         lambda cp: hj.gate_answer_to_json(cp.gate(event, view, pacer, f["now_ms"])))

    def _after_probe(self, f: dict[str, Any]) -> Any:
        event, view, pacer = hj.gate_event(f["event"]), hj.view(f["view"]), hj.pacer(f["pacer"])
        return _compiled(cj.policy(f["policy"]), hj.section(f["health"]), lambda cp: hj.gate_answer_to_json(
            cp.after_probe(event, f["granted"], view, pacer, f["now_ms"])))

    def _settle(self, f: dict[str, Any]) -> Any:
        state, outcome, reply = cj.state(f["state"]), cj.outcome(f["outcome"]), cj.reply(f["reply"])
        return _compiled(cj.policy(f["policy"]), hj.section(f["health"]), lambda cp: hj.finished_to_json(
            cp.finish(state, outcome, f["now_ms"], reply)))

    def _settle_wake(self, f: dict[str, Any]) -> Any:
        wake, reply = hj.wake(f["wake"]), cj.reply(f["reply"])
        return _compiled(cj.policy(f["policy"]), None,
                         lambda cp: hj.wake_verdict_to_json(cp.settle_wake(wake, reply, f["now_ms"])))

    def _health_outcome(self, f: dict[str, Any]) -> Any:
        return {"outcome": self.ops.health_outcome_of(cj.outcome(f["outcome"])).value}

    def _pause_until(self, f: dict[str, Any]) -> Any:
        sec = hj.section(f["health"])
        if sec is None:
            raise cj.ShapeError("health", "a pause_until case has a section")
        return {"pause_until_ms": self.ops.pause_until(sec, cj.outcome(f["outcome"]), f["now_ms"])}

    def _pace(self, f: dict[str, Any]) -> Any:
        release, pacer = hj.release(f["release"]), hj.pacer(f["pacer"])
        if not isinstance(f["calls"], list):
            raise cj.ShapeError("calls", "expected a list")
        results = []
        for now_ms in f["calls"]:
            paced = self.ops.pace(release, pacer, now_ms)
            results.append(hj.paced_to_json(paced))
            pacer = paced.pacer
        return {"results": results, "pacer": hj.pacer_to_json(pacer)}

    def _normal_per_s(self, f: dict[str, Any]) -> Any:
        return {"normal_per_s": self.ops.normal_per_s(cj.budget(f["budget"]), f["now_ms"], f["current"], f["previous"])}


def compare(expect: Any, actual: Any) -> str | None:
    # An expected error without a `field` pins only the code (docs/health.md
    # section 7; as the format-2 vectors do for an op's inputs).
    if isinstance(expect, dict) and "error" in expect and "field" not in expect and isinstance(actual, dict):
        actual = {k: v for k, v in actual.items() if k != "field"}
    if same(expect, actual):
        return None
    return f"expected {json.dumps(expect, sort_keys=True)}, got {json.dumps(actual, sort_keys=True)}"

