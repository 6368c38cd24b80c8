"""The Redis store answers a whole ABI 0.3 store call (docs/health.md
section 3, "Redis encoding") on a real redis-server on loopback: a health
call is ONE EVALSHA of 18 arguments whose 11-integer reply becomes the
``call-reply``, and it answers exactly as the in-memory store's
``apply-call``; a format-2 call stays 8 arguments and 5 integers."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from test_redis_store import REDIS_SERVER, redis_url  # noqa: F401  (the module's redis-server fixture)

from webhook_retry_policy import CompiledPolicy, RetryPolicy
from webhook_retry_policy.redis_call import call_reply
from webhook_retry_policy.redis_store import AsyncRedisBudgetStore, RedisBudgetStore
from webhook_retry_policy.stores import InMemoryCallStore
from webhook_retry_policy.types import (
    CallOp,
    CallReply,
    Decided,
    DeliveryState,
    HttpResponse,
    StoreCall,
)

pytest.importorskip("redis")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")

CLASS = {"window_ms": 600000, "hard_cap": 8,
         "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"},
         "budget": {"ratio": 0.5, "window_ms": 60000, "min_sample": 2, "sliding": True},
         "health": {"circuit": {"min_sample": 2, "failure_ratio": 0.5, "cooldown_ms": 5000}}}


def compiled(health: bool = True) -> CompiledPolicy:
    cls = CLASS if health else {k: v for k, v in CLASS.items() if k != "health"}
    doc = RetryPolicy().load_health_document(json.dumps({"version": "t", "classes": {"c": cls}}))
    return CompiledPolicy.for_class(doc, "c")


class Recording:
    """A redis client that remembers each command's arguments."""

    def __init__(self, client: Any) -> None:
        self.client, self.sent = client, []

    def execute_command(self, *args: Any) -> Any:
        self.sent.append(args)
        return self.client.execute_command(*args)


def calls_of(c: CompiledPolicy, endpoint: str, now: int) -> list[StoreCall]:
    """A failing first attempt's call, another, then a reserve and a probe."""
    out: list[StoreCall] = []
    for n in (1, 2):
        advanced = c.advance(DeliveryState(f"e{n}", endpoint, 1, 8, now), HttpResponse(503), now)
        out.append(advanced.call if isinstance(advanced, Decided) else advanced)
    return [x for x in out if x is not None] + [c.call_for(CallOp.RESERVE, endpoint, now),
                                                c.call_for(CallOp.PROBE, endpoint, now)]


def test_a_health_call_is_one_evalsha_of_18_arguments_and_its_11_integer_reply_matches_apply_call(redis_url):  # noqa: F811
    store = RedisBudgetStore.from_url(redis_url)
    store.client.script_load(store.script)
    store.loaded = True
    store.client = Recording(store.client)
    memory = InMemoryCallStore()
    c, endpoint, now = compiled(), f"ep-h-{time.time_ns()}", int(time.time() * 1000)
    calls = calls_of(c, endpoint, now)
    assert [x.op for x in calls][-2:] == [CallOp.RESERVE, CallOp.PROBE] and all(x.health for x in calls)
    for call in calls:
        got, want = store.store_call(call, now), memory.call(call, now)
        assert got == want, call.op
        sent = store.client.sent[-1]
        assert sent[0] == "EVALSHA" and sent[2] == 1 and sent[3] == call.key and len(sent[4:]) == 18, sent
    assert store.commands == len(calls) == len(store.client.sent)
    assert got.granted is not None and got.view is not None and got.reservation is None


def test_a_format_2_call_stays_8_arguments_and_5_integers(redis_url):  # noqa: F811
    store = RedisBudgetStore.from_url(redis_url)
    store.client = Recording(store.client)
    c, now = compiled(health=False), int(time.time() * 1000)
    call = c.call_for(CallOp.RESERVE, f"ep-2-{time.time_ns()}", now)
    reply = store.store_call(call, now)
    assert len(store.client.sent[-1][4:]) == 8
    assert reply == InMemoryCallStore().call(call, now) and reply.view is None and reply.granted is None


def test_the_async_store_answers_the_same_and_resends_only_on_noscript(redis_url):  # noqa: F811
    async def run() -> tuple[CallReply, int]:
        store = AsyncRedisBudgetStore.from_url(redis_url)
        try:
            c, now = compiled(), int(time.time() * 1000)
            call = c.call_for(CallOp.PROBE, f"ep-a-{time.time_ns()}", now)
            await store.client.execute_command("SCRIPT", "FLUSH")
            store.loaded = True  # EVALSHA finds no script: one EVAL more
            return await store.store_call(call, now), store.commands
        finally:
            await store.aclose()

    reply, commands = asyncio.run(run())
    assert reply.granted is False and reply.view is not None and commands == 2


@pytest.mark.parametrize("reply", [[0, 0, 0, 0, 0], [-1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1], [-1] * 11,
                                   [1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1]])
def test_a_malformed_health_reply_is_an_error_never_a_guess(reply):
    call = compiled().call_for(CallOp.PROBE, "ep", 1000)
    with pytest.raises(ValueError):
        call_reply(reply, call)
