"""The attempt and the budget store call, measured for docs/metrics.md and
counted for the replica's summary:

* :func:`metered_attempt`: one HTTP attempt (:func:`transport.attempt`)
  inside ``webhook_in_flight``, timed into
  ``webhook_delivery_duration_seconds`` (a ``destination_refused`` attempt,
  which sent nothing, is not observed), its transport error counted by kind
  and a 410 as ``webhook_endpoint_disable_signals_total``.
* :class:`MeteredStore`: any async budget store, each call timed into
  ``webhook_budget_store_duration_seconds`` (errors included); a failed or
  timed-out call counted (``webhook_budget_store_errors_total`` and
  :attr:`MeteredStore.errors`) and re-raised, so the step still fails
  closed; a retry the store refused counted as a budget refusal.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from ..stores import AsyncBudgetStore
from ..transport_kinds import TransportKind
from ..types import (
    AttemptOutcome,
    Budget,
    CallOp,
    CallReply,
    Reservation,
    StoreCall,
    StoreOp,
    StoreRequest,
    TransportError,
)
from .metrics import DispatcherMetrics
from .transport import attempt


async def metered_attempt(metrics: DispatcherMetrics, client: httpx.AsyncClient, url: str, **kwargs: Any) -> AttemptOutcome:
    """:func:`transport.attempt` with the in-flight gauge, the latency and the
    outcome's counters (exceptions such as ``WindowElapsed`` pass through
    unobserved)."""
    metrics.in_flight.inc()
    started = time.perf_counter()
    try:
        outcome = await attempt(client, url, **kwargs)
    finally:
        metrics.in_flight.dec()
    if not (isinstance(outcome, TransportError) and outcome.kind == TransportKind.DESTINATION_REFUSED):
        metrics.delivery_duration.observe(time.perf_counter() - started)
    metrics.outcome(outcome)
    return outcome


class MeteredStore:
    """An :class:`AsyncBudgetStore` that measures and counts each call of ``inner``."""

    def __init__(self, inner: AsyncBudgetStore, metrics: DispatcherMetrics) -> None:
        self.inner = inner
        self.metrics = metrics
        self.errors = 0

    async def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        return await self.call_keyed(None, request, budget, now_ms)

    async def call_keyed(self, key: str | None, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        """``call``, handing the compiled step's key on to an inner store that takes it."""
        keyed = getattr(self.inner, "call_keyed", None) if key is not None else None
        started = time.perf_counter()
        try:
            reply = await (keyed(key, request, budget, now_ms) if keyed is not None
                           else self.inner.call(request, budget, now_ms))
        except Exception:  # the inner store bounds its call: a timeout is an exception here
            self.metrics.budget_store_duration.observe(time.perf_counter() - started)
            self._failed()
            raise
        self.metrics.budget_store_duration.observe(time.perf_counter() - started)
        if request.op is not StoreOp.RECORD and isinstance(reply, Reservation) and not reply.reserved:
            self.metrics.budget_refusals.inc()
        return reply

    async def store_call(self, call: StoreCall, now_ms: int) -> CallReply:
        """A whole ``StoreCall`` (the format-3 send loop's), measured and counted as ``call``."""
        started = time.perf_counter()
        try:
            reply: CallReply = await self.inner.store_call(call, now_ms)  # type: ignore[attr-defined]
        except Exception:
            self.metrics.budget_store_duration.observe(time.perf_counter() - started)
            self._failed()
            raise
        self.metrics.budget_store_duration.observe(time.perf_counter() - started)
        res = reply.reservation
        if call.op in (CallOp.RESERVE, CallOp.RECORD_RESERVE) and res is not None and not res.reserved:
            self.metrics.budget_refusals.inc()
        return reply

    def _failed(self) -> None:
        self.errors += 1
        self.metrics.budget_store_errors.inc()
