"""The delivery step for asyncio dispatchers whose budget store is async.

Same flow as :meth:`RetryPolicy.step`: ``evaluate`` (a few µs, never
awaits) decides, or names the ONE awaited ``store.call`` (with a timeout)
before ``settle``. A store error, a timeout or a reply that is not a
``Reservation`` settles ``Unavailable()`` (fails closed). The pure
operations (documents, admission, Retry-After ...) are inherited from
:class:`PolicyOps`.
"""

from __future__ import annotations

import asyncio

from .clock import Clock
from .ops import UNAVAILABLE, PolicyOps, logger
from .redact import redact
from .stores import AsyncBudgetStore, AsyncInMemoryBudgetStore
from .types import AttemptOutcome, Decision, DeliveryState, Policy, Reservation, StoreReply


class AsyncRetryPolicy(PolicyOps):
    """``await step(...)`` with an async budget store (the imports-driven
    ``decide`` needs a store that answers synchronously: :class:`RetryPolicy`)."""

    def __init__(
        self, store: AsyncBudgetStore | None = None, clock: Clock | None = None, *,
        store_timeout_s: float | None = 0.25,
    ) -> None:
        super().__init__(clock)
        self.store: AsyncBudgetStore = store if store is not None else AsyncInMemoryBudgetStore()
        self.store_timeout_s = store_timeout_s

    async def step(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int | None = None
    ) -> Decision:
        """``evaluate`` -> at most ONE awaited ``store.call`` -> ``settle``."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        step = self.evaluate(policy, state, outcome, now)
        reply: StoreReply = UNAVAILABLE
        if step.store is not None:
            try:
                call = self.store.call(step.store, policy.budget, now)
                answer = await (call if self.store_timeout_s is None else asyncio.wait_for(call, self.store_timeout_s))
                reply = answer if isinstance(answer, Reservation) else UNAVAILABLE
            except asyncio.CancelledError:
                raise
            except Exception as e:  # any store failure or timeout fails closed
                logger().debug("budget store call failed: %s", redact(repr(e)))
        return self._settled(policy, state, outcome, now, step, reply)
