"""The typed synchronous API: every WIT export (``ops.py``), ``step`` and ``decide``.

* ``step`` is the delivery step on an injected :class:`BudgetStore`,
  through the policy compiled once (ABI 0.3, ``compiled.py``): ``advance``
  decides in ONE component call, or names the store call; then at most ONE
  ``store.call(request, budget, now_ms)`` (the call as a store request,
  ``stores.request_of``) and ``finish``: two component calls. A decided
  first attempt is only recorded (its decision stands, and a failed
  ``record`` changes nothing); a decided retry calls no store. The async
  variant awaits the store. ``step_evaluated`` is the 0.2 path (``evaluate``
  -> store -> ``settle``), kept for comparison (benchmarks).
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
from .ops import PolicyOps, logger
from .stores import BudgetStore, InMemoryBudgetStore, request_of
from .types import AttemptOutcome, Decided, Decision, DeliveryState, Policy, Reservation, StoreCall, StoreReply, Unavailable

UNAVAILABLE = Unavailable()


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
        """``advance`` -> (decided: done, after its ``record`` call if any) or
        ONE ``store.call`` -> ``finish``, on ``policy`` compiled once."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        compiled = self.compiled(policy)
        advanced = compiled.advance(state, outcome, now)
        if isinstance(advanced, Decided):
            if advanced.call is not None:
                self._call(advanced.call, policy, now)  # a decided first attempt: recorded (or not), decided anyway
            return advanced.decision
        reply = self._call(advanced, policy, now)
        return self._finished(compiled.finish(state, outcome, now, reply), state)

    def _call(self, call: StoreCall, policy: Policy, now_ms: int) -> StoreReply:
        try:  # policy.budget is the call's budget (format 2), and its image is cached by the glue
            keyed = getattr(self.store, "call_keyed", None)  # a store that takes the call's key (Redis)
            answer = (keyed(call.key, request_of(call), policy.budget, now_ms) if keyed is not None
                      else self.store.call(request_of(call), policy.budget, now_ms))
            return answer if isinstance(answer, Reservation) else UNAVAILABLE
        except Exception as e:  # any store failure fails closed
            logger().debug("budget store call failed: %r", e)
            return UNAVAILABLE

    def step_evaluated(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int | None = None
    ) -> Decision:
        """The 0.2 step: ``evaluate`` -> at most ONE ``store.call`` -> ``settle`` (the policy lowered every call)."""
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
            answer = self.store.call(request, policy.budget, now)
            reply: StoreReply = answer if isinstance(answer, Reservation) else UNAVAILABLE
        except Exception as e:  # any store failure fails closed
            logger().debug("budget store call failed: %r", e)
            reply = UNAVAILABLE
        if step.decision is not None:
            return step.decision  # a decided first attempt: recorded (or not), decided anyway
        return self._settled(self.settle(policy, state, outcome, now, reply), state)
