"""The fast path: same decisions as the component API, one core call per
decision, safe with long strings, threads and traps."""

from __future__ import annotations

import threading
from dataclasses import replace

import pytest

from conftest import NOW_MS
from webhook_retry_policy import (
    FastDecider,
    HttpResponse,
    PolicyError,
    PolicyTrap,
    RetryPolicy,
    Stop,
    TransportError,
)
from webhook_retry_policy import corewasm, fastpath, loader


@pytest.fixture(scope="module")
def fast():
    return FastDecider()


@pytest.fixture(scope="module")
def api():
    return RetryPolicy()


OUTCOMES = [HttpResponse(204), HttpResponse(503), HttpResponse(503, 40_000), HttpResponse(401), HttpResponse(410),
            HttpResponse(429, 10**12), HttpResponse(600), TransportError("read_timeout"), TransportError(""),
            TransportError("é" * 50)]


@pytest.mark.parametrize("outcome", OUTCOMES, ids=repr)
@pytest.mark.parametrize("attempt", [1, 5, 13])
def test_the_fast_path_decides_exactly_like_the_component_api(fast, api, policy, state, healthy_counts, outcome, attempt):
    st = replace(state, attempt=attempt)
    for counts in (healthy_counts, None):
        for now in (NOW_MS, NOW_MS + 899_000, NOW_MS + 10**9):
            try:
                want = api.decide_with(policy, st, outcome, now, counts)
            except PolicyError as e:
                with pytest.raises(PolicyError) as got:
                    fast.decide_with(policy, st, outcome, now, counts)
                assert got.value == e
                continue
            assert fast.decide_with(policy, st, outcome, now, counts) == want


def test_ids_longer_than_the_scratch_block_grow_it_and_round_trip(fast, api, policy, state):
    st = replace(state, event_id="e" * 70_000, endpoint_id="ü" * 30_000)
    d = fast.decide_with(policy, st, HttpResponse(410), NOW_MS, None)
    assert d == api.decide_with(policy, st, HttpResponse(410), NOW_MS, None)
    assert isinstance(d, Stop) and d.dead_letter.event_id == st.event_id


def test_result_strings_that_do_not_fit_the_out_area_are_read_in_place(policy, state, monkeypatch):
    monkeypatch.setattr(fastpath, "_MIN_OUT", 8)  # force the adapter's "did not fit" branch
    fast = FastDecider()
    st = replace(state, event_id="evt_long_enough", endpoint_id="ep_long_enough")
    inst = fast._instance()
    inst.out_cap = 0
    inst.ensure(0)
    monkeypatch.setattr(inst, "ensure", lambda n: fastpath._OUT_AREA + 8)
    d = fast.decide_with(policy, st, HttpResponse(410), NOW_MS, None)
    assert d.dead_letter.event_id == "evt_long_enough" and d.dead_letter.endpoint_id == "ep_long_enough"
    # the guest heap stays healthy: many more decisions through the same instance
    for i in range(2000):
        assert fast.decide_with(policy, replace(st, event_id=f"e{i}"), HttpResponse(410), NOW_MS, None).dead_letter.event_id == f"e{i}"


def test_guest_memory_does_not_grow_over_many_decisions(fast, policy, state, healthy_counts):
    for i in range(200):
        fast.decide_with(policy, replace(state, event_id=f"warm{i}"), HttpResponse(410), NOW_MS, healthy_counts)
    inst = fast._instance()
    size = inst.memory.data_len(inst.store)
    for i in range(20_000):
        fast.decide_with(policy, replace(state, event_id=f"evt{i}"), HttpResponse(410 if i % 2 else 503), NOW_MS, healthy_counts)
    assert inst.memory.data_len(inst.store) == size


def test_a_trap_becomes_policy_trap_and_the_next_call_uses_a_fresh_instance(fast, policy, state):
    inst = fast._instance()
    inst.scratch = 0xF000_0000  # the adapter now copies from outside guest memory: a trap
    with pytest.raises(PolicyTrap, match="trapped"):
        fast.decide_with(policy, state, HttpResponse(503), NOW_MS, None)
    assert fast._instance() is not inst
    assert fast.decide_with(policy, state, HttpResponse(204), NOW_MS, None).reason.value == "delivered"


def test_threads_get_their_own_instances_and_agree(fast, api, policy, state, healthy_counts):
    want = {i: api.decide_with(policy, replace(state, event_id=f"t{i}"), HttpResponse(503), NOW_MS, healthy_counts)
            for i in range(50)}
    errors: list[BaseException] = []

    def work():
        try:
            for _ in range(20):
                for i, d in want.items():
                    assert fast.decide_with(policy, replace(state, event_id=f"t{i}"), HttpResponse(503), NOW_MS, healthy_counts) == d
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_the_main_core_module_is_found_in_the_component_binary():
    names = {e.name for e in corewasm.main_module().exports}
    assert corewasm.DECIDE_WITH in names and corewasm.REALLOC in names
    assert len(corewasm.core_modules(loader.component_bytes())) >= 1
    with pytest.raises(corewasm.ComponentFormatError):
        corewasm.core_modules(b"\x00asm\x01\x00\x00\x00")
