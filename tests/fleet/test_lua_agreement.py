"""fleet/budget.lua decides exactly as the component: every `budget` case of
tests/vectors (and every budget-gated `decide` case) run through the script
in `reserve` mode on keys pre-filled with the case's counts."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest

from fleetlib import ROOT

SCRIPT = (ROOT / "fleet" / "budget.lua").read_text()


def budget_cases():
    cases = []
    for path in sorted(glob.glob(str(ROOT / "tests" / "vectors" / "*.json"))):
        for case in json.loads(Path(path).read_text())["cases"]:
            exp, inp = case["expect"], case["input"]
            if case["op"] == "budget" and "allows_retry" in exp:
                cases.append((Path(path).name, case["name"], inp["budget"], inp["now_ms"],
                              inp["current"], inp["previous"], exp["allows_retry"]))
            # decide cases settled by the budget gate: retry, or refused by the budget
            elif case["op"] == "decide" and "error" not in exp and inp["budget_counts"] is not None:
                reason = exp["stop_reason"]
                if reason is None or reason == "retry_budget_exhausted":
                    c = inp["budget_counts"]
                    cases.append((Path(path).name, case["name"], inp["policy"]["budget"], inp["now_ms"],
                                  c["current"], c["previous"], reason is None))
    return cases


CASES = budget_cases()


def test_the_vectors_hold_budget_cases_to_check():
    assert len(CASES) >= 50, f"only {len(CASES)} budget-gated cases found in tests/vectors"
    assert {c[6] for c in CASES} == {True, False}, "need both allowed and refused cases"


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_the_script_reserves_exactly_when_the_component_allows_a_retry(redis_db, case):
    _, _, budget, now_ms, current, previous, allows = case
    r = redis_db.client()
    sha = r.script_load(SCRIPT)
    window = budget["window_ms"]
    bucket = now_ms // window
    cur, prev = f"rb:{{vec}}:{window}:{bucket}", f"rb:{{vec}}:{window}:{bucket - 1}"
    r.delete(cur, prev)
    r.hset(cur, mapping={"t": current["total"], "r": current["retries"]})
    r.hset(prev, mapping={"t": previous["total"], "r": previous["retries"]})
    argv = ["reserve", "0", str(now_ms), str(window), repr(float(budget["ratio"])), str(budget["min_sample"]),
            "1" if budget["sliding"] else "0"]
    ct, cr, pt, pr, reserved = r.evalsha(sha, 2, cur, prev, *argv)
    assert [ct, cr, pt, pr] == [current["total"], current["retries"], previous["total"], previous["retries"]]
    assert reserved == (1 if allows else 0)
    after = r.hgetall(cur)
    expect_total = current["total"] + (1 if allows else 0)
    expect_retries = current["retries"] + (1 if allows else 0)
    assert (int(after[b"t"]), int(after[b"r"])) == (expect_total, expect_retries), "a reservation counts the retry, a refusal nothing"
