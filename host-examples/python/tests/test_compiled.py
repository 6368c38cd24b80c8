"""ABI 0.3's compiled policy: the default step goes through it (one
component call when ``advance`` decides, two when the store answers), it is
compiled once per policy value and per instance, its handles are released
by close / ``with`` / the finalizer, and a swapped-in artifact never sees a
handle of the old instance."""

from __future__ import annotations

import gc
import json
import threading
from pathlib import Path

import pytest
from conftest import NOW_MS

from webhook_retry_policy import (
    BucketCounts,
    BudgetCounts,
    CallOp,
    CompiledPolicy,
    Decided,
    DeliveryState,
    HttpResponse,
    InMemoryBudgetStore,
    InMemoryCallStore,
    PolicyError,
    Reservation,
    Retry,
    RetryPolicy,
    Stop,
    StoreCall,
    TransportError,
    instance,
    swap_artifact,
)
from webhook_retry_policy.component_reader import append_custom_section
from webhook_retry_policy.instance import Instance
from webhook_retry_policy.types import GateEvent, Pacer, Send

SHIPPED = Path(__file__).resolve().parent.parent / "src" / "webhook_retry_policy" / "retry_policy.wasm"
COUNTS = BudgetCounts(BucketCounts(1000, 5), BucketCounts(1000, 5))


class Answering:
    """A store that calls no component: reserves every retry, counts calls."""

    def __init__(self) -> None:
        self.requests: list = []

    def call(self, request, budget, now_ms):
        self.requests.append(request)
        return Reservation(request.op.value != "record", COUNTS)


@pytest.fixture
def runs(monkeypatch):
    """The names of the component calls made (Instance.run)."""
    names: list[str] = []
    real = Instance.run

    def counting(self, name, *args):
        names.append(name)
        return real(self, name, *args)

    monkeypatch.setattr(Instance, "run", counting)
    return names


def retry_state(state: DeliveryState, attempt: int = 2) -> DeliveryState:
    return DeliveryState(state.event_id, state.endpoint_id, attempt, state.max_attempts, state.first_attempted_at_ms)


def test_the_default_step_is_one_component_call_when_advance_decides_and_two_when_the_store_answers(clock, policy, state,
                                                                                                    runs):
    rp = RetryPolicy(clock, Answering())
    rp.step(policy, state, HttpResponse(200), NOW_MS)  # compiles once
    runs.clear()
    made = len(rp.store.requests)
    assert isinstance(rp.step(policy, retry_state(state), HttpResponse(200), NOW_MS), Stop)
    assert runs == ["advance"] and len(rp.store.requests) == made  # a decided retry: no store call
    runs.clear()
    assert isinstance(rp.step(policy, retry_state(state), HttpResponse(503), NOW_MS), Retry)
    assert runs == ["advance", "finish"] and rp.store.requests[-1].op.value == "reserve"
    runs.clear()
    assert isinstance(rp.step(policy, state, HttpResponse(410), NOW_MS), Stop)
    assert runs == ["advance"] and rp.store.requests[-1].op.value == "record"  # recorded, decided anyway


def test_the_default_step_compiles_a_policy_once_per_value(clock, policy, state, runs):
    rp = RetryPolicy(clock, Answering())
    for attempt in (1, 2, 3):
        rp.step(policy, retry_state(state, attempt), HttpResponse(503), NOW_MS)
    same_value = type(policy)(policy.backoff, policy.window_ms, policy.hard_cap, policy.budget)
    rp.step(same_value, retry_state(state), HttpResponse(503), NOW_MS)
    assert runs.count("compile") == 1


def test_the_compiled_step_and_the_02_step_decide_alike(clock, policy, state):
    outcomes = [HttpResponse(200), HttpResponse(503), HttpResponse(429, 5000), HttpResponse(401), HttpResponse(410),
                HttpResponse(400), TransportError("connect_timeout"), TransportError("nonsense")]
    new, old = RetryPolicy(clock, InMemoryBudgetStore()), RetryPolicy(clock, InMemoryBudgetStore())
    compared = 0
    for attempt in range(1, 15):
        for outcome in outcomes:
            for now in (NOW_MS, NOW_MS + 800_000, NOW_MS + 1_000_000):
                s = retry_state(state, attempt)
                assert new.step(policy, s, outcome, now) == old.step_evaluated(policy, s, outcome, now), (s, outcome, now)
                compared += 1
    assert compared == 14 * len(outcomes) * 3
    assert new.store.held(state.endpoint_id, 60_000) == old.store.held(state.endpoint_id, 60_000)


