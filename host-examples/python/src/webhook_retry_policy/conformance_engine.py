"""Engine trace vectors (format ``webhook-retry-policy/engine-trace 1``,
docs/engine.md section 14) through :class:`DeliveryEngine`.

For each case: open an engine on its ``config``; feed each step's
``input`` alone (a batch of one); then the first refused input's code must
be the step's ``error`` (absent: none), the actions must equal ``expect``
(in order) when given, and the answer's ``timeout_ms`` must equal the
step's when given (null: none). Unknown fields at file, case or step level
make a broken vector. A failure names the step (the runner prints the file
and the case's name).
"""

from __future__ import annotations

import json
from typing import Any

from . import conformance_json as cj
from .conformance_health import same
from .delivery_engine import DeliveryEngine, EngineError
from .errors import PolicyTrap

FORMAT = "webhook-retry-policy/engine-trace 1"


def file_cases(doc: Any) -> list[Any]:
    """The file's cases (a ``ShapeError`` for unknown fields or no list)."""
    f = cj.fields(doc, "", ("format", "cases"), ("spec", "regenerate"))
    if not isinstance(f["cases"], list):
        raise cj.ShapeError("cases", "expected a list")
    return f["cases"]


def run_case(case: Any) -> str | None:
    """None if the case passes, else what differed (naming the step)."""
    try:
        c = cj.fields(case, "case", ("name", "config", "steps"), ("comment",))
        if not isinstance(c["steps"], list):
            raise cj.ShapeError("steps", "expected a list")
        for i, step in enumerate(c["steps"]):
            cj.fields(step, f"steps[{i}]", ("input",), ("expect", "error", "timeout_ms"))
    except cj.ShapeError as e:
        return f"broken vector: {e}"
    try:
        engine = DeliveryEngine(c["config"])
    except EngineError as e:
        return f"config refused: {e}"
    except PolicyTrap as e:
        return f"trapped: {e}"
    try:
        with engine:
            for i, step in enumerate(c["steps"]):
                problem = _step(engine, step)
                if problem:
                    return f"step {i}: {problem}"
    except (EngineError, PolicyTrap) as e:
        return f"{type(e).__name__}: {e}"
    return None


def _step(engine: DeliveryEngine, step: dict[str, Any]) -> str | None:
    got = engine.feed([step["input"]])
    error = got.errors[0].get("error") if got.errors else None
    if error != step.get("error"):
        shown = json.dumps(got.errors[0]) if got.errors else "none"
        return f"error {shown}, expected {json.dumps(step.get('error'))}"
    if "expect" in step and not same(step["expect"], got.outputs):
        return f"actions {json.dumps(got.outputs)} expected {json.dumps(step['expect'])}"
    if "timeout_ms" in step and not same(step["timeout_ms"], got.timeout_ms):
        return f"timeout_ms {json.dumps(got.timeout_ms)} expected {json.dumps(step['timeout_ms'])}"
    return None
