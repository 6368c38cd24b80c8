"""Benchmark: µs per decision through each path, in one run.

    host-examples/python/bench [--vectors DIR] [--repeat R]

Rows: the component API (wasmtime-py component values), the fast path
(one core call per decision), the pure-Python BASELINE port
(baseline_decide.py, benchmark only), and one loopback httpx POST for
scale. Inputs: every non-error decide vector, cycled. Each row is the best
of R timed rounds (the machine is shared; best-of filters noise), and the
ratios are taken from these same numbers.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import httpx

import baseline_decide
from webhook_retry_policy import FastDecider, InMemoryBudgetCounter, ManualClock, PolicyError, RetryPolicy
from webhook_retry_policy import contract_json as cj, fastpath
from webhook_retry_policy.dispatcher import LocalEndpoint

HERE = Path(__file__).resolve().parent
GOAL_US = 25.0


def load_cases(directory: Path) -> list[tuple[Any, ...]]:
    cases = []
    for path in sorted(directory.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            if case["op"] != "decide" or "error" in case["expect"]:
                continue
            i = case["input"]
            cases.append((cj.policy(i["policy"]), cj.state(i["state"]), cj.outcome(i["outcome"]), i["now_ms"],
                          cj.budget_counts(i["budget_counts"])))
    return cases


def check_same(cases, *deciders: Callable[..., Any]) -> None:
    for args in cases:
        results = []
        for decide in deciders:
            try:
                results.append(decide(*args))
            except PolicyError as e:
                results.append(e.code)
        if any(r != results[0] for r in results):
            raise SystemExit(f"paths disagree on {args}: {results}")


def per_call_us(fn: Callable[[], Any], calls: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
    return best


def over(cases, decide: Callable[..., Any], n: int) -> Callable[[], None]:
    picked = [cases[i % len(cases)] for i in range(n)]

    def run() -> None:
        for args in picked:
            decide(*args)

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description="µs per decision through each path")
    ap.add_argument("--vectors", default=str(HERE.parents[2] / "tests" / "vectors"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cases = load_cases(Path(args.vectors))
    api = RetryPolicy(ManualClock())
    fast = FastDecider()
    check_same(cases, api.decide_with, fast.decide_with, baseline_decide.decide_with)

    wit_decide = RetryPolicy(ManualClock(), InMemoryBudgetCounter())
    inst = fast._instance()
    fast.decide_with(*cases[0])  # leaves a valid params image in the scratch block
    raw_call, raw_args = fastpath._RAW_CALL, inst.raw_args

    def raw() -> None:
        for _ in range(2000):
            inst.vals[0].i32 = inst.scratch
            raw_call(*raw_args)

    rows: list[tuple[str, float]] = []
    rows.append(("component API: decide-with (wasmtime-py component values)",
                 per_call_us(over(cases, api.decide_with, 200), 200, args.repeat)))
    rows.append(("component API: WIT decide (clock + in-memory counter imports)",
                 per_call_us(over(cases, lambda p, s, o, n, c: wit_decide.decide(p, s, o), 200), 200, args.repeat)))
    rows.append(("fast path: decide-with (typed in, typed out, 1 core call)",
                 per_call_us(over(cases, fast.decide_with, 5000), 5000, args.repeat)))
    rows.append(("  of which the one raw core call (adapter + guest work)", per_call_us(raw, 2000, args.repeat)))
    rows.append(("BASELINE pure-Python port (benchmark only)",
                 per_call_us(over(cases, baseline_decide.decide_with, 5000), 5000, args.repeat)))
    with LocalEndpoint(204) as ep, httpx.Client() as client:
        client.post(ep.url, content=b"{}")
        rows.append(("one loopback httpx POST (sync client, keep-alive)",
                     per_call_us(lambda: [client.post(ep.url, content=b"{}") for _ in range(200)], 200, args.repeat)))

    fast_us = rows[2][1]
    print(f"python {platform.python_version()}, wasmtime-py {metadata.version('wasmtime')}, "
          f"{len(cases)} decide vectors cycled, best of {args.repeat} rounds")
    print(f"{'path':<66} {'µs/decision':>12} {'x fast path':>12}")
    for name, us in rows:
        print(f"{name:<66} {us:>12.2f} {us / fast_us:>12.2f}")
    verdict = "meets" if fast_us <= GOAL_US else "MISSES"
    print(f"fast path {fast_us:.2f} µs/decision {verdict} the {GOAL_US:.0f} µs goal; "
          f"component API {rows[0][1] / fast_us:.0f}x slower; baseline {rows[4][1] / fast_us:.2f}x the fast path")


if __name__ == "__main__":
    main()