def test_a_closed_compiled_policy_refuses_calls_and_its_handle_is_stale_in_the_component(policy, state):
    with CompiledPolicy(policy) as cp:
        handle = cp.handle()
        assert isinstance(cp.advance(state, HttpResponse(200), NOW_MS), Decided)
    assert cp.closed
    with pytest.raises(PolicyError) as e:
        cp.advance(state, HttpResponse(200), NOW_MS)
    assert e.value.code.value == "invalid_input"
    with pytest.raises(PolicyError) as e:
        instance.current().run("advance", handle, state, HttpResponse(200), False, NOW_MS)
    assert e.value.code.value == "invalid_input"
    cp.close()  # idempotent


def test_an_unclosed_compiled_policy_is_discarded_by_its_instance_after_collection(policy, runs):
    inst = instance.current()
    cp = CompiledPolicy(policy)
    handle = cp.handle()
    del cp
    gc.collect()
    assert inst.doomed == [handle] and "discard" not in runs  # a finalizer never calls into the instance
    CompiledPolicy(policy).close()
    assert inst.doomed == [] and runs.count("discard") == 2


def test_each_thread_compiles_its_own_handle_and_close_queues_the_others(policy, state):
    cp = CompiledPolicy(policy)
    seen: list = []

    def other() -> None:
        cp.advance(state, HttpResponse(503), NOW_MS)
        seen.append((instance.current(), cp.handle()))

    t = threading.Thread(target=other)
    t.start()
    t.join()
    (theirs, handle), = seen
    assert theirs is not instance.current() and theirs.handles.get(cp._h) == handle
    cp.close()
    assert theirs.doomed == [handle] and cp._h not in theirs.handles


def test_a_swap_between_advance_and_finish_compiles_anew_on_the_new_instance(clock, policy, state, runs):
    new = append_custom_section(SHIPPED.read_bytes(), "extra", b"compiled-swap")

    class Swapping(Answering):
        def call(self, request, budget, now_ms):
            swap_artifact(new)
            return super().call(request, budget, now_ms)

    rp = RetryPolicy(clock, Swapping())
    before = instance.current()
    assert isinstance(rp.step(policy, retry_state(state), HttpResponse(503), NOW_MS), Retry)
    after = instance.current()
    steps = [n for n in runs if n in ("compile", "advance", "finish", "discard")]
    assert after is not before and steps == ["compile", "advance", "compile", "finish"]
    assert rp.compiled(policy)._h in after.handles


def test_a_format3_class_compiles_with_its_section_and_gates(state):
    doc = RetryPolicy().load_health_document(json.dumps({"version": "h1", "classes": {"ledger": {
        "window_ms": 900000, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000}, "health": {}}}}))
    with CompiledPolicy.for_class(doc, "ledger") as cp:
        assert cp.health is not None and cp.health.circuit is not None
        event = GateEvent(state.event_id, state.endpoint_id, 0, NOW_MS, False, 0)
        assert isinstance(cp.gate(event, None, Pacer(0.0, 0, 0.0), NOW_MS).verdict, Send)
        call = cp.call_for(CallOp.PROBE, state.endpoint_id, NOW_MS)
        assert isinstance(call, StoreCall) and call.health is not None
        assert cp.admit("ledger", "h1", NOW_MS).policy_hash == doc.classes[0].policy_hash
    with pytest.raises(PolicyError) as e:
        CompiledPolicy.for_class(doc, "nope")
    assert e.value.code.value == "unknown_event_class"


def test_the_in_memory_call_store_answers_a_format2_call_as_the_budget_store_does(policy, state):
    with CompiledPolicy(policy) as cp:
        call = cp.advance(retry_state(state), HttpResponse(503), NOW_MS)
        assert isinstance(call, StoreCall)
        calls, budget = InMemoryCallStore(), InMemoryBudgetStore()
        from webhook_retry_policy.stores import request_of

        for _ in range(3):
            reply = calls.call(call, NOW_MS)
            assert reply.reservation == budget.call(request_of(call), call.budget, NOW_MS)
        assert calls.held(call.key).buckets == budget.held(state.endpoint_id, policy.budget.window_ms)


def test_an_async_step_whose_awaited_store_straddles_a_swap_finishes_on_the_new_instance(clock, policy, state, runs):
    import asyncio

    from webhook_retry_policy import AsyncRetryPolicy

    new = append_custom_section(SHIPPED.read_bytes(), "extra", b"compiled-async-swap")

    class Swapping:
        async def call(self, request, budget, now_ms):
            await asyncio.sleep(0)
            swap_artifact(new)
            return Reservation(True, COUNTS)

    ap = AsyncRetryPolicy(Swapping(), clock)
    before = instance.current()
    assert isinstance(asyncio.run(ap.step(policy, retry_state(state), HttpResponse(503), NOW_MS)), Retry)
    steps = [n for n in runs if n in ("compile", "advance", "finish", "discard")]
    assert instance.current() is not before and steps == ["compile", "advance", "compile", "finish"]
