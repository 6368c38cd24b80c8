"""The budget flow, sync and async: ``step`` (evaluate -> at most ONE store
call -> settle) and, for sync stores, ``decide`` (ONE component call that
asks the store through the WIT import) behave alike: in-memory stores apply
the component's store-apply; a store failure fails closed but never stops a
first attempt; a disagreeing store's verdict stands."""

from __future__ import annotations

import asyncio

import pytest
from conftest import NOW_MS

from webhook_retry_policy import (
    AsyncRetryPolicy,
    BucketCounts,
    Budget,
    BudgetCounts,
    DeliveryState,
    HttpResponse,
    InMemoryBudgetStore,
    Reservation,
    Retry,
    RetryPolicy,
    Stop,
    StopReason,
    StoreOp,
    StoreRequest,
    UnavailableBudgetStore,
)


@pytest.fixture(params=["step", "decide"])
def way(request: pytest.FixtureRequest) -> str:
    """Each sync test runs through ``step`` (three calls) and ``decide`` (one call, the store as an import)."""
    return str(request.param)


class Recording:
    """Counts calls; answers from an inner store or raises."""

    def __init__(self, inner=None, reply=None):
        self.inner, self.reply, self.calls = inner, reply, []

    def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
        self.calls.append(request.op)
        if self.reply is not None:
            return self.reply
        if self.inner is None:
            raise TimeoutError("store hung")
        return self.inner.call(request, budget, now_ms)


class AsyncRecording(Recording):
    async def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:  # type: ignore[override]
        return Recording.call(self, request, budget, now_ms)


def test_a_failed_first_attempt_costs_one_record_reserve_call(way, clock, policy, state):
    store = Recording(InMemoryBudgetStore())
    assert isinstance(getattr(RetryPolicy(clock, store), way)(policy, state, HttpResponse(503)), Retry)
    assert store.calls == [StoreOp.RECORD_RESERVE]


def test_a_delivered_first_attempt_is_recorded_and_a_decided_retry_calls_no_store(way, clock, policy, state):
    store = Recording(InMemoryBudgetStore())
    rp = RetryPolicy(clock, store)
    assert getattr(rp, way)(policy, state, HttpResponse(204)).reason is StopReason.DELIVERED  # type: ignore[union-attr]
    last = DeliveryState("evt_1", "ep_42", 13, 13, NOW_MS)
    assert getattr(rp, way)(policy, last, HttpResponse(503)).reason is StopReason.MAX_ATTEMPTS_EXHAUSTED  # type: ignore[union-attr]
    assert store.calls == [StoreOp.RECORD]


def test_a_failed_record_never_stops_a_first_attempts_decision(way, clock, policy, state):
    assert getattr(RetryPolicy(clock, UnavailableBudgetStore()), way)(policy, state, HttpResponse(204)).reason \
        is StopReason.DELIVERED  # type: ignore[union-attr]


def test_an_unreachable_or_confused_store_fails_closed(way, clock, policy, state):
    for store in (UnavailableBudgetStore(), Recording(), Recording(reply="yes")):  # type: ignore[arg-type]
        d = getattr(RetryPolicy(clock, store), way)(policy, state, HttpResponse(503))  # type: ignore[arg-type]
        assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE


def test_the_in_memory_store_trips_the_budget_after_the_sample_floor(way, clock, policy):
    rp = RetryPolicy(clock, InMemoryBudgetStore())
    reasons = [getattr(rp, way)(policy, DeliveryState(f"e{i}", "ep", 1, 13, NOW_MS), HttpResponse(503)) for i in range(200)]
    retried = sum(isinstance(d, Retry) for d in reasons)
    assert 20 <= retried < 60 and isinstance(reasons[-1], Stop)  # floor of 50 attempts, then about 10%
    held = rp.store.held("ep", 60_000)  # type: ignore[attr-defined]
    assert held.current.total == 200 + retried and held.current.retries == retried


