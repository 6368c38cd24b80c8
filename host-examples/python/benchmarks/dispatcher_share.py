"""Benchmark: the policy's share of a dispatcher's CPU at full loopback throughput.

    host-examples/python/bench --dispatcher [--events N] [--fail-every K] [--concurrency C]

One example dispatcher (``webhook_retry_policy.dispatcher.Dispatcher``:
asyncio + the product's httpx client, an in-memory event store and budget
store, a manual clock so a retry is due at once) delivers N events to ONE
loopback endpoint as fast as it can. The endpoint is a CHILD process (its
CPU is not this process's): it answers 503 to every K-th request and 200
to the rest, so some events retry.

Measured in this process only: its CPU time (``time.process_time``) over
the whole run (submit + deliver), and the wall time spent inside policy
calls, accumulated with ``perf_counter`` around the policy object's
methods, its in-memory budget store's and the document holder's (outermost call only: nested policy
calls are not counted twice) and, separately, around every raw component
call (``Instance.run``). The product is wrapped here, never edited. A
policy call never waits on I/O (the budget store is in memory), so its
wall time is its CPU time up to preemption.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webhook_retry_policy import AsyncRetryPolicy, ManualClock, instance
from webhook_retry_policy.dispatcher import DELIVERED, Dispatcher, DispatcherConfig
from webhook_retry_policy.dispatcher.demo import example_document_toml
from webhook_retry_policy.reload import DocumentHolder

HERE = Path(__file__).resolve().parent

# The child: a threading HTTP server on loopback answering 503 to every K-th POST, 200 otherwise.
SERVER = """
import sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
every = int(sys.argv[1]); count = [0]; lock = threading.Lock()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        with lock:
            count[0] += 1; n = count[0]
        self.send_response(503 if every and n % every == 0 else 200)
        self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H); s.daemon_threads = True
