"""Component instances: compiled once, one per thread, rebuilt after a trap;
host imports that fail never crash the interpreter."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from conftest import NOW_MS
from webhook_retry_policy import HttpResponse, InMemoryBudgetCounter, ManualClock, PolicyTrap, Retry, RetryPolicy, Stop
from webhook_retry_policy import loader


class ExplodingClock:
    def __init__(self) -> None:
        self.explode = True

    def now_ms(self) -> int:
        if self.explode:
            raise OSError("clock source gone")
        return NOW_MS


def test_a_failing_clock_surfaces_as_policy_trap_and_the_policy_recovers(policy, state):
    clock = ExplodingClock()
    rp = RetryPolicy(clock)
    with pytest.raises(PolicyTrap) as e:
        rp.decide(policy, state, HttpResponse(503))
    assert isinstance(e.value.__cause__, OSError)
    clock.explode = False
    assert isinstance(rp.decide(policy, state, HttpResponse(503)), Retry)


def test_a_clock_returning_a_negative_instant_is_a_trap_not_a_crash(policy, state):
    class Backwards:
        def now_ms(self) -> int:
            return -1

    with pytest.raises(PolicyTrap):
        RetryPolicy(Backwards()).decide(policy, state, HttpResponse(503))


def test_a_re_entrant_call_from_a_host_import_is_refused(policy, state):
    class Reentrant(InMemoryBudgetCounter):
        rp: RetryPolicy

        def read(self, endpoint_id, window_ms, bucket):  # type: ignore[override]
            self.rp.abi_version()  # calls back into the busy instance
            return super().read(endpoint_id, window_ms, bucket)

    counter = Reentrant()
    rp = RetryPolicy(ManualClock(NOW_MS), counter)
    counter.rp = rp
    d = rp.decide(policy, state, HttpResponse(503))  # the counter's error fails the budget closed
    assert isinstance(d, Stop) and d.reason.value == "budget_unavailable"
    assert rp.abi_version() == 1


def test_the_component_is_compiled_once_per_process():
    assert loader.component() is loader.component()
    a, b = RetryPolicy(), RetryPolicy()
    assert a._host._component is b._host._component


def test_threads_share_one_policy_safely(policy, state, healthy_counts):
    rp = RetryPolicy(ManualClock(NOW_MS))
    want = {i: rp.decide_with(policy, replace(state, event_id=f"t{i}"), HttpResponse(503), NOW_MS, healthy_counts)
            for i in range(10)}
    seen: list[object] = []
    errors: list[BaseException] = []

    def work():
        try:
            for _ in range(5):
                for i, d in want.items():
                    assert rp.decide_with(policy, replace(state, event_id=f"t{i}"), HttpResponse(503), NOW_MS, healthy_counts) == d
            seen.append(rp._host._local.instance)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len({id(x) for x in seen}) == 3


def test_a_wasm_path_that_is_not_a_component_is_an_error_not_a_crash(tmp_path):
    bad = tmp_path / "bad.wasm"
    bad.write_bytes(b"not wasm")
    with pytest.raises(Exception):
        RetryPolicy(wasm_path=str(bad))
