"""The delivery step for asyncio dispatchers whose budget store is async.

Same flow as :meth:`RetryPolicy.step`, on the policy compiled once:
``advance`` (a few µs, never awaits) decides, or names the ONE awaited
``store.call`` (with a timeout) before ``finish``. Each component call
finds its handle on the instance it runs on, so an artifact swap while the
store is awaited compiles anew on the new instance.
A store error, a timeout or a reply that is not a ``Reservation`` settles
``Unavailable()`` (fails closed). The pure operations (documents,
admission, resume, Retry-After ...) are inherited from :class:`PolicyOps`.
"""

from __future__ import annotations

import asyncio

from .clock import Clock
from .ops import PolicyOps, logger
from .policy import UNAVAILABLE
from .redact import redact
from .stores import AsyncBudgetStore, AsyncInMemoryBudgetStore, request_of
from .types import AttemptOutcome, Decided, Decision, DeliveryState, Policy, Reservation, StoreCall, StoreReply


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
        """``advance`` -> (decided: done, after its ``record`` call if any) or
        ONE awaited ``store.call`` -> ``finish``."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        compiled = self.compiled(policy)
        advanced = compiled.advance(state, outcome, now)
        if isinstance(advanced, Decided):
            if advanced.call is not None:
                await self._call(advanced.call, policy, now)  # a decided first attempt: recorded (or not), decided anyway
            return advanced.decision
        reply = await self._call(advanced, policy, now)
        return self._finished(compiled.finish(state, outcome, now, reply), state)

    async def _call(self, store_call: StoreCall, policy: Policy, now_ms: int) -> StoreReply:
        try:  # policy.budget is the call's budget (format 2), and its image is cached by the glue
            keyed = getattr(self.store, "call_keyed", None)  # a store that takes the call's key (Redis)
            call = (keyed(store_call.key, request_of(store_call), policy.budget, now_ms) if keyed is not None
                    else self.store.call(request_of(store_call), policy.budget, now_ms))
            answer = await (call if self.store_timeout_s is None else asyncio.wait_for(call, self.store_timeout_s))
            return answer if isinstance(answer, Reservation) else UNAVAILABLE
        except asyncio.CancelledError:
            raise
        except Exception as e:  # any store failure or timeout fails closed
            logger().debug("budget store call failed: %s", redact(repr(e)))
            return UNAVAILABLE

    async def step_evaluated(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int | None = None
    ) -> Decision:
        """The 0.2 step: ``evaluate`` -> at most ONE awaited ``store.call`` -> ``settle``."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        step = self.evaluate(policy, state, outcome, now)
        request = step.store
        if request is None:
            if step.decision is not None:
                return step.decision
            # Neither a decision nor a request never comes from a conforming
            # artifact; like every host, settle it as a failed store call (the
            # component decides, failing closed: docs/contract.md).
            return self._settled(self.settle(policy, state, outcome, now, UNAVAILABLE), state)
        try:
            call = self.store.call(request, policy.budget, now)
            answer = await (call if self.store_timeout_s is None else asyncio.wait_for(call, self.store_timeout_s))
            reply: StoreReply = answer if isinstance(answer, Reservation) else UNAVAILABLE
        except asyncio.CancelledError:
            raise
        except Exception as e:  # any store failure or timeout fails closed
            logger().debug("budget store call failed: %s", redact(repr(e)))
            reply = UNAVAILABLE
        if step.decision is not None:
            return step.decision
        return self._settled(self.settle(policy, state, outcome, now, reply), state)
