"""Benchmark: the engine's share of the dispatcher's CPU at full loopback throughput.

    host-examples/python/bench --dispatcher [--events N] [--fail-every K] [--concurrency C]

The dispatcher (``driver.py``: the replica's driver of the delivery engine,
asyncio + the product's httpx client, the engine's in-memory budget store,
no journal: `journal: false`) delivers N events to ONE loopback endpoint as fast as it can.
The endpoint is a CHILD process (its CPU is not this process's): it answers
503 to every K-th request and 200 to the rest, so some events retry (after
1 ms: the bench document's backoff).

Measured in this process only: its CPU time (``time.process_time``) over
the whole run, this thread's CPU time inside the engine's batches
(``DeliveryEngine.feed``: the JSON both ways and the component call) and,
separately, inside the raw component calls (``Instance.run``), and the
boundary crossings (component calls) per delivered event and per attempt.
The product is wrapped here, never edited.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from typing import Any

from webhook_retry_policy import DeliveryEngine, instance
from webhook_retry_policy.dispatcher import Admissions, DispatcherMetrics, Driver, make_client

DOCUMENT = {"version": "bench", "classes": {"bench": {"window_ms": 60_000, "hard_cap": 8, "backoff": {
    "base_ms": 1, "factor": 2.0, "cap_ms": 5, "jitter": "none"}}}}

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
    """CPU seconds of this thread inside a wrapped call (``thread_time``: a
    preempted call on a loaded machine is not charged its wait), and the call count."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0

    def wrap(self, fn: Any) -> Any:
        meter = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                meter.seconds += time.thread_time() - start
                meter.calls += 1

        return timed


async def run_driver(url: str, events: int, concurrency: int, prefix: str, max_open: bool) -> Driver:
    config = {"document": DOCUMENT, "memory_store": True, "max_in_flight": concurrency, "journal": False}
    engine = DeliveryEngine({**config, "max_open": concurrency} if max_open else config)  # the replica without --store
    async with make_client(concurrency=concurrency, allow_private_targets=True) as client:
        driver = Driver(engine, client=client, metrics=DispatcherMetrics(), concurrency=concurrency,
                        engine_max_open=max_open)
        await driver.run(Admissions(prefix, events, "ep_bench", url, "bench", None), 1000)
    engine.close()
    return driver


async def deliver(url: str, events: int, concurrency: int, max_open: bool) -> dict[str, Any]:
    await run_driver(url, 20, concurrency, f"warm{max_open}", max_open)  # connections, the first instance, lazy imports
    batches, component = Meter(), Meter()
    real_feed, real_run = DeliveryEngine.feed, instance.Instance.run
    DeliveryEngine.feed = batches.wrap(real_feed)  # type: ignore[method-assign]
    instance.Instance.run = component.wrap(real_run)  # type: ignore[method-assign]
    try:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        driver = await run_driver(url, events, concurrency, f"evt{max_open}", max_open)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    finally:
        DeliveryEngine.feed, instance.Instance.run = real_feed, real_run  # type: ignore[method-assign]
    t = driver.tally
    return {"cpu": cpu, "wall": wall, "engine": batches.seconds, "batches": batches.calls,
            "component": component.seconds, "crossings": component.calls,
            "attempts": t.first_attempts + t.retries, "delivered": t.stop_reasons["delivered"]}


def main() -> None:
    ap = argparse.ArgumentParser(description="the engine's share of the dispatcher's CPU at full loopback throughput")
    ap.add_argument("--events", type=int, default=3000)
    ap.add_argument("--fail-every", type=int, default=4, help="the endpoint answers 503 to every K-th request (0: never)")
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()
    child = subprocess.Popen([sys.executable, "-c", SERVER, str(args.fail_every)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": ""})
    try:
        assert child.stdout is not None
        url = f"http://127.0.0.1:{int(child.stdout.readline())}/hook"
        # Side by side in one run: the replica as before max_open (the admissions a result frees
        # go in a second feed) and as it runs now (max_open: in the same feed).
        runs = [asyncio.run(deliver(url, args.events, args.concurrency, m)) for m in (False, True)]
    finally:
        child.terminate()
        child.wait(timeout=5)
    print(f"dispatcher (the engine's driver) at full loopback throughput: {args.events} events, endpoint in a child "
          f"process answering 503 to every {args.fail_every}th request, concurrency {args.concurrency}")
    print("| measure | two feeds (no max_open) | one feed (max_open, the replica) | ratio |\n|---|---:|---:|---:|")

    def row(name: str, f: Any, fmt: str = "{:.2f}") -> None:
        a, b = f(runs[0]), f(runs[1])
        print(f"| {name} | {fmt.format(a)} | {fmt.format(b)} | {b / a if a else 0:.2f}x |")

    row("attempts (POSTs)", lambda r: r["attempts"], "{}")
    row("delivered", lambda r: r["delivered"], "{}")
    row("wall, µs per delivered event", lambda r: r["wall"] / r["delivered"] * 1e6, "{:.0f}")
    row("process CPU, µs per attempt", lambda r: r["cpu"] / r["attempts"] * 1e6, "{:.0f}")
    row("engine batches (feeds) per delivered event", lambda r: r["batches"] / r["delivered"])
    row("boundary crossings per delivered event", lambda r: r["crossings"] / r["delivered"])
    row("CPU inside the engine's batches, µs per delivered event", lambda r: r["engine"] / r["delivered"] * 1e6, "{:.1f}")
    row("engine share of the process CPU, %", lambda r: 100 * r["engine"] / r["cpu"])
    row("raw component calls' share, %", lambda r: 100 * r["component"] / r["cpu"])
    share = 100 * runs[1]["engine"] / runs[1]["cpu"]
    print(f"goal: the policy <= 2% of the dispatcher's CPU: {share:.2f}% -> {'met' if share <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
