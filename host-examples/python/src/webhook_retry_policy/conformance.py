"""Run conformance vector files (SPEC "Vector files", formats 1 and 2,
format 3's ``webhook-retry-policy/health-vectors 1``: ``conformance_health``,
and the delivery engine's ``webhook-retry-policy/engine-trace 1``:
``conformance_engine``) through this host's public package.

``python -m webhook_retry_policy.conformance DIR`` (or
``host-examples/python/conformance DIR``) runs every ``*.json`` in DIR,
prints one line per failing case (file, name, what differed), then
``python: N passed, M failed``. Exit 1 on any failure, including a broken
vector (unknown op, unknown or missing field) or a DIR without vectors.

The ops whose function ABI 1.0 still exports run through this host's glue
(``plan``, ``classify_status``, ``classify_error``, ``retry_after``,
``evaluate``, ``settle``; format 3's ``parse_document``). Every other op
(``delay``, ``budget``, ``decide``, ``resume``, format 3's store, gate,
settle, pacer and pause ops) runs inside the artifact through the
test-only ``vector-case(format, case)``: the file's ``format`` value and
the case as JSON text, every number spelled exactly as in the file (u64
values above 2^53 occur). The component judges those cases (an unknown
field is a broken vector there); its error message is the failure.

The artifact is the package's default: ``RETRY_POLICY_ARTIFACT`` when set
(else the copy shipped in the package); its sha256 and the number of decide
cases run through the imports go to stderr.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import conformance_engine
from . import conformance_json as cj
from ._generated.abi import GuestError
from .conformance_engine import FORMAT as ENGINE_FORMAT
from .conformance_health import FORMAT as HEALTH_FORMAT
from .conformance_health import compare, parse_document
from .errors import PolicyError, PolicyTrap
from .instance import current
from .ops import PolicyOps
from .policy import RetryPolicy
from .types import AttemptOutcome, DeliveryState, Policy

HOST = "python"
FORMATS = (1, 2)
Thunk = Callable[[], Any]
# The ops run inside the artifact (``vector-case``), by format.
IN_ARTIFACT = {
    "policy": frozenset({"delay", "budget", "decide", "resume"}),
    "health": frozenset({"apply", "gate", "after_probe", "settle", "health_outcome", "pause_until",
                         "pace", "normal_per_s"}),
}

# The contract's integer fields. A JSON number is its value however it is
# spelled, so `900000.0`, `2e3` or `-0` in one of these is that integer, as
# in every other host (Python's json module alone reads them as floats).
INT_FIELDS = frozenset({
    "base_ms", "cap_ms", "window_ms", "hard_cap", "min_sample", "attempt", "max_attempts",
    "first_attempted_at_ms", "status", "retry_after_ms", "now_ms", "retry_index", "total", "retries", "bucket",
})


def _integers_by_value(v: Any, key: str = "") -> Any:
    if isinstance(v, dict):
        return {k: _integers_by_value(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [_integers_by_value(x, key) for x in v]
    if key in INT_FIELDS and isinstance(v, float) and v.is_integer() and abs(v) < 2.0**64:
        v = int(v)
    if key == "status" and isinstance(v, int) and not isinstance(v, bool) and v > 0xFFFF:
        # Beyond 16 bits is as invalid as 600: saturate, so invalid_status
        # comes in the contract's validation order (as policy-core's codec).
        return 0xFFFF
    return v


@dataclass
class CaseResult:
    file: str
    name: str
    problem: str | None  # None = passed


class Raw:
    """A JSON number as spelled in the file (``vector-case`` gets it unchanged)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def raw_json(v: Any) -> str:
    """``v`` (parsed with numbers as :class:`Raw`) as JSON text, every number as in the file."""
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{raw_json(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(raw_json(x) for x in v) + "]"
    return json.dumps(v)


def raw_cases(text: str) -> tuple[str, list[Any]]:
    """The file's ``format`` value and its cases, numbers kept as spelled."""
    doc = json.loads(text, parse_int=Raw, parse_float=Raw, parse_constant=Raw)
    cases = doc.get("cases") if isinstance(doc, dict) else None
    return raw_json(doc.get("format")), cases if isinstance(cases, list) else []


def in_artifact(format_text: str, case_text: str) -> str | None:
    """One case run by the artifact's ``vector-case``: None if it passed, else its message."""
    try:
        current().run("vector-case", format_text, case_text)
    except GuestError as e:
        return str(e)
    except (PolicyError, PolicyTrap) as e:
        return f"vector-case: {type(e).__name__}: {e}"
    return None


class Runner:
    def __init__(self) -> None:
        self.ops = PolicyOps()
        self.in_artifact = 0

    def _thunk(self, op: str, inp: Any) -> Thunk:  # noqa: C901 - one branch per op
        p = self.ops
        s = ("policy", "state", "outcome", "now_ms")
        if op == "plan":
            f = cj.fields(inp, "input", ("backoff", "window_ms", "hard_cap"))
            return lambda: cj.schedule_to_json(p.plan(cj.backoff(f["backoff"]), f["window_ms"], f["hard_cap"]))
        if op == "classify_status":
            f = cj.fields(inp, "input", ("status",))
            return lambda: {"outcome": p.classify_status(f["status"]).value}
        if op == "classify_error":
            f = cj.fields(inp, "input", ("error_kind",))
            return lambda: {"outcome": p.classify_error(f["error_kind"]).value}
        if op in ("evaluate", "settle"):
            f = cj.fields(inp, "input", s + (("reply",) if op == "settle" else ()))

            def args() -> tuple[Policy, DeliveryState, AttemptOutcome, int]:
                return (cj.policy(f["policy"]), cj.state(f["state"]), cj.outcome(f["outcome"]), f["now_ms"])

            if op == "evaluate":
                return lambda: cj.step_to_json(p.evaluate(*args()))
            return lambda: cj.settlement_to_json(p.settle(*args(), cj.reply(f["reply"])))
        if op == "retry_after":
            f = cj.fields(inp, "input", ("header", "now_ms"))
            return lambda: {"retry_after_ms": p.parse_retry_after(f["header"], f["now_ms"])}
        raise cj.ShapeError("op", f"unknown op {op!r}")

    def run_case(self, case: Any) -> str | None:
        """None if the case passes, else what differed."""
        try:
            c = cj.fields(case, "case", ("name", "op", "input", "expect"))
            thunk = self._thunk(c["op"], c["input"])
            actual = thunk()
        except cj.ShapeError as e:
            return f"broken vector: {e}"
        except PolicyError as e:
            actual = {"error": e.code.value}
        except PolicyTrap as e:
            return f"trapped: {e}"
        return _compare(c["expect"], actual)

    def run_health_case(self, case: Any) -> str | None:
        """A format-3 ``parse_document`` case: None if it passes, else what differed."""
        try:
            c = cj.fields(case, "case", ("name", "op", "input", "expect"))
            if c["op"] != "parse_document":
                raise cj.ShapeError("op", f"unknown op {c['op']!r}")
            actual = parse_document(self.ops, c["input"])
        except cj.ShapeError as e:
            return f"broken vector: {e}"
        except PolicyTrap as e:
            return f"trapped: {e}"
        return compare(c["expect"], actual)

    def run_case_text(self, kind: str, case: Any, format_text: str, raw: Any) -> str | None:
        """A case whose op runs inside the artifact (``vector-case``), else through the glue."""
        op = case.get("op") if isinstance(case, dict) else None
        if op in IN_ARTIFACT[kind]:
            self.in_artifact += 1
            return in_artifact(format_text, raw_json(raw))
        return self.run_health_case(case) if kind == "health" else self.run_case(case)

    def run_file(self, path: Path) -> list[CaseResult]:
        try:
            text = path.read_text(encoding="utf-8")
            doc = json.loads(text)
            traces = isinstance(doc, dict) and doc.get("format") == ENGINE_FORMAT  # taken as written: no integer fix-ups
            doc = conformance_engine.file_cases(doc) if traces else _integers_by_value(doc)
            health = isinstance(doc, dict) and doc.get("format") == HEALTH_FORMAT
            optional = ("spec", "regenerate") if health else ()
            f = {"cases": doc} if traces else cj.fields(doc, "", ("format", "suite", "cases"), optional)
            if not traces and not health and f["format"] not in FORMATS:
                raise cj.ShapeError("format", f"unsupported format {f['format']!r}")
            if not isinstance(f["cases"], list):
                raise cj.ShapeError("cases", "expected a list")
            format_text, raws = ("", []) if traces else raw_cases(text)
        except (ValueError, OSError) as e:
            return [CaseResult(path.name, "<file>", f"unreadable vector file: {e}")]
        if traces:
            return self.run_traces(path, f["cases"])
        kind = "health" if health else "policy"
        return [CaseResult(path.name, _name(case, i), self.run_case_text(kind, case, format_text, raws[i]))
                for i, case in enumerate(f["cases"])]

    def run_traces(self, path: Path, cases: list[Any]) -> list[CaseResult]:
        """An engine trace file's cases (``conformance_engine``)."""
        return [CaseResult(path.name, _name(c, i), conformance_engine.run_case(c)) for i, c in enumerate(cases)]


def _name(case: Any, i: int) -> str:
    return str(case.get("name", f"#{i}") if isinstance(case, dict) else f"#{i}")


def _compare(expect: Any, actual: dict[str, Any]) -> str | None:
    if isinstance(expect, dict) and "error" in expect:
        if actual.get("error") != expect["error"]:
            return f"expected error {expect['error']}, got {json.dumps(actual, sort_keys=True)}"
        return None
    if actual != expect:
        return f"expected {json.dumps(expect, sort_keys=True)}, got {json.dumps(actual, sort_keys=True)}"
    return None


def run_dir(directory: str | Path, runner: Runner | None = None) -> list[CaseResult]:
    runner = runner or Runner()
    return [r for f in sorted(Path(directory).glob("*.json")) for r in runner.run_file(f)]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: conformance DIR", file=sys.stderr)
        return 2
    directory = Path(argv[0])
    if not directory.is_dir():
        print(f"conformance: {directory} is not a directory", file=sys.stderr)
        print(f"{HOST}: 0 passed, 1 failed")
        return 1
    from .artifact import describe
    from .errors import ArtifactError

    try:
        info = RetryPolicy().artifact_info()
    except ArtifactError as e:
        print(f"conformance: the artifact was refused: {e}", file=sys.stderr)
        print(f"{HOST}: 0 passed, 1 failed")
        return 1
    from .artifact import current_artifact

    # The embedded document (format 2 or 3) as the loader read it: the classes with a health section.
    embedded = current_artifact().health_document
    health = "" if embedded is None else " health_classes=" + ",".join(
        c.name for c in embedded.classes if c.health is not None)
    print(f"artifact {describe(info)}{health}", file=sys.stderr)
    runner = Runner()
    results = run_dir(directory, runner)
    failed = [r for r in results if r.problem]
    for r in failed:
        print(f"FAIL {r.file}: {r.name}: {r.problem}")
    if not results:
        print(f"conformance: no vector files (*.json) in {directory}", file=sys.stderr)
    print(f"cases run inside the artifact (vector-case): {runner.in_artifact}", file=sys.stderr)
    print(f"{HOST}: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