def test_a_store_that_disagrees_with_the_policy_wins_and_is_counted(way, clock, policy, state):
    lenient = Reservation(True, BudgetCounts(BucketCounts(1000, 900), BucketCounts(0, 0)))
    rp = RetryPolicy(clock, Recording(reply=lenient))
    assert isinstance(getattr(rp, way)(policy, state, HttpResponse(503)), Retry)
    assert rp.budget_disagreements == (1 if way == "step" else 0)  # the WIT's decide answers the decision only


async def test_the_async_step_makes_one_awaited_call_and_times_out_closed(clock, policy, state):
    store = AsyncRecording(InMemoryBudgetStore())
    assert isinstance(await AsyncRetryPolicy(store, clock).step(policy, state, HttpResponse(503)), Retry)
    assert store.calls == [StoreOp.RECORD_RESERVE]

    class Hung:
        async def call(self, request: StoreRequest, budget: Budget, now_ms: int) -> Reservation:
            await asyncio.sleep(10)
            raise AssertionError("unreachable")

    slow = AsyncRetryPolicy(Hung(), clock, store_timeout_s=0.05)
    d = await slow.step(policy, state, HttpResponse(503))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE


async def test_asyncio_tasks_share_the_threads_instance_safely(clock, policy):
    ap = AsyncRetryPolicy(clock=clock)
    decisions = await asyncio.gather(*(ap.step(policy, DeliveryState(f"e{i}", "ep", 1, 13, NOW_MS), HttpResponse(503))
                                       for i in range(100)))
    assert len(decisions) == 100


@pytest.mark.parametrize("status", [204, 410, 503])
def test_step_and_decide_equal_evaluate_then_settle_on_the_same_store_answer(way, clock, policy, state, status):
    a, b = RetryPolicy(clock, InMemoryBudgetStore()), RetryPolicy(clock, InMemoryBudgetStore())
    step = b.evaluate(policy, state, HttpResponse(status), NOW_MS)
    if step.decision is not None:
        assert getattr(a, way)(policy, state, HttpResponse(status)) == step.decision
    else:
        assert step.store is not None
        reply = b.store.call(step.store, policy.budget, NOW_MS)
        assert getattr(a, way)(policy, state, HttpResponse(status)) == b.settle(policy, state, HttpResponse(status), NOW_MS,
                                                                         reply).decision


def test_decide_reads_the_policys_clock_through_the_import(clock, policy):
    clock.set(NOW_MS + 5_000)
    d = RetryPolicy(clock, UnavailableBudgetStore()).decide(policy, DeliveryState("e", "ep", 1, 13, NOW_MS), HttpResponse(503))
    assert isinstance(d, Stop) and d.dead_letter is not None and d.dead_letter.elapsed_ms == 5_000


def test_a_clock_that_raises_in_decide_is_a_policy_trap_and_the_next_call_works(clock, policy, state):
    class Broken:
        def now_ms(self) -> int:
            raise OSError("no clock")

    from webhook_retry_policy import PolicyTrap

    with pytest.raises(PolicyTrap):
        RetryPolicy(Broken(), InMemoryBudgetStore()).decide(policy, state, HttpResponse(503))
    assert isinstance(RetryPolicy(clock, InMemoryBudgetStore()).decide(policy, state, HttpResponse(503)), Retry)


def test_a_step_with_neither_a_decision_nor_a_request_is_settled_as_a_failed_store_call(clock, policy, state, monkeypatch):
    """A conforming artifact never answers so; every host then settles with
    ``unavailable`` (the component decides, failing closed), never a trap or None."""
    from webhook_retry_policy import Step

    for p in (RetryPolicy(clock=clock, store=Recording(InMemoryBudgetStore())), AsyncRetryPolicy(clock=clock)):
        monkeypatch.setattr(p, "evaluate", lambda *a, **k: Step(None, None))
        retry_state = DeliveryState(state.event_id, state.endpoint_id, 2, state.max_attempts,
                                    state.first_attempted_at_ms, False)
        got = p.step(policy, retry_state, HttpResponse(503, None))
        if asyncio.iscoroutine(got):
            got = asyncio.run(got)
        assert isinstance(got, Stop) and got.reason is StopReason.BUDGET_UNAVAILABLE, got
