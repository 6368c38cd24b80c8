"""Run conformance vector files (SPEC "Vector files", formats 1 and 2,
format 3's ``webhook-retry-policy/health-vectors 1``: ``conformance_health``,
and the delivery engine's ``webhook-retry-policy/engine-trace 1``:
``conformance_engine``) through this host's public package.

``python -m webhook_retry_policy.conformance DIR`` (or
``host-examples/python/conformance DIR``) runs every ``*.json`` in DIR,
prints one line per failing case (file, name, what differed), then
``python: N passed, M failed``. Exit 1 on any failure, including a broken
vector (unknown op, unknown or missing field) or a DIR without vectors.

Every ``decide`` case runs twice: through ``decide_with`` (now and counts
passed in) and through the imports-driven ``decide`` (ONE call; the
component reads the clock, which answers the case's ``now_ms``, and calls
the budget store at most once, at that ``now_ms``; the store answers
``reserved`` by the component's own ``budget_allows`` on the case's counts
(never for ``record``), or fails when they are ``null``). A case passes only
when both give the expected answer.

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
from . import contract_json as cj
from .clock import ManualClock
from .conformance_engine import FORMAT as ENGINE_FORMAT
from .conformance_health import FORMAT as HEALTH_FORMAT
from .conformance_health import HealthRunner, compare
from .errors import PolicyError, PolicyTrap
from .ops import PolicyOps
from .policy import RetryPolicy
from .types import AttemptOutcome, Budget, BudgetCounts, DeliveryState, Policy, Reservation, StoreOp, StoreRequest

HOST = "python"
FORMATS = (1, 2)
Thunk = Callable[[], Any]

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


class VectorStore:
    """The budget store of a decide case: the case's counts, judged by the
    component's own rule (a nested call), or unreachable (counts null)."""

    def __init__(self, ops: PolicyOps) -> None:
        self.ops = ops
        self.counts: BudgetCounts | None = None
        self.now_ms = 0
        self.calls = 0
        self.bad: str | None = None  # what the component asked wrongly, if anything

    def start(self, now_ms: int, counts: BudgetCounts | None) -> None:
        self.now_ms, self.counts, self.calls, self.bad = now_ms, counts, 0, None

    def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        self.calls += 1
        if now_ms != self.now_ms:
            self.bad = f"the store was asked at now_ms {now_ms}, the clock said {self.now_ms}"
        if self.counts is None:
            raise ConnectionError("the case's store is unreadable (budget_counts null)")
        reserved = request.op != StoreOp.RECORD and self.ops.budget_allows(budget, now_ms, self.counts)
        return Reservation(reserved, self.counts)


class Mismatch(Exception):
    """The imports-driven decide answered differently from decide_with."""


