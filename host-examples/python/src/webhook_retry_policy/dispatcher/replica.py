"""The Python replica for the fleet tests (the REPLICA contract of the
helper brief): ``host-examples/python/replica`` runs
``python -m webhook_retry_policy.dispatcher.replica``.

It delivers ``--events`` events (ids ``python-<pid>-<i>``) to ``--target``
with httpx, ``--concurrency`` at a time, each through the policy of class
``storm`` of ``--policy`` until the policy stops it, sleeping the decided
delay between attempts. Every decision is the component's
(:class:`AsyncRetryPolicy`): the first attempt of each event is counted in
the budget (``record``); after a failed attempt the pure ``decide-with``
runs without counts, and only when the budget is the last gate left the
Redis counter ``reserve``s the retry in one round trip and ``decide-with``
runs again with the counts it judged (fleet/README.md). A Redis error or
timeout there is ``budget_unavailable`` (fail closed); the client
reconnects on the next call, so reserves work again once Redis is back.

At the end it prints exactly one JSON line on stdout (everything else goes
to stderr). Exit 0, or 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

import httpx

from ..async_policy import AsyncRetryPolicy
from ..counters import AsyncInMemoryBudgetCounter
from ..errors import PolicyError
from ..types import DeliveryState, Policy, Retry, Stop, StopReason
from .transport import outcome_from_exception, outcome_from_response

HOST = "python"
EVENT_CLASS = "storm"
log = logging.getLogger("webhook_retry_policy.replica")


class UsageError(Exception):
    """Bad arguments: reported on stderr, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _whole(name: str, minimum: int):  # type: ignore[no-untyped-def]
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be at least {minimum}, not {value}")
        return value

    return parse


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = _Parser(prog="replica", description="One Python dispatcher replica for the fleet tests (REPLICA contract).")
    p.add_argument("--target", required=True, metavar="URL", help="deliver every event to this URL (POST)")
    p.add_argument("--endpoint-id", required=True, metavar="ID", help="the budget key (endpoint id) for that URL")
    p.add_argument("--events", required=True, type=_whole("--events", 0), metavar="N", help="first attempts to make")
    p.add_argument("--concurrency", type=_whole("--concurrency", 1), default=8, metavar="C",
                   help="in-flight deliveries (default 8)")
    p.add_argument("--policy", required=True, metavar="FILE", help=f"JSON policy document (class {EVENT_CLASS!r})")
    p.add_argument("--redis", metavar="URL", help="redis://host:port/db (absent: in-memory counter)")
    p.add_argument("--deadline-ms", type=_whole("--deadline-ms", 0), metavar="N",
                   help="stop starting new events after N ms (default: none)")
    a = p.parse_args(list(argv))
    if not a.target.startswith(("http://", "https://")):
        raise UsageError(f"--target must be an http:// or https:// URL, not {a.target!r}")
    if not a.endpoint_id:
        raise UsageError("--endpoint-id must not be empty")
    if a.redis is not None and not a.redis.startswith(("redis://", "rediss://", "unix://")):
        raise UsageError(f"--redis must be a redis://host:port/db URL, not {a.redis!r}")
    return a


