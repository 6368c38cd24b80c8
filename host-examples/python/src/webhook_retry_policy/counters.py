"""Budget counters (WIT import ``budget-counter``): per-endpoint attempt
counts in buckets of ``window_ms``.

Sync counters back the WIT ``decide`` (the component calls them during the
decision). Async counters back :class:`AsyncRetryPolicy`, which reads them
before calling the pure ``decide-with``. A counter signals "store
unreachable" by raising any exception: the policy then stops the event
``budget_unavailable`` (fails closed), it never crashes.

The in-memory counters are process-local: a fleet of replicas must share
one store (see ``redis_counter.py``).
"""

from __future__ import annotations

import threading
from typing import Protocol

from .types import BucketCounts, BudgetCounts


def budget_bucket(window_ms: int, now_ms: int) -> int:
    """SPEC "Retry budget": the bucket of ``now_ms`` is
    ``floor(now_ms / window_ms)``. The WIT exports no function for it, yet a
    host must count first attempts itself (``record-attempt``) and read the
    counts before ``decide-with``; this is the one place the package uses
    the formula (no decision depends on it)."""
    if window_ms <= 0:
        raise ValueError("budget window_ms must be at least 1")
    return now_ms // window_ms


class BudgetCounter(Protocol):
    def read(self, endpoint_id: str, window_ms: int, bucket: int) -> BudgetCounts:
        """Counts of ``bucket`` and ``bucket - 1``; raise if unreadable."""
        ...

    def record_attempt(self, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> None:
        """Count one attempt (and one retry if ``is_retry``); raise on failure."""
        ...


class AsyncBudgetCounter(Protocol):
    async def read(self, endpoint_id: str, window_ms: int, bucket: int) -> BudgetCounts: ...

    async def record_attempt(self, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> None: ...


class InMemoryBudgetCounter:
    """Thread-safe process-local counter. Each endpoint keeps only its two
    newest buckets (per window width), so memory is bounded by the number
    of endpoints."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # (endpoint_id, window_ms) -> {bucket: [total, retries]}
        self._buckets: dict[tuple[str, int], dict[int, list[int]]] = {}

    def read(self, endpoint_id: str, window_ms: int, bucket: int) -> BudgetCounts:
        with self._lock:
            b = self._buckets.get((endpoint_id, window_ms), {})
            cur = b.get(bucket, (0, 0))
            prev = b.get(bucket - 1, (0, 0))
            return BudgetCounts(BucketCounts(cur[0], cur[1]), BucketCounts(prev[0], prev[1]))

    def record_attempt(self, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> None:
        with self._lock:
            b = self._buckets.setdefault((endpoint_id, window_ms), {})
            slot = b.setdefault(bucket, [0, 0])
            slot[0] += 1
            slot[1] += 1 if is_retry else 0
            if len(b) > 2:
                for old in sorted(b)[:-2]:
                    del b[old]


class AsyncInMemoryBudgetCounter:
    """The in-memory counter behind an async interface (never blocks)."""

    def __init__(self, inner: InMemoryBudgetCounter | None = None) -> None:
        self.inner = inner or InMemoryBudgetCounter()

    async def read(self, endpoint_id: str, window_ms: int, bucket: int) -> BudgetCounts:
        return self.inner.read(endpoint_id, window_ms, bucket)

    async def record_attempt(self, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> None:
        self.inner.record_attempt(endpoint_id, window_ms, bucket, is_retry)


class UnavailableBudgetCounter:
    """A store that is always down (tests, and the fail-closed default)."""

    def read(self, endpoint_id: str, window_ms: int, bucket: int) -> BudgetCounts:
        raise ConnectionError("budget store unavailable")

    def record_attempt(self, endpoint_id: str, window_ms: int, bucket: int, is_retry: bool) -> None:
        raise ConnectionError("budget store unavailable")
