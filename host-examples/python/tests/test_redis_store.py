"""The Redis budget store (fleet/budget.lua) on a real redis-server started
on loopback: ONE EVALSHA per request, NOSCRIPT resent once as EVAL, a
bounded timeout, every failure fails closed."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time

import pytest
from conftest import NOW_MS

from webhook_retry_policy import AsyncRetryPolicy, DeliveryState, HttpResponse, Retry, RetryPolicy, Stop, StopReason
from webhook_retry_policy.redis_store import AsyncRedisBudgetStore, RedisBudgetStore

redis = pytest.importorskip("redis")
REDIS_SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (apt-get install redis-server)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    port = _free_port()
    proc = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path_factory.mktemp("redis"))], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(timeout=10)


def _evalsha_calls(client) -> tuple[int, int]:
    stats = client.info("commandstats")
    return stats.get("cmdstat_evalsha", {}).get("calls", 0), stats.get("cmdstat_eval", {}).get("calls", 0)


def test_each_step_sends_one_evalsha_and_counts_in_the_components_key(redis_url, policy):
    store = RedisBudgetStore.from_url(redis_url)
    rp = RetryPolicy(store=store)
    now = rp.clock.now_ms()
    before = _evalsha_calls(store.client)
    state = DeliveryState("evt_r1", "ep-one-call", 1, 13, now)
    store.client.script_load(store.script)
    store.loaded = True  # as after its first EVAL
    assert isinstance(rp.decide(policy, state, HttpResponse(503)), Retry)
    assert _evalsha_calls(store.client)[0] == before[0] + 1 and store.commands == 1
    from webhook_retry_policy import StoreRequest
    key = rp.store_key(StoreRequest("record", "ep-one-call", 60_000, 0))
    fields = {k.decode(): int(v) for k, v in store.client.hgetall(key).items()}
    assert sum(v for k, v in fields.items() if k.startswith("t:")) == 2  # the attempt and the reserved retry
    assert sum(v for k, v in fields.items() if k.startswith("r:")) == 1


def test_after_a_script_flush_only_that_command_is_sent_again_as_eval(redis_url, policy):
    store = RedisBudgetStore.from_url(redis_url)
    store.loaded = True
    rp = RetryPolicy(store=store)
    store.client.script_flush()
    sha0, eval0 = _evalsha_calls(store.client)
    assert isinstance(rp.decide(policy, DeliveryState("evt_f", "ep-flush", 1, 13, rp.clock.now_ms()), HttpResponse(503)), Retry)
    assert _evalsha_calls(store.client) == (sha0 + 1, eval0 + 1) and store.commands == 2


def test_the_first_request_sends_the_script_with_eval_and_later_ones_evalsha(redis_url, policy):
    store = RedisBudgetStore.from_url(redis_url)
    rp = RetryPolicy(store=store)
    sha0, eval0 = _evalsha_calls(store.client)
    for i in range(3):
        rp.decide(policy, DeliveryState(f"evt_e{i}", "ep-eval", 1, 13, rp.clock.now_ms()), HttpResponse(503))
    assert _evalsha_calls(store.client) == (sha0 + 2, eval0 + 1) and store.commands == 3


def test_a_clock_far_from_redis_time_is_refused_and_fails_closed(redis_url, policy):
    rp = RetryPolicy(store=RedisBudgetStore.from_url(redis_url))
    skewed = NOW_MS  # years away from the real clock Redis reads
    d = rp.step(policy, DeliveryState("evt_s", "ep-skew", 1, 13, skewed), HttpResponse(503), now_ms=skewed)
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE


def test_an_unreachable_redis_fails_closed_quickly(policy):
    rp = RetryPolicy(store=RedisBudgetStore.from_url(f"redis://127.0.0.1:{_free_port()}/0"))
    started = time.monotonic()
    d = rp.decide(policy, DeliveryState("evt_u", "ep", 1, 13, rp.clock.now_ms()), HttpResponse(503))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE and time.monotonic() - started < 1


@pytest.fixture
def hung_server():
    """Accepts connections and never answers (a Redis under SIGSTOP)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"redis://127.0.0.1:{srv.getsockname()[1]}/0"
    stop.set()
    t.join()
    for c in held:
        c.close()
    srv.close()


def test_a_hung_redis_times_out_within_the_store_timeout_sync_and_async(hung_server, policy):
    rp = RetryPolicy(store=RedisBudgetStore.from_url(hung_server, timeout_s=0.1))
    started = time.monotonic()
    d = rp.decide(policy, DeliveryState("evt_h", "ep", 1, 13, rp.clock.now_ms()), HttpResponse(503))
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE and time.monotonic() - started < 0.5
    first = rp.decide(policy, DeliveryState("evt_h2", "ep", 1, 13, rp.clock.now_ms()), HttpResponse(204))
    assert first.reason is StopReason.DELIVERED  # type: ignore[union-attr]

    async def run() -> object:
        ap = AsyncRetryPolicy(AsyncRedisBudgetStore.from_url(hung_server, timeout_s=0.1))
        return await ap.step(policy, DeliveryState("evt_h3", "ep", 1, 13, ap.clock.now_ms()), HttpResponse(503))

    import asyncio

    started = time.monotonic()
    d = asyncio.run(run())
    assert isinstance(d, Stop) and d.reason is StopReason.BUDGET_UNAVAILABLE and time.monotonic() - started < 0.5


async def test_the_async_store_makes_the_same_step(redis_url, policy):
    store = AsyncRedisBudgetStore.from_url(redis_url)
    ap = AsyncRetryPolicy(store)
    d = await ap.step(policy, DeliveryState("evt_a", "ep-async", 1, 13, ap.clock.now_ms()), HttpResponse(503))
    assert isinstance(d, Retry) and store.commands == 1
    await store.aclose()


def test_only_noeviction_keeps_budget_keys_safe() -> None:
    from webhook_retry_policy.redis_store import _policy_of, eviction_warning

    assert eviction_warning("noeviction") is None
    for p in ("allkeys-lru", "volatile-lru", "volatile-ttl", "allkeys-random"):
        w = eviction_warning(p)
        assert w is not None and p in w and "noeviction" in w
    assert _policy_of([b"maxmemory-policy", b"volatile-lru"]) == "volatile-lru"
    assert _policy_of({"maxmemory-policy": "noeviction"}) == "noeviction"
    assert _policy_of(None) is None


def test_a_step_files_its_redis_command_under_the_components_store_key(redis_url, policy, monkeypatch):
    from webhook_retry_policy.instance import Instance

    names: list[str] = []
    real = Instance.run
    monkeypatch.setattr(Instance, "run", lambda self, name, *a: (names.append(name), real(self, name, *a))[1])
    store = RedisBudgetStore.from_url(redis_url)
    rp = RetryPolicy(store=store)
    now = rp.clock.now_ms()
    state = DeliveryState("evt_k", "ep-keyed", 1, 13, now)
    assert isinstance(rp.step(policy, state, HttpResponse(503), now), Retry)
    assert names == ["evaluate", "store-key", "settle"] and store.commands == 1
    key = rp.store_key(rp.evaluate(policy, state, HttpResponse(503), now).store)
    assert store.client.exists(key)  # the script counted under the component's key
