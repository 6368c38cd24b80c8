"""AsyncRetryPolicy: counts awaited only when the budget decides, retries
reserved, a failing or slow store fails closed, same decisions as decide."""

from __future__ import annotations

import asyncio


from conftest import NOW_MS
from webhook_retry_policy import (
    AsyncInMemoryBudgetCounter,
    AsyncRetryPolicy,
    BucketCounts,
    HttpResponse,
    InMemoryBudgetCounter,
    ManualClock,
    Retry,
    RetryPolicy,
    Stop,
    StopReason,
    TransportError,
    budget_bucket,
)


class CountingStore(AsyncInMemoryBudgetCounter):
    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def read(self, endpoint_id, window_ms, bucket):
        self.reads += 1
        await asyncio.sleep(0)
        return await super().read(endpoint_id, window_ms, bucket)


class DownStore(AsyncInMemoryBudgetCounter):
    async def read(self, *a):
        raise ConnectionError("redis down")


class SlowStore(AsyncInMemoryBudgetCounter):
    async def read(self, *a):
        await asyncio.sleep(10)


async def test_a_delivered_event_never_touches_the_store(policy, state):
    store = CountingStore()
    ap = AsyncRetryPolicy(store, ManualClock(NOW_MS))
    assert (await ap.decide(policy, state, HttpResponse(200))).reason is StopReason.DELIVERED
    assert (await ap.decide(policy, state, HttpResponse(422))).reason is StopReason.TERMINAL_RESPONSE
    assert store.reads == 0


async def test_a_retry_reads_the_store_once_and_reserves_the_retry(policy, state):
    store = CountingStore()
    clock = ManualClock(NOW_MS + 100)
    ap = AsyncRetryPolicy(store, clock)
    d = await ap.decide(policy, state, HttpResponse(503))
    assert d == Retry(8, False) and store.reads == 1
    counts = await store.read("ep_42", 60_000, budget_bucket(60_000, clock.now_ms()))
    assert counts.current == BucketCounts(1, 1)


async def test_async_decisions_equal_the_wit_decide_with_a_sync_counter(policy, state):
    sync_counter, clock = InMemoryBudgetCounter(), ManualClock(NOW_MS)
    sync = RetryPolicy(clock, sync_counter)
    ap = AsyncRetryPolicy(AsyncInMemoryBudgetCounter(InMemoryBudgetCounter()), clock)
    for i in range(120):  # enough retries to trip the 10% budget past min_sample
        st = state.__class__(f"evt_{i}", "ep_42", 1 + i % 5, 13, NOW_MS)
        await ap.record_first_attempt("ep_42", policy.budget)
        sync.record_first_attempt("ep_42", policy.budget)
        outcome = HttpResponse(503) if i % 3 else TransportError("connect_error")
        assert await ap.decide(policy, st, outcome) == sync.decide(policy, st, outcome)
        clock.advance(250)


async def test_a_store_that_is_down_fails_closed(policy, state):
    d = await AsyncRetryPolicy(DownStore(), ManualClock(NOW_MS)).decide(policy, state, HttpResponse(503))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE


async def test_a_store_that_hangs_times_out_and_fails_closed(policy, state):
    ap = AsyncRetryPolicy(SlowStore(), ManualClock(NOW_MS), store_timeout_s=0.05)
    d = await ap.decide(policy, state, HttpResponse(503))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE


async def test_the_component_api_can_be_the_decider_too(policy, state):
    ap = AsyncRetryPolicy(clock=ManualClock(NOW_MS), decider=RetryPolicy())
    fast = AsyncRetryPolicy(clock=ManualClock(NOW_MS))
    st2 = state.__class__("evt_x", "ep_9", 1, 13, NOW_MS)
    assert await ap.decide(policy, st2, HttpResponse(503)) == await fast.decide(policy, st2, HttpResponse(503))
