#!/usr/bin/env python3
"""A stand-in replica for checking test_sigterm's harness (not a host).

It follows docs/replica.md's drain on SIGTERM/SIGINT with a toy policy (no
budget, no artifact): every non-2xx is retried after 300 ms, up to 5
attempts. Modes (``--mode``): ``good`` drains as the contract says;
``keep-sending`` goes on starting attempts during the drain (the harness
must catch it); ``no-handler`` leaves the signals' default (killed).
Only ``http://`` targets; stdlib only. Takes the REPLICA flags the fleet
tests pass (``--policy`` and ``--allow-private-targets`` are ignored).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import time
from urllib.parse import urlsplit

MAX_ATTEMPTS = 5
BACKOFF_S = 0.3
REASONS = ("delivered", "terminal_response", "max_attempts_exhausted", "retry_window_elapsed",
           "retry_budget_exhausted", "budget_unavailable")


class Run:
    def __init__(self, a: argparse.Namespace) -> None:
        self.a = a
        u = urlsplit(a.target)
        self.host, self.port, self.path = u.hostname or "127.0.0.1", u.port or 80, u.path or "/"
        self.next_event = 0
        self.attempts = self.first = self.retries = self.pending = 0
        self.reasons = {r: 0 for r in REASONS}
        self.stopping = asyncio.Event()  # the first signal came
        self.no_new_attempts = asyncio.Event()  # at the signal; keep-sending: only at the drain deadline
        self.in_flight: set[asyncio.Task] = set()
        self.started = time.monotonic()

    async def post(self, event_id: str, attempt: int) -> int:
        body = json.dumps({"event_id": event_id, "attempt": attempt}).encode()
        r, w = await asyncio.open_connection(self.host, self.port)
        try:
            w.write(f"POST {self.path} HTTP/1.1\r\nhost: {self.host}\r\ncontent-type: application/json\r\n"
                    f"x-event-id: {event_id}\r\nx-attempt: {attempt}\r\ncontent-length: {len(body)}\r\n"
                    f"connection: close\r\n\r\n".encode() + body)
            await w.drain()
            status = int((await r.readline()).split()[1])
            await r.read()
            return status
        finally:
            w.close()

    def may_start(self) -> bool:
        return not self.no_new_attempts.is_set()

    async def event(self, i: int) -> None:
        event_id = f"drain-{os.getpid()}-{i}"
        attempt = 0
        while True:
            if not self.may_start():
                self.pending += 1
                return
            attempt += 1
            self.attempts += 1
            if attempt == 1:
                self.first += 1
            else:
                self.retries += 1
            task = asyncio.ensure_future(self.post(event_id, attempt))
            self.in_flight.add(task)
            try:
                status = await task
            except asyncio.CancelledError:  # abandoned at the drain deadline: counted, the event pending
                self.pending += 1
                return
            except (OSError, ValueError, IndexError):
                status = 0
            finally:
                self.in_flight.discard(task)
            if 200 <= status < 300:
                self.reasons["delivered"] += 1
                return
            if attempt >= MAX_ATTEMPTS:
                self.reasons["max_attempts_exhausted"] += 1
                return
            try:
                await asyncio.wait_for(self.no_new_attempts.wait(), BACKOFF_S)
            except asyncio.TimeoutError:
                pass

    async def worker(self) -> None:
        while self.next_event < self.a.events and self.may_start():
            i = self.next_event
            self.next_event += 1
            await self.event(i)

    async def drain_deadline(self) -> None:
        await self.stopping.wait()
        if self.a.mode != "keep-sending":
            self.no_new_attempts.set()
        await asyncio.sleep(self.a.drain_ms / 1000)
        self.no_new_attempts.set()
        for t in list(self.in_flight):
            t.cancel()

    async def main(self) -> dict:
        loop = asyncio.get_running_loop()
        if self.a.mode != "no-handler":
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.stopping.set)  # a second signal: already set, ignored
        deadline = asyncio.ensure_future(self.drain_deadline())
        await asyncio.gather(*(self.worker() for _ in range(self.a.concurrency)))
        deadline.cancel()
        return {"host": "drain-reference", "events": self.next_event, "attempts": self.attempts,
                "first_attempts": self.first, "retries": self.retries, "stop_reasons": self.reasons,
                "pending": self.pending, "drained": self.stopping.is_set(),
                "elapsed_ms": int((time.monotonic() - self.started) * 1000)}


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="drain_replica.py")
    p.add_argument("--target", required=True)
    p.add_argument("--endpoint-id", required=True)
    p.add_argument("--events", type=int, required=True)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--policy")
    p.add_argument("--allow-private-targets", action="store_true")
    p.add_argument("--drain-ms", type=int, default=5000)
    p.add_argument("--mode", choices=("good", "keep-sending", "no-handler"), default="good")
    return p.parse_args(argv)


if __name__ == "__main__":
    summary = asyncio.run(Run(parse(sys.argv[1:])).main())
    print(json.dumps(summary), flush=True)
