"""The typed synchronous API: every WIT export (``ops.py``), ``step`` and ``decide``.

* ``step`` is the delivery step on an injected :class:`BudgetStore`:
  ``evaluate`` (gates 1-5, and the one store request the attempt needs),
  at most ONE ``store.call(request, budget, now_ms)``, then ``settle``.
  A decided first attempt is only recorded (its decision stands, and a
  failed ``record`` changes nothing); a decided retry calls no store. The
  async variant (``async_policy.py``) awaits the store.
* ``decide`` is the same step as ONE call into the component, which asks
  the host's clock and store once through the WIT imports (``clock.now-ms``,
  ``budget-store.call``): for a store that answers synchronously.

Either way any exception from the store, or a reply that is not a
``Reservation``, is ``Unavailable()``: the budget fails closed. The clock
is read once.
"""

from __future__ import annotations

from . import instance
from .clock import Clock
from .ops import UNAVAILABLE, PolicyOps, logger
from .stores import BudgetStore, InMemoryBudgetStore
from .types import AttemptOutcome, Decision, DeliveryState, Policy, Reservation, StoreReply


class RetryPolicy(PolicyOps):
    """The policy with a clock (default: system) and a budget store
    (default: a process-local :class:`InMemoryBudgetStore`)."""

    def __init__(self, clock: Clock | None = None, store: BudgetStore | None = None) -> None:
        super().__init__(clock)
        self.store: BudgetStore = store if store is not None else InMemoryBudgetStore()

    def decide(self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome) -> Decision:
        """The whole step in ONE component call; the component reads this
        policy's clock once and calls its store at most once (a store that
        raises or answers anything but a ``Reservation`` fails closed)."""
        d: Decision = instance.decide(self.clock, self.store, policy, state, outcome)
        return d

    def step(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int | None = None
    ) -> Decision:
        """``evaluate`` -> at most ONE ``store.call`` -> ``settle``."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        step = self.evaluate(policy, state, outcome, now)
        reply: StoreReply = UNAVAILABLE
        if step.store is not None:
            try:
                answer = self.store.call(step.store, policy.budget, now)
                reply = answer if isinstance(answer, Reservation) else UNAVAILABLE
            except Exception as e:  # any store failure fails closed
                logger().debug("budget store call failed: %r", e)
        return self._settled(policy, state, outcome, now, step, reply)
