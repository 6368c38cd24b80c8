"""Run conformance vector files (SPEC "Vector files") through this host.

``python -m webhook_retry_policy.conformance DIR`` (or the executable
``host-examples/python/conformance DIR``) runs every ``*.json`` in DIR and
prints one line per failing case, then ``python: N passed, M failed``.
Exit status 1 on any failure (including a broken vector: unknown op,
unknown or missing field) or when DIR holds no vector at all.

Every ``decide`` case runs twice, through the component API
(``RetryPolicy.decide_with``) and through the fast path
(``FastDecider``); the case passes only if both give the expected result.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from . import contract_json as cj
from .clock import ManualClock
from .errors import PolicyError, PolicyTrap
from .fastpath import FastDecider
from .policy import RetryPolicy
from .types import BudgetCounts

HOST = "python"


@dataclass
class CaseResult:
    file: str
    name: str
    problem: Optional[str]  # None = passed


class Runner:
    def __init__(self) -> None:
        self.policy = RetryPolicy(ManualClock())
        self.fast = FastDecider()

    # Each op: input -> list of (path label, thunk producing the contract JSON).
    def _paths(self, op: str, inp: Any) -> list[tuple[str, Callable[[], Any]]]:
        p = self.policy
        if op == "plan":
            f = cj.fields(inp, "input", ("backoff", "window_ms", "hard_cap"))
            return [("component", lambda: cj.schedule_to_json(p.plan(cj.backoff(f["backoff"]), f["window_ms"], f["hard_cap"])))]
        if op == "delay":
            f = cj.fields(inp, "input", ("backoff", "event_id", "retry_index"))
            return [("component", lambda: {"delay_ms": p.delay(cj.backoff(f["backoff"]), f["event_id"], f["retry_index"])})]
        if op == "classify_status":
            f = cj.fields(inp, "input", ("status",))
            return [("component", lambda: {"outcome": p.classify_status(f["status"]).value})]
        if op == "classify_error":
            f = cj.fields(inp, "input", ("error_kind",))
            return [("component", lambda: {"outcome": p.classify_error(f["error_kind"]).value})]
        if op == "budget":
            f = cj.fields(inp, "input", ("budget", "now_ms", "current", "previous"))

            def budget() -> Any:
                b = cj.budget(f["budget"])
                counts = BudgetCounts(cj.bucket_counts(f["current"], "current"), cj.bucket_counts(f["previous"], "previous"))
                return {"allows_retry": p.budget_allows(b, f["now_ms"], counts)}

            return [("component", budget)]
        if op == "decide":
            f = cj.fields(inp, "input", ("policy", "state", "outcome", "now_ms", "budget_counts"))

            def decide(via: Any) -> Callable[[], Any]:
                def run() -> Any:
                    args = (cj.policy(f["policy"]), cj.state(f["state"]), cj.outcome(f["outcome"]))
                    counts = cj.budget_counts(f["budget_counts"])
                    return cj.decision_to_json(via.decide_with(*args, f["now_ms"], counts))

                return run

            return [("component", decide(p)), ("fast path", decide(self.fast))]
        raise cj.ShapeError("op", f"unknown op {op!r}")

    def run_case(self, case: Any) -> Optional[str]:
        """None if the case passes, else what differed."""
        try:
            c = cj.fields(case, "case", ("name", "op", "input", "expect"))
            paths = self._paths(c["op"], c["input"])
        except cj.ShapeError as e:
            return f"broken vector: {e}"
        expect = c["expect"]
        for label, thunk in paths:
            try:
                actual = thunk()
            except cj.ShapeError as e:
                return f"broken vector: {e}"
            except PolicyError as e:
                actual = {"error": e.code.value, "field": e.field}
            except PolicyTrap as e:
                return f"{label}: trapped: {e}"
            problem = _compare(expect, actual)
            if problem:
                return f"{label}: {problem}"
        return None

    def run_file(self, path: Path) -> list[CaseResult]:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            f = cj.fields(doc, "", ("format", "suite", "cases"))
            if f["format"] != 1:
                raise cj.ShapeError("format", f"unsupported format {f['format']!r}")
            if not isinstance(f["cases"], list):
                raise cj.ShapeError("cases", "expected a list")
        except (ValueError, OSError) as e:
            return [CaseResult(path.name, "<file>", f"unreadable vector file: {e}")]
        results = []
        for i, case in enumerate(f["cases"]):
            name = case.get("name", f"#{i}") if isinstance(case, dict) else f"#{i}"
            results.append(CaseResult(path.name, str(name), self.run_case(case)))
        return results


def _compare(expect: Any, actual: dict[str, Any]) -> Optional[str]:
    if isinstance(expect, dict) and "error" in expect:
        if "error" not in actual:
            return f"expected error {expect['error']}, got {json.dumps(actual)}"
        for key in ("error", "field"):
            if key in expect and expect[key] != actual.get(key):
                return f"expected {key} {expect[key]!r}, got {actual.get(key)!r}"
        return None
    if actual != expect:
        return f"expected {json.dumps(expect, sort_keys=True)}, got {json.dumps(actual, sort_keys=True)}"
    return None


def run_dir(directory: str | Path) -> list[CaseResult]:
    files = sorted(Path(directory).glob("*.json"))
    runner = Runner()
    return [r for f in files for r in runner.run_file(f)]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: conformance DIR", file=sys.stderr)
        return 2
    directory = Path(argv[0])
    if not directory.is_dir():
        print(f"conformance: {directory} is not a directory", file=sys.stderr)
        print(f"{HOST}: 0 passed, 1 failed")
        return 1
    results = run_dir(directory)
    failed = [r for r in results if r.problem]
    for r in failed:
        print(f"FAIL {r.file}: {r.name}: {r.problem}")
    if not results:
        print(f"conformance: no vector files (*.json) in {directory}", file=sys.stderr)
    print(f"{HOST}: {len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
