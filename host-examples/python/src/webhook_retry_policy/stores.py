"""Budget stores: answer the ONE store request of a delivery step
(``record`` / ``reserve`` / ``record_reserve``, SPEC "The store protocol").

A store answers with a :class:`Reservation` or raises (unreachable,
timeout, anything): the step then settles ``Unavailable()`` and a pending
retry stops ``budget_unavailable`` (fails closed). A store never judges a
budget itself unless it is the shared Redis script (``redis_store.py``);
the in-memory stores apply each request with the component's
``store-apply`` under a lock.
"""

from __future__ import annotations

import threading
from typing import Protocol

from .instance import current
from .types import Applied, BucketCounts, Budget, HeldBuckets, Reservation, StoreRequest

_ZERO = BucketCounts(0, 0)
_EMPTY = HeldBuckets(0, _ZERO, _ZERO)


class BudgetStore(Protocol):
    def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        """Answer ``request`` atomically; raise if the store is unreachable."""
        ...


class AsyncBudgetStore(Protocol):
    async def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation: ...


class InMemoryBudgetStore:
    """Thread-safe, process-local: per (endpoint, width) the two newest
    buckets, updated by the component's ``store-apply`` under one lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[tuple[str, int], HeldBuckets] = {}

    def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        key = (request.endpoint_id, request.window_ms)
        with self._lock:
            applied: Applied = current().run("store-apply", request, budget, now_ms, self._held.get(key, _EMPTY))
            self._held[key] = applied.held
        return applied.reply

    def held(self, endpoint_id: str, window_ms: int) -> HeldBuckets:
        with self._lock:
            return self._held.get((endpoint_id, window_ms), _EMPTY)


class AsyncInMemoryBudgetStore:
    """The in-memory store behind the async interface (never blocks)."""

    def __init__(self, inner: InMemoryBudgetStore | None = None) -> None:
        self.inner = inner or InMemoryBudgetStore()

    async def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        return self.inner.call(request, budget, now_ms)


class UnavailableBudgetStore:
    """A store that is always down (tests; the fail-closed path)."""

    def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        raise ConnectionError("budget store unavailable")
