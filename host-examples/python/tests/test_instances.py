"""The one fast path's machinery: per-thread instances, a trap rebuilds the
instance, the scratch block grows for big inputs, results are read after
guest memory grew, and the raw-call self-test guards the wasmtime internals."""

from __future__ import annotations

import threading

import pytest
from conftest import NOW_MS

from webhook_retry_policy import (
    DeliveryState,
    EventClass,
    HttpResponse,
    PolicyDocument,
    PolicyTrap,
    Retry,
    RetryPolicy,
    Stop,
    TransportError,
    Unavailable,
    _raw,
    instance,
)


def test_each_thread_gets_its_own_instance_and_all_agree(policy, state):
    rp = RetryPolicy()
    seen: list[object] = []
    results = []
    together = threading.Barrier(4)

    def work() -> None:
        together.wait()  # all four alive at once
        seen.append(instance.current())
        results.append(rp.settle(policy, state, HttpResponse(503), NOW_MS, Unavailable()).decision)
        together.wait()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(i) for i in seen}) == 4
    assert len(set(results)) == 1


def test_a_trap_raises_policy_trap_and_the_next_call_gets_a_fresh_instance(policy, state):
    rp = RetryPolicy()
    before = instance.current()
    with pytest.raises(PolicyTrap):
        before.run("decide", policy, state, HttpResponse(503))  # the imports-driven export: its imports trap
    assert instance.current() is not before
    assert isinstance(rp.settle(policy, state, HttpResponse(503), NOW_MS, Unavailable()).decision, Stop)


def test_long_strings_grow_the_scratch_block_and_come_back_intact(policy):
    rp = RetryPolicy()
    long_id = "é" * 200_000
    state = DeliveryState(long_id, "ep", 3, 3, NOW_MS)
    stop = rp.settle(policy, state, TransportError("k" * 50_000), NOW_MS + 1, Unavailable()).decision
    assert isinstance(stop, Stop) and stop.dead_letter is not None and stop.dead_letter.event_id == long_id
    assert instance.current().cap >= 400_000


def test_a_document_with_many_classes_is_admitted(policy):
    rp = RetryPolicy()
    doc = PolicyDocument("v1", tuple(EventClass(f"class-{i}", policy) for i in range(2000)))
    admission = rp.admit(doc, "class-1999", NOW_MS)
    assert admission.class_ == "class-1999" and admission.schedule.max_attempts == 13


def test_many_calls_reuse_one_instance_without_leaking_guest_memory(policy, state):
    rp = RetryPolicy()
    rp.settle(policy, state, HttpResponse(503), NOW_MS, Unavailable())
    inst = instance.current()
    size = inst.memory.data_len(inst.store)
    for i in range(20_000):
        assert isinstance(rp.settle(policy, DeliveryState(f"evt_{i}", "ep", 1, 13, NOW_MS),
                                         HttpResponse(503), NOW_MS, Unavailable()).decision, Stop | Retry)
    assert instance.current() is inst and inst.memory.data_len(inst.store) == size


def test_the_raw_call_self_test_passes_on_the_pinned_wasmtime():
    _raw.self_test()
    assert instance.current().entries["evaluate"][2] != 0


def test_a_result_read_after_guest_memory_grew_is_freed_exactly_once(policy, state):
    rp = RetryPolicy()
    for n in (9_000, 70_000, 300_000):  # results past the last view of guest memory
        stop = rp.settle(policy, DeliveryState("e" * n, "ep", 3, 3, NOW_MS), TransportError("k"), NOW_MS + 1, Unavailable()).decision
        assert isinstance(stop, Stop) and stop.dead_letter is not None and len(stop.dead_letter.event_id) == n
        assert isinstance(rp.evaluate(policy, state, HttpResponse(503), NOW_MS).store, object)
    for i in range(200):  # a double free would hand one block out twice and corrupt these
        step = rp.evaluate(policy, DeliveryState(f"evt_{i}", f"ep_{i}", 1, 13, NOW_MS), HttpResponse(503), NOW_MS)
        assert step.store is not None and step.store.endpoint_id == f"ep_{i}"


def test_the_self_test_refuses_an_untested_wasmtime_major_with_the_fix(monkeypatch):
    monkeypatch.setattr(_raw, "wasmtime_version", lambda: "51.0.0")
    with pytest.raises(ImportError, match=r"wasmtime>=50,<51"):
        _raw.self_test()


def test_the_self_test_refuses_a_binding_with_another_c_signature(monkeypatch):
    import ctypes

    from wasmtime import _bindings

    fake = ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 0)
    monkeypatch.setattr(_bindings, "_wasmtime_func_call_unchecked", fake)
    with pytest.raises(ImportError, match="unexpected signature"):
        _raw.self_test()


def test_instances_of_finished_threads_and_trapped_instances_are_freed(policy, state):
    import gc
    import weakref

    rp = RetryPolicy()
    refs: list[weakref.ref[instance.Instance]] = []

    def work() -> None:
        refs.append(weakref.ref(instance.current()))
        rp.settle(policy, state, HttpResponse(503), NOW_MS, Unavailable())

    for _ in range(20):  # one at a time: each thread's instance goes with its thread-local
        t = threading.Thread(target=work)
        t.start()
        t.join()
    for _ in range(20):  # each trap drops the instance; the next call builds a fresh one
        refs.append(weakref.ref(instance.current()))
        with pytest.raises(PolicyTrap):
            instance.current().run("decide", policy, state, HttpResponse(503))
    gc.collect()
    assert sum(r() is not None for r in refs) <= 1, "Stores/Instances accumulate"


@pytest.mark.parametrize("jitter", [10**5000, "x" * (1 << 20), object()], ids=["huge-int", "huge-str", "object"])
def test_a_forged_value_the_lowering_cannot_take_is_a_short_policy_error(jitter):
    """Found by the long boundary fuzz: a forged Backoff whose jitter is an int past str()'s 4300-digit
    limit made the lowering's KeyError unprintable, so ``run`` raised ValueError instead of PolicyError."""
    from webhook_retry_policy import Backoff, ErrorCode, PolicyError

    forged = object.__new__(Backoff)
    for name, v in zip(Backoff.__slots__, (2000, 2.0, 300_000, jitter), strict=True):
        object.__setattr__(forged, name, v)
    with pytest.raises(PolicyError) as e:
        RetryPolicy().plan(forged, 900_000, 16)
    assert e.value.code is ErrorCode.INVALID_INPUT and len(e.value.message) < 300, e.value.message[:200]