print(s.server_address[1], flush=True)
s.serve_forever()
"""


class Meter:
    """perf_counter seconds inside the outermost wrapped call, and the call count."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self.depth = 0

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        meter = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            if meter.depth:
                return fn(*args, **kwargs)
            meter.depth = 1
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                meter.seconds += time.perf_counter() - start
                meter.calls += 1
                meter.depth = 0

        return timed

    def wrap_async(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """An async policy call (``step``): only its synchronous stretches are
        timed, so other tasks running while it awaits the store are not counted."""
        meter = self

        async def timed(*args: Any, **kwargs: Any) -> Any:
            coro = fn(*args, **kwargs)
            value: Any = None
            meter.calls += 1
            while True:
                start = time.perf_counter()
                meter.depth += 1
                try:
                    awaited = coro.send(value)
                except StopIteration as done:
                    return done.value
                finally:
                    meter.depth -= 1
                    meter.seconds += time.perf_counter() - start
                value = await _Yield(awaited)

        return timed


class _Yield:
    """Hands a coroutine's yielded value to the event loop unchanged."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Any:
        return (yield self.value)


def instrument(policy: AsyncRetryPolicy, holder: DocumentHolder, meter: Meter) -> None:
    """Every policy method the dispatcher may call (those this version has), the
    holder's, and the in-memory budget store's ``call`` (``store-apply``: under
    ``wait_for`` it runs in its own task, so it is counted apart from ``step``'s stretches)."""
    names = ("admit", "evaluate", "settle", "resume", "parse_retry_after", "classify_status", "classify_error",
             "store_apply", "decide_with", "class_policy")
    for name in (n for n in names if callable(getattr(policy, n, None))):
        setattr(policy, name, meter.wrap(getattr(policy, name)))
    policy.step = meter.wrap_async(policy.step)  # type: ignore[method-assign]
    for name in ("admit", "policy_for"):
        setattr(holder, name, meter.wrap(getattr(holder, name)))
    inner = getattr(policy.store, "inner", None)
    if inner is not None:
        inner.call = meter.wrap(inner.call)


async def deliver(url: str, events: int, concurrency: int) -> dict[str, Any]:
    clock = ManualClock()
    policy = AsyncRetryPolicy(clock=clock)
    document = policy.load_document_toml(example_document_toml())
    holder = DocumentHolder(policy, document)
    meter, component = Meter(), Meter()
    by_op: dict[str, list[float]] = {}  # operation -> [calls, seconds] of the raw component calls
    instrument(policy, holder, meter)
    real_run = instance.Instance.run
    def run_op(self: instance.Instance, name: str, *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return real_run(self, name, *args)
        finally:
            acc = by_op.setdefault(name, [0, 0.0])
            acc[0] += 1
            acc[1] += time.perf_counter() - start

    instance.Instance.run = component.wrap(run_op)  # type: ignore[method-assign]
    try:
        d = Dispatcher(holder, {"ep_bench": url}, policy, sleep=clock.sleep,
                       config=DispatcherConfig(allow_private_targets=True, concurrency=concurrency))
        await d.submit("evt_warm", "ep_bench", "ledger", {"i": -1})  # connections, first instance, lazy imports
        await d.run_until_idle()
        meter.seconds = component.seconds = 0.0
        meter.calls = component.calls = 0
        by_op.clear()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        for i in range(events):
            await d.submit(f"evt_{i}", "ep_bench", "ledger", {"i": i})
        await d.run_until_idle()
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        records = [await d.store.get(f"evt_{i}") for i in range(events)]
        await d.client.aclose()
    finally:
        instance.Instance.run = real_run  # type: ignore[method-assign]
    return {"cpu": cpu, "wall": wall, "policy": meter.seconds, "policy_calls": meter.calls,
            "component": component.seconds, "component_calls": component.calls, "by_op": by_op,
            "attempts": sum(r.attempt for r in records), "delivered": sum(r.status == DELIVERED for r in records)}


def main() -> None:
    ap = argparse.ArgumentParser(description="the policy's share of a dispatcher's CPU at full loopback throughput")
    ap.add_argument("--events", type=int, default=3000)
    ap.add_argument("--fail-every", type=int, default=4, help="the endpoint answers 503 to every K-th request (0: never)")
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()
    child = subprocess.Popen([sys.executable, "-c", SERVER, str(args.fail_every)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": ""})
    try:
        assert child.stdout is not None
        url = f"http://127.0.0.1:{int(child.stdout.readline())}/hook"
        r = asyncio.run(deliver(url, args.events, args.concurrency))
    finally:
        child.terminate()
        child.wait(timeout=5)
    cpu, n = r["cpu"], r["attempts"]
    print(f"dispatcher at full loopback throughput: {args.events} events (class ledger), endpoint in a child process "
          f"answering 503 to every {args.fail_every}th request, concurrency {args.concurrency}")
    print("| measure | value |\n|---|---:|")
    print(f"| attempts (POSTs) / delivered | {n} / {r['delivered']} |")
    print(f"| wall | {r['wall'] * 1e3:.0f} ms ({n / r['wall']:.0f} attempts/s) |")
    print(f"| dispatcher process CPU | {cpu * 1e3:.0f} ms ({cpu / n * 1e6:.0f} µs/attempt) |")
    print(f"| inside policy calls ({r['policy_calls']} calls: admit, step, ...) | {r['policy'] * 1e3:.1f} ms "
          f"({r['policy'] / n * 1e6:.1f} µs/attempt) |")
    print(f"| of which raw component calls ({r['component_calls']}) | {r['component'] * 1e3:.1f} ms |")
    share = 100 * r["policy"] / cpu
    print(f"| policy share of the process CPU | {share:.2f}% |")
    print(f"| raw component calls' share | {100 * r['component'] / cpu:.2f}% |")
    for op, (calls, seconds) in sorted(r["by_op"].items(), key=lambda kv: -kv[1][1]):
        print(f"| raw `{op}`: {calls} calls | {seconds * 1e3:.1f} ms ({seconds / calls * 1e6:.1f} µs/call) |")
    print(f"goal: the policy <= 2% of the dispatcher's CPU: {share:.2f}% -> {'met' if share <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
