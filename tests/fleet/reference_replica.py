#!/usr/bin/env python3
"""A reference replica for checking the fleet harness itself (REPLICA contract).

NOT a host: it does not run the component. It follows the store protocol
with a simplified policy (max attempts = the class's hard_cap, full-jitter
backoff, status 2xx delivered, 408/429/5xx and transport errors retryable,
anything else terminal; gates in the contract's order), so the harness's
MONITOR count and fault tests can be shown to pass for a replica that does
it right and to fail for one that does not, while the four language hosts
are being migrated.

    reference_replica.py --target URL --endpoint-id ID --events N --policy FILE
        [--concurrency C (8)] [--redis redis://127.0.0.1:PORT/0 | --redis-cluster redis://SEED:PORT]
        [--deadline-ms N]
        [--store-timeout-ms 250] [--mode good|two-calls|no-timeout|resend-on-noscript]

Modes (the faults the harness must catch):
  good                one EVALSHA per attempt (record | record_reserve | reserve),
                      NOSCRIPT -> that one command again as EVAL, 250 ms timeout
  two-calls           a first attempt's record and the retry's reserve as two
                      calls (~1.9 commands per attempt)
  no-timeout          store calls wait as long as Redis does (a hung Redis
                      stalls deliveries)
  resend-on-noscript  on NOSCRIPT re-send a first attempt's record as well, with
                      whatever call met it (a double count, like a re-sent
                      pipeline; every NOSCRIPT double counts, so a flush
                      that reaches the replica is always caught)

Prints one JSON line on stdout; exit 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

SCRIPT = (Path(__file__).resolve().parents[2] / "fleet" / "budget.lua").read_text()
SHA = hashlib.sha1(SCRIPT.encode()).hexdigest()
REASONS = ("delivered", "max_attempts_exhausted", "retry_budget_exhausted", "budget_unavailable",
           "terminal_response", "retry_window_elapsed")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def store_key(endpoint_id: str, window_ms: int) -> str:
    return "rb:{e" + endpoint_id.encode().hex() + "}:" + str(window_ms)


class Http:
    """One keep-alive HTTP/1.1 connection (loopback)."""

    def __init__(self, url: str) -> None:
        u = urlparse(url)
        self.host, self.port, self.path = u.hostname, u.port, u.path or "/"
        self.r = self.w = None

    async def post(self, event_id: str, attempt: int) -> int:
        for _ in range(2):
            try:
                if self.w is None:
                    self.r, self.w = await asyncio.open_connection(self.host, self.port)
                body = b'{"event":"%s"}' % event_id.encode()
                self.w.write(f"POST {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                             f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                             f"X-Attempt: {attempt}\r\nX-Event-Id: {event_id}\r\n\r\n".encode() + body)
                await self.w.drain()
                head = await asyncio.wait_for(self.r.readuntil(b"\r\n\r\n"), 10)
                lines = head.decode("latin-1").split("\r\n")
                status = int(lines[0].split(" ")[1])
                n = 0
                for l in lines[1:]:
                    if l.lower().startswith("content-length:"):
                        n = int(l.split(":", 1)[1])
                if n:
                    await self.r.readexactly(n)
                return status
            except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError, IndexError):
                if self.w is not None:
                    self.w.close()
                self.r = self.w = None
        return 0  # transport error: retryable


class Store:
    def __init__(self, url: str, timeout_s: float | None, mode: str, cluster: bool = False) -> None:
        import redis.asyncio as aioredis

        if cluster:  # routes each EVALSHA to the master owning its one key's slot
            from redis.asyncio.cluster import RedisCluster

            self.client = RedisCluster.from_url(url, socket_timeout=None, socket_connect_timeout=timeout_s or 5)
        else:
            self.client = aioredis.from_url(url, socket_timeout=None, socket_connect_timeout=timeout_s or 5,
                                            retry_on_timeout=False, max_connections=64)
        self.timeout_s = timeout_s
        self.mode = mode
        self.calls = 0

    async def _one(self, key: str, argv: list[str], also: list[list[str]] = ()) -> list[int]:
        import redis

        self.calls += 1
        try:
            return await self.client.evalsha(SHA, 1, key, *argv)
        except redis.exceptions.NoScriptError:
            self.calls += 1
            # Nothing ran: that one command again, with the script (a wrong
            # host also re-sends the calls before it: `also`).
            for a in also:
                self.calls += 1
                await self.client.eval(SCRIPT, 1, key, *a)
            return await self.client.eval(SCRIPT, 1, key, *argv)

    async def call(self, key: str, argv: list[str], also: list[list[str]] = ()):
        """The reply, or None (error, timeout: unavailable)."""
        try:
            if self.timeout_s is None:
                return await self._one(key, argv, also)
            return await asyncio.wait_for(self._one(key, argv, also), self.timeout_s)
        except Exception as e:  # noqa: BLE001 - every failure is `unavailable`
            print(f"reference: store call failed: {e.__class__.__name__}: {e}", file=sys.stderr)
            return None


async def run(a: argparse.Namespace) -> dict:
    doc = json.loads(Path(a.policy).read_text())["classes"]["storm"]
    window, hard_cap, bo, budget = doc["window_ms"], doc["hard_cap"], doc["backoff"], doc["budget"]
    url = a.redis_cluster or a.redis
    timeout_s = None if a.mode == "no-timeout" else a.store_timeout_ms / 1000
    store = Store(url, timeout_s, a.mode, cluster=bool(a.redis_cluster)) if url else None
    key = store_key(a.endpoint_id, budget["window_ms"])
    if store is not None:
        try:  # load once at start (fleet/README.md); EVALSHA then never misses unless the cache is flushed
            await asyncio.wait_for(store.client.script_load(SCRIPT), 2)
        except Exception as e:  # noqa: BLE001
            print(f"reference: SCRIPT LOAD failed ({e}); the first EVALSHA will fall back to EVAL", file=sys.stderr)
    reasons = {r: 0 for r in REASONS}
    counts = {"first": 0, "retries": 0, "events": 0}
    local: dict[int, list[int]] = {}  # in-memory budget without --redis: bucket -> [t, r]
    start = now_ms()
    next_i = 0

    def argv(op: str, t: int) -> list[str]:
        return [op, str(t // budget["window_ms"]), str(budget["window_ms"]), str(t), repr(float(budget["ratio"])),
                str(budget["min_sample"]), "1" if budget["sliding"] else "0", "0"]

    def local_apply(op: str, t: int):
        b = t // budget["window_ms"]
        cur = local.setdefault(b, [0, 0])
        prev = local.get(b - 1, [0, 0])
        if op != "reserve":
            cur[0] += 1
        w = (budget["window_ms"] - t % budget["window_ms"]) / budget["window_ms"] if budget["sliding"] else 0.0
        et, er = cur[0] + prev[0] * w, cur[1] + prev[1] * w
        ok = op != "record" and (et < budget["min_sample"] or er + 1.0 <= budget["ratio"] * (et + 1.0))
        if ok:
            cur[0] += 1
            cur[1] += 1
        return [int(ok), cur[0], cur[1], prev[0], prev[1]]

    async def store_call(op: str, t: int, also=()):
        if store is None:
            return local_apply(op, t)
        if a.mode == "resend-on-noscript":
            also = ("record",)
        return await store.call(key, argv(op, t), [argv(x, t) for x in also])

    async def event(http: Http, eid: str) -> str:
        first_at = now_ms()
        attempt = 1
        counts["first"] += 1
        while True:
            status = await http.post(eid, attempt)
            t = now_ms()
            elapsed = max(t - first_at, 0)
            if 200 <= status < 300:
                stop = "delivered"
            elif status and status not in (408, 429) and status < 500:
                stop = "terminal_response"
            elif attempt >= hard_cap:
                stop = "max_attempts_exhausted"
            elif elapsed >= window:
                stop = "retry_window_elapsed"
            else:
                delay = random.randint(0, min(bo["cap_ms"], int(bo["base_ms"] * bo["factor"] ** (attempt - 1))))
                if elapsed + delay > window:
                    stop = "retry_window_elapsed"
                else:
                    stop = None
            if stop is not None:
                if attempt == 1:
                    await store_call("record", t)  # a failed record never stops the delivery
                return stop
            if attempt == 1 and a.mode == "two-calls":
                await store_call("record", t)
                reply = await store_call("reserve", t)
            elif attempt == 1:
                reply = await store_call("record_reserve", t)
            else:
                reply = await store_call("reserve", t)
            if reply is None:
                return "budget_unavailable"
            if not int(reply[0]):
                return "retry_budget_exhausted"
            await asyncio.sleep(delay / 1000)
            attempt += 1
            counts["retries"] += 1

    async def worker() -> None:
        nonlocal next_i
        http = Http(a.target)
        while next_i < a.events and (a.deadline_ms is None or now_ms() - start < a.deadline_ms):
            i = next_i
            next_i += 1
            counts["events"] += 1
            reasons[await event(http, f"reference-{a.endpoint_id}-{i}")] += 1

    await asyncio.gather(*(worker() for _ in range(a.concurrency)))
    if store is not None:
        await store.client.aclose()
    return {"host": "reference", "mode": a.mode, "events": counts["events"],
            "attempts": counts["first"] + counts["retries"], "first_attempts": counts["first"],
            "retries": counts["retries"], "stop_reasons": reasons, "pending": 0,
            "redis_round_trips": store.calls if store else 0, "elapsed_ms": now_ms() - start}


def main() -> int:
    p = argparse.ArgumentParser(prog="reference_replica.py")
    p.add_argument("--target", required=True)
    p.add_argument("--endpoint-id", required=True)
    p.add_argument("--events", type=int, required=True)
    p.add_argument("--policy", required=True)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--redis")
    p.add_argument("--redis-cluster", help="a seed node of a Redis Cluster (cluster-mode client)")
    p.add_argument("--deadline-ms", type=int)
    p.add_argument("--store-timeout-ms", type=int, default=250)
    p.add_argument("--mode", choices=("good", "two-calls", "no-timeout", "resend-on-noscript"), default="good")
    try:
        a = p.parse_args()
    except SystemExit as e:
        return 2 if e.code else 0
    print(json.dumps(asyncio.run(run(a))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
