"""Budget stores: answer the ONE store request of a delivery step
(``record`` / ``reserve`` / ``record_reserve``, SPEC "The store protocol").

A store answers with a :class:`Reservation` or raises (unreachable,
timeout, anything): the step then settles ``Unavailable()`` and a pending
retry stops ``budget_unavailable`` (fails closed). A store never judges a
budget itself unless it is the shared Redis script (``redis_store.py``);
the in-memory stores apply each request with the component's
``store-apply`` under a lock.

ABI 0.3's steps (``compiled.py``) name a complete ``StoreCall``; for a
format-2 policy it maps 1:1 onto the request above (:func:`request_of`:
op, endpoint, ``window_ms = budget.window_ms``, bucket), so these stores and
the Redis script answer it unchanged. :class:`InMemoryCallStore` answers
any ``StoreCall`` (format 3 too) with the component's ``apply-call``.
"""

from __future__ import annotations

import threading
from typing import Protocol

from ._generated import abi
from .errors import PolicyError
from .instance import current
from .types import (
    Applied,
    BucketCounts,
    Budget,
    CallApplied,
    CallOp,
    CallReply,
    FailureBuckets,
    HealthState,
    HeldBuckets,
    HeldHealth,
    Reservation,
    StoreCall,
    StoreOp,
    StoreRequest,
)

_ZERO = BucketCounts(0, 0)
_EMPTY = HeldBuckets(0, _ZERO, _ZERO)
_EMPTY_HEALTH = HeldHealth(_EMPTY, HealthState(FailureBuckets(0, 0, 0), 0, 0, 0, 0, 0, 0))
_OPS = {CallOp.RECORD: StoreOp.RECORD, CallOp.RESERVE: StoreOp.RESERVE, CallOp.RECORD_RESERVE: StoreOp.RECORD_RESERVE}


def request_of(call: StoreCall) -> StoreRequest:
    """A format-2 ``StoreCall`` as the store request a :class:`BudgetStore`
    answers (``invalid_input`` for a format-3 call: it needs a call store)."""
    if call.__class__ is not StoreCall:
        raise PolicyError("invalid_input", "call", f"expected a StoreCall, got {type(call).__name__}")
    op = _OPS.get(call.op)
    if op is None or call.health is not None:
        raise PolicyError("invalid_input", "call", f"a `{call.op.value}` call with health fields needs a format-3 store")
    # the call's values were checked when built (by the constructor, or by the ABI when lifted): not again
    return abi._mk_store_request(op, call.endpoint_id, call.budget.window_ms, call.bucket)


class BudgetStore(Protocol):
    def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        """Answer ``request`` atomically; raise if the store is unreachable."""
        ...


# A store may also offer ``call_keyed(key, request, budget, now_ms)``: the
# compiled step then hands it the key its store call names (the Redis stores:
# no ``store-key`` component call per request). ``key`` None: compute it.


class AsyncBudgetStore(Protocol):
    async def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation: ...


class AsyncCallStore(Protocol):
    """A store answering whole ABI 0.3 ``StoreCall`` s (formats 2 and 3): the format-3 send loop's."""

    async def store_call(self, call: StoreCall, now_ms: int) -> CallReply: ...


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
    """The in-memory store behind the async interface (never blocks).
    ``store_call`` answers a whole ``StoreCall`` (formats 2 and 3) from its
    own :class:`InMemoryCallStore` (``apply-call`` per call key)."""

    def __init__(self, inner: InMemoryBudgetStore | None = None, calls: InMemoryCallStore | None = None) -> None:
        self.inner = inner or InMemoryBudgetStore()
        self.calls = calls or InMemoryCallStore()

    async def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        return self.inner.call(request, budget, now_ms)

    async def store_call(self, call: StoreCall, now_ms: int) -> CallReply:
        return self.calls.call(call, now_ms)


class UnavailableBudgetStore:
    """A store that is always down (tests; the fail-closed path)."""

    def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        raise ConnectionError("budget store unavailable")


class InMemoryCallStore:
    """Thread-safe, process-local answers to ABI 0.3 ``StoreCall``s (formats
    2 and 3): per call key what the store holds (budget buckets and the
    endpoint's health), updated by the component's ``apply-call`` under one
    lock, the Redis script's rule."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, HeldHealth] = {}

    def call(self, call: StoreCall, now_ms: int) -> CallReply:
        with self._lock:
            applied: CallApplied = current().run("apply-call", call, now_ms, self._held.get(call.key, _EMPTY_HEALTH))
            self._held[call.key] = applied.held
        return applied.reply

    def held(self, key: str) -> HeldHealth:
        with self._lock:
            return self._held.get(key, _EMPTY_HEALTH)
