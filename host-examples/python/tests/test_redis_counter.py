"""The fleet's Redis budget counter (fleet/README.md) against a real
redis-server started on loopback for these tests."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time

import pytest

from conftest import NOW_MS
from webhook_retry_policy import (
    AsyncInMemoryBudgetCounter,
    AsyncRetryPolicy,
    BucketCounts,
    DeliveryState,
    HttpResponse,
    InMemoryBudgetCounter,
    ManualClock,
    Retry,
    RetryPolicy,
    Stop,
    StopReason,
)
from webhook_retry_policy.redis_counter import AsyncRedisBudgetCounter, RedisBudgetCounter, bucket_key

redis = pytest.importorskip("redis")
import redis.asyncio as aioredis  # noqa: E402

REDIS_SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (apt-get install redis-server)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def redis_port(tmp_path_factory):
    port = _free_port()
    proc = subprocess.Popen(
        [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp_path_factory.mktemp("redis"))],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    yield port
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def sync_client(redis_port):
    c = redis.Redis(port=redis_port)
    c.flushall()
    yield c
    c.close()


@pytest.fixture
async def async_client(redis_port):
    c = aioredis.Redis(port=redis_port)
    await c.flushall()
    yield c
    await c.aclose()


def test_counts_land_in_the_shared_key_schema_with_a_ttl(sync_client):
    counter = RedisBudgetCounter(sync_client)
    counter.record_attempt("ep_1", 60_000, 100, False)
    counter.record_attempt("ep_1", 60_000, 100, True)
    counter.record_attempt("ep_1", 60_000, 99, False)
    assert counter.read("ep_1", 60_000, 100).current == BucketCounts(2, 1)
    assert counter.read("ep_1", 60_000, 100).previous == BucketCounts(1, 0)
    key = bucket_key("ep_1", 60_000, 100)
    assert key == "rb:{ep_1}:60000:100" and 0 < sync_client.pttl(key) <= 180_000


def test_the_wit_decide_with_redis_decides_like_the_in_memory_counter(sync_client, policy):
    clock = ManualClock(NOW_MS)
    with_redis = RetryPolicy(clock, RedisBudgetCounter(sync_client))
    in_memory = RetryPolicy(clock, InMemoryBudgetCounter())
    for i in range(100):
        st = DeliveryState(f"e{i}", "ep_r", 1 + i % 4, 13, NOW_MS)
        for rp in (with_redis, in_memory):
            rp.record_first_attempt("ep_r", policy.budget)
        assert with_redis.decide(policy, st, HttpResponse(503)) == in_memory.decide(policy, st, HttpResponse(503))
        clock.advance(700)


async def test_async_reserve_decides_like_the_in_memory_counter_in_one_round_trip(async_client, policy):
    clock = ManualClock(NOW_MS)
    with_redis = AsyncRetryPolicy(AsyncRedisBudgetCounter(async_client), clock)
    in_memory = AsyncRetryPolicy(AsyncInMemoryBudgetCounter(), clock)
    reasons = set()
    for i in range(150):
        st = DeliveryState(f"e{i}", "ep_a", 1 + i % 4, 13, NOW_MS)
        for ap in (with_redis, in_memory):
            await ap.record_first_attempt("ep_a", policy.budget)
        a, b = await with_redis.decide(policy, st, HttpResponse(503)), await in_memory.decide(policy, st, HttpResponse(503))
        assert a == b
        reasons.add(a.reason if isinstance(a, Stop) else "retry")
        clock.advance(300)
    assert {"retry", StopReason.RETRY_BUDGET_EXHAUSTED} <= reasons


async def test_replicas_racing_on_one_endpoint_never_exceed_the_ratio(redis_port, policy):
    clock = ManualClock(NOW_MS)
    clients = [aioredis.Redis(port=redis_port) for _ in range(4)]
    await clients[0].flushall()
    replicas = [AsyncRetryPolicy(AsyncRedisBudgetCounter(c), clock) for c in clients]
    for _ in range(100):
        await replicas[0].record_first_attempt("ep_race", policy.budget)
    states = [DeliveryState(f"r{i}", "ep_race", 1, 13, NOW_MS) for i in range(80)]
    decisions = await asyncio.gather(*(replicas[i % 4].decide(policy, s, HttpResponse(503)) for i, s in enumerate(states)))
    retries = sum(isinstance(d, Retry) for d in decisions)
    total = 100 + retries
    assert 0 < retries and (retries + 0.0) <= 0.1 * total + 1e-9
    for c in clients:
        await c.aclose()


async def test_redis_down_fails_closed_sync_and_async(policy):
    port = _free_port()  # nothing listens there
    st = DeliveryState("e1", "ep_x", 1, 13, NOW_MS)
    sync = RetryPolicy(ManualClock(NOW_MS), RedisBudgetCounter(redis.Redis(port=port, socket_connect_timeout=0.2)))
    d = sync.decide(policy, st, HttpResponse(503))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE
    client = aioredis.Redis(port=port, socket_connect_timeout=0.2)
    d = await AsyncRetryPolicy(AsyncRedisBudgetCounter(client), ManualClock(NOW_MS)).decide(policy, st, HttpResponse(503))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE
    await client.aclose()