class CountingCounter:
    """Wraps an async budget counter and counts the calls made to it (each
    is one Redis round trip for the Redis counter)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.round_trips = 0
        if callable(getattr(inner, "reserve", None)):
            self.reserve = self._reserve

    async def read(self, endpoint_id: str, window_ms: int, bucket: int) -> Any:
        self.round_trips += 1
        return await self.inner.read(endpoint_id, window_ms, bucket)

    async def record_attempt(self, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> None:
        self.round_trips += 1
        await self.inner.record_attempt(endpoint_id, window_ms, bucket, is_retry)

    async def _reserve(self, endpoint_id: str, budget: Any, now_ms: int, bucket: int) -> Any:
        self.round_trips += 1
        return await self.inner.reserve(endpoint_id, budget, now_ms, bucket)


def redis_counter(url: str) -> Any:
    """An :class:`AsyncRedisBudgetCounter` on ``url``: short timeouts and no
    client-side retries, so an outage fails closed quickly; the pool
    reconnects on the next call once Redis is back."""
    import redis.asyncio as aioredis
    from redis.asyncio.retry import Retry as RedisRetry
    from redis.backoff import NoBackoff

    from ..redis_counter import AsyncRedisBudgetCounter

    client = aioredis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5,
                               retry=RedisRetry(NoBackoff(), 0))
    return AsyncRedisBudgetCounter(client)


@dataclass
class Tally:
    events: int = 0
    first_attempts: int = 0
    retries: int = 0
    stop_reasons: dict[str, int] = field(default_factory=lambda: {r.value: 0 for r in StopReason})

    def summary(self, round_trips: int, elapsed_ms: int) -> dict[str, Any]:
        return {
            "host": HOST,
            "events": self.events,
            "attempts": self.first_attempts + self.retries,
            "first_attempts": self.first_attempts,
            "retries": self.retries,
            "stop_reasons": dict(self.stop_reasons),
            "redis_round_trips": round_trips,
            "elapsed_ms": elapsed_ms,
        }


class Replica:
    def __init__(self, args: argparse.Namespace, policy: AsyncRetryPolicy, storm: Policy, max_attempts: int,
                 client: httpx.AsyncClient) -> None:
        self.args = args
        self.policy = policy
        self.storm = storm
        self.max_attempts = max_attempts
        self.client = client
        self.tally = Tally()
        self.prefix = f"{HOST}-{os.getpid()}"
        self._next = 0

    def _take(self, deadline_at_ms: Optional[int]) -> Optional[int]:
        """The index of the next event to start, or None (all started, or
        the deadline passed)."""
        if self._next >= self.args.events:
            return None
        if deadline_at_ms is not None and self.policy.clock.now_ms() >= deadline_at_ms:
            return None
        i = self._next
        self._next += 1
        self.tally.events += 1
        return i

    async def run(self) -> None:
        start = self.policy.clock.now_ms()
        deadline_at = None if self.args.deadline_ms is None else start + self.args.deadline_ms

        async def worker() -> None:
            while (i := self._take(deadline_at)) is not None:
                reason = await self.deliver(f"{self.prefix}-{i}")
                self.tally.stop_reasons[reason.value] += 1

        await asyncio.gather(*(worker() for _ in range(self.args.concurrency)))

    async def deliver(self, event_id: str) -> StopReason:
        """One event, attempt after attempt, until the policy stops it."""
        endpoint_id = self.args.endpoint_id
        first_at_ms = self.policy.clock.now_ms()
        try:
            await self.policy.record_first_attempt(endpoint_id, self.storm.budget, first_at_ms)
        except Exception as e:  # the store is asked again (fail closed) at the decision
            log.debug("record of a first attempt failed: %r", e)
        attempt, refreshed = 1, False
        while True:
            if attempt == 1:
                self.tally.first_attempts += 1
            else:
                self.tally.retries += 1
            try:
                response = await self.client.post(
                    self.args.target,
                    json={"event_id": event_id, "class": EVENT_CLASS, "attempt": attempt},
                    headers={"X-Event-Id": event_id, "X-Attempt": str(attempt),
                             "X-First-Attempted-At-Ms": str(first_at_ms)},
                )
                outcome = outcome_from_response(response, self.policy.clock.now_ms())
            except httpx.HTTPError as exc:
                outcome = outcome_from_exception(exc)
            state = DeliveryState(event_id, endpoint_id, attempt, self.max_attempts, first_at_ms, refreshed)
            try:
                decision = await self.policy.decide(self.storm, state, outcome)
            except Exception as e:
                # Never lose an event: a decision that cannot be made is
                # treated like an unreadable budget (stop, fail closed).
                log.error("%s: no decision (%r); stopping it budget_unavailable", event_id, e)
                return StopReason.BUDGET_UNAVAILABLE
            if isinstance(decision, Stop):
                return decision.reason
            assert isinstance(decision, Retry)
            refreshed = refreshed or decision.refresh_credentials
            await asyncio.sleep(decision.delay_ms / 1000)
            attempt += 1


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
    try:
        inner = redis_counter(args.redis) if args.redis is not None else AsyncInMemoryBudgetCounter()
    except (ValueError, ImportError) as e:
        raise UsageError(f"--redis {args.redis}: {e}") from None
    counter = CountingCounter(inner)
    policy = AsyncRetryPolicy(counter, store_timeout_s=1.0)
    try:
        with open(args.policy, encoding="utf-8") as f:
            document = policy.sync.load_document(f.read())
        storm = document.policy(EVENT_CLASS)
        # The class's schedule is the same for every event; admit once for
        # max_attempts, and each event's first-attempt instant is its own.
        max_attempts = policy.sync.admit(document, EVENT_CLASS).schedule.max_attempts
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"--policy {args.policy}: {e}") from None
    except PolicyError as e:
        raise UsageError(f"--policy {args.policy}: {e}") from None
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(5.0)) as client:
        replica = Replica(args, policy, storm, max_attempts, client)
        try:
            await replica.run()
        finally:
            if args.redis is not None:
                try:
                    await inner.client.aclose()
                except Exception:
                    pass
    elapsed_ms = int((time.monotonic() - started) * 1000)
    # Round trips to Redis; the in-memory counter makes none.
    return replica.tally.summary(counter.round_trips if args.redis is not None else 0, elapsed_ms)


def main(argv: Optional[Sequence[str]] = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="replica: %(message)s")
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        summary = asyncio.run(_main(args))
    except UsageError as e:
        print(f"replica: {e}\nusage: replica --target URL --endpoint-id ID --events N --policy FILE "
              "[--concurrency C] [--redis redis://host:port/db] [--deadline-ms N]", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(summary, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
