"""The policy for asyncio dispatchers whose budget store is async.

The WIT ``decide`` calls the budget counter synchronously from inside the
component, which would block the event loop on a network store. Here the
pure ``decide-with`` is used instead, and the store is awaited outside it:

1. ``decide-with`` with no counts (``None`` = store not read). The contract
   makes that ``budget_unavailable`` exactly when every other gate wants a
   retry and only the budget remains; any other result is final, and the
   store is never touched (the design note: the budget is the only gate
   that costs a round trip, so it goes last).
2. Only then: await the counts of the current bucket (and the previous,
   the counter's job), and call ``decide-with`` again with them.
3. A retry is recorded (reserved) in the store, as the WIT ``decide`` does.
   A counter with ``reserve`` (the Redis one) does 2 and 3 in one atomic
   round trip and returns the counts it judged (fleet/README.md).
   A store that fails or times out on read or record leaves the decision
   of step 1, ``budget_unavailable``: the budget fails closed.

Each ``decide-with`` runs on the fast path by default (a few µs; the
component API costs about a millisecond per call in wasmtime-py), so the
loop is never blocked for long; both give identical decisions.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Optional, Protocol

from .clock import Clock, SystemClock
from .counters import AsyncBudgetCounter, AsyncInMemoryBudgetCounter, budget_bucket
from .policy import RetryPolicy
from .types import AttemptOutcome, Budget, BudgetCounts, Decision, DeliveryState, Policy, Retry, Stop, StopReason

log = logging.getLogger(__name__)


class PureDecider(Protocol):
    def decide_with(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int,
        budget_counts: Optional[BudgetCounts],
    ) -> Decision: ...


class AsyncRetryPolicy:
    """``await decide(...)`` with an async budget store."""

    def __init__(
        self,
        counter: Optional[AsyncBudgetCounter] = None,
        clock: Optional[Clock] = None,
        *,
        decider: Optional[PureDecider] = None,
        store_timeout_s: Optional[float] = 1.0,
        wasm_path: Optional[str] = None,
    ) -> None:
        self.counter: AsyncBudgetCounter = counter if counter is not None else AsyncInMemoryBudgetCounter()
        self.clock: Clock = clock or SystemClock()
        self.store_timeout_s = store_timeout_s
        # The sync API (documents, admission, plan ...) on the same clock.
        self.sync = RetryPolicy(self.clock, wasm_path=wasm_path)
        if decider is None:
            from .fastpath import FastDecider

            decider = FastDecider(wasm_path)
        self.decider: PureDecider = decider

    async def _store(self, awaitable):  # type: ignore[no-untyped-def]
        if self.store_timeout_s is None:
            return await awaitable
        return await asyncio.wait_for(awaitable, self.store_timeout_s)

    async def decide(self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome) -> Decision:
        now_ms = self.clock.now_ms()
        without_counts = self.decider.decide_with(policy, state, outcome, now_ms, None)
        if not (isinstance(without_counts, Stop) and without_counts.reason is StopReason.BUDGET_UNAVAILABLE):
            return without_counts
        window_ms = policy.budget.window_ms
        bucket = budget_bucket(window_ms, now_ms)
        if callable(getattr(self.counter, "reserve", None)):
            return await self._decide_reserving(policy, state, outcome, now_ms, bucket, without_counts)
        try:
            counts = await self._store(self.counter.read(state.endpoint_id, window_ms, bucket))
        except Exception:
            return without_counts
        if not isinstance(counts, BudgetCounts):
            return without_counts
        decision = self.decider.decide_with(policy, state, outcome, now_ms, counts)
        if isinstance(decision, Retry):
            try:
                await self._store(self.counter.record_attempt(state.endpoint_id, window_ms, bucket, True))
            except Exception:
                return without_counts
        return decision

    async def _decide_reserving(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int, bucket: int,
        without_counts: Decision,
    ) -> Decision:
        """One round trip: the store checks and counts the retry atomically
        (fleet/budget.lua ``reserve``) and returns the counts it judged."""
        try:
            counts, reserved = await self._store(
                self.counter.reserve(state.endpoint_id, policy.budget, now_ms, bucket)  # type: ignore[attr-defined]
            )
        except Exception:
            return without_counts
        decision = self.decider.decide_with(policy, state, outcome, now_ms, counts)
        if isinstance(decision, Retry) and not reserved:
            # The store and the component disagree (they never should: the
            # fleet tests prove the script's rule). The component decides;
            # keep the count honest, or fail closed if that is impossible.
            log.warning("budget store refused a retry the policy allows (%s); recording it", state.endpoint_id)
            try:
                await self._store(self.counter.record_attempt(state.endpoint_id, policy.budget.window_ms, bucket, True))
            except Exception:
                return without_counts
        elif reserved and not isinstance(decision, Retry):
            log.warning("budget store reserved a retry the policy refuses (%s); over-counted by one", state.endpoint_id)
        return decision

    async def record_first_attempt(self, endpoint_id: str, budget: Budget, now_ms: Optional[int] = None) -> None:
        """Count a first attempt (hosts count first attempts themselves)."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        await self._store(
            self.counter.record_attempt(endpoint_id, budget.window_ms, budget_bucket(budget.window_ms, now), False)
        )