class Runner:
    def __init__(self) -> None:
        self.ops = PolicyOps(ManualClock())
        self.clock = ManualClock()
        self.store = VectorStore(self.ops)
        self.imports = RetryPolicy(self.clock, self.store)
        self.health = HealthRunner(self.ops)
        self.through_imports = 0

    def _both(self, args: tuple[Policy, DeliveryState, AttemptOutcome, int], counts: BudgetCounts | None) -> Any:
        """decide_with's answer, after checking decide through the imports gives the same."""
        answers = []
        for way in ("decide_with", "decide"):
            try:
                if way == "decide_with":
                    answers.append(cj.decision_to_json(self.ops.decide_with(*args, counts)))
                else:
                    self.clock.set(args[3])
                    self.store.start(args[3], counts)
                    answers.append(cj.decision_to_json(self.imports.decide(*args[:3])))
            except PolicyError as e:
                answers.append({"error": e.code.value})
        self.through_imports += 1
        if self.store.bad or self.store.calls > 1:
            raise Mismatch(f"decide through the imports: {self.store.bad or f'{self.store.calls} store calls (at most one)'}")
        if answers[0] != answers[1]:
            raise Mismatch(f"decide through the imports gave {json.dumps(answers[1], sort_keys=True)}, "
                           f"decide_with {json.dumps(answers[0], sort_keys=True)}")
        if "error" in answers[0]:
            raise PolicyError(answers[0]["error"], "", "")
        return answers[0]

    def _thunk(self, op: str, inp: Any) -> Thunk:  # noqa: C901 - one branch per op
        p = self.ops
        s = ("policy", "state", "outcome", "now_ms")
        if op == "plan":
            f = cj.fields(inp, "input", ("backoff", "window_ms", "hard_cap"))
            return lambda: cj.schedule_to_json(p.plan(cj.backoff(f["backoff"]), f["window_ms"], f["hard_cap"]))
        if op == "delay":
            f = cj.fields(inp, "input", ("backoff", "event_id", "retry_index"))
            return lambda: {"delay_ms": p.delay(cj.backoff(f["backoff"]), f["event_id"], f["retry_index"])}
        if op == "classify_status":
            f = cj.fields(inp, "input", ("status",))
            return lambda: {"outcome": p.classify_status(f["status"]).value}
        if op == "classify_error":
            f = cj.fields(inp, "input", ("error_kind",))
            return lambda: {"outcome": p.classify_error(f["error_kind"]).value}
        if op == "budget":
            f = cj.fields(inp, "input", ("budget", "now_ms", "current", "previous"))
            return lambda: {"allows_retry": p.budget_allows(cj.budget(f["budget"]), f["now_ms"], BudgetCounts(
                cj.bucket_counts(f["current"], "current"), cj.bucket_counts(f["previous"], "previous")))}
        if op in ("decide", "evaluate", "settle"):
            extra = {"decide": ("budget_counts",), "evaluate": (), "settle": ("reply",)}[op]
            f = cj.fields(inp, "input", s + extra)

            def args() -> tuple[Policy, DeliveryState, AttemptOutcome, int]:
                return (cj.policy(f["policy"]), cj.state(f["state"]), cj.outcome(f["outcome"]), f["now_ms"])

            if op == "decide":
                return lambda: self._both(args(), cj.budget_counts(f["budget_counts"]))
            if op == "evaluate":
                return lambda: cj.step_to_json(p.evaluate(*args()))
            return lambda: cj.settlement_to_json(p.settle(*args(), cj.reply(f["reply"])))
        if op == "resume":
            f = cj.fields(inp, "input", ("policy", "state", "now_ms"))
            return lambda: cj.resumption_to_json(p.resume(cj.policy(f["policy"]), cj.state(f["state"]), f["now_ms"]))
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
        except Mismatch as e:
            return str(e)
        return _compare(c["expect"], actual)

    def run_health_case(self, case: Any) -> str | None:
        """A format-3 case: None if it passes, else what differed."""
        try:
            c = cj.fields(case, "case", ("name", "op", "input", "expect"))
            actual = self.health.run_case(c["op"], c["input"])
        except cj.ShapeError as e:
            return f"broken vector: {e}"
        except PolicyTrap as e:
            return f"trapped: {e}"
        return compare(c["expect"], actual)

    def run_file(self, path: Path) -> list[CaseResult]:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            traces = isinstance(doc, dict) and doc.get("format") == ENGINE_FORMAT  # taken as written: no integer fix-ups
            doc = conformance_engine.file_cases(doc) if traces else _integers_by_value(doc)
            health = isinstance(doc, dict) and doc.get("format") == HEALTH_FORMAT
            optional = ("spec", "regenerate") if health else ()
            f = {"cases": doc} if traces else cj.fields(doc, "", ("format", "suite", "cases"), optional)
            if not traces and not health and f["format"] not in FORMATS:
                raise cj.ShapeError("format", f"unsupported format {f['format']!r}")
            if not isinstance(f["cases"], list):
                raise cj.ShapeError("cases", "expected a list")
        except (ValueError, OSError) as e:
            return [CaseResult(path.name, "<file>", f"unreadable vector file: {e}")]
        if traces:
            return self.run_traces(path, f["cases"])
        results = []
        for i, case in enumerate(f["cases"]):
            problem = self.run_health_case(case) if health else self.run_case(case)
            results.append(CaseResult(path.name, _name(case, i), problem))
        return results

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
    print(f"decide cases also run through the imports (clock + budget-store): {runner.through_imports}", file=sys.stderr)
    print(f"{HOST}: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
