"""The budget store behind an ACL user and behind TLS (docs/replica.md
--redis, --ca-file), on Debian's redis-server started here on loopback:
the right user and password answer, a wrong password fails closed; rediss://
verified with the CA answers, without the CA it fails closed; still ONE
store command per step."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest
from conftest import NOW_MS
from test_replica import run_replica, storm_policy, summary_of
from tls_certs import make_certs

from webhook_retry_policy import AsyncRetryPolicy, DeliveryState, HttpResponse, Retry, Stop, StopReason
from webhook_retry_policy.dispatcher import LocalEndpoint
from webhook_retry_policy.redis_store import AsyncRedisBudgetStore

redis = pytest.importorskip("redis")
from redis.backoff import NoBackoff  # noqa: E402
from redis.retry import Retry as NoRetries  # noqa: E402

REDIS_SERVER = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed (apt-get install redis-server)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(client) -> None:
    for _ in range(200):
        try:
            client.ping()
            return
        except (redis.ConnectionError, redis.AuthenticationError):
            time.sleep(0.05)
    raise AssertionError("redis-server did not start")


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="module")
def servers(tmp_path_factory, certs):
    """(plain port with ACL user alice/s3cret, TLS port); the default user off on the ACL one."""
    acl_port, tls_port = _free_port(), _free_port()
    common = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    acl = subprocess.Popen([REDIS_SERVER, "--port", str(acl_port), *common, "--dir", str(tmp_path_factory.mktemp("acl")),
                            "--user", "alice", "on", ">s3cret", "~*", "+@all", "--user", "default", "off"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tls = subprocess.Popen([REDIS_SERVER, "--port", "0", "--tls-port", str(tls_port), *common,
                            "--dir", str(tmp_path_factory.mktemp("tls")), "--tls-cert-file", str(certs.loopback_cert),
                            "--tls-key-file", str(certs.loopback_key), "--tls-ca-cert-file", str(certs.ca),
                            "--tls-auth-clients", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        once = {"host": "127.0.0.1", "socket_timeout": 1, "socket_connect_timeout": 1, "retry": NoRetries(NoBackoff(), 0)}
        _wait_for(redis.Redis(port=acl_port, username="alice", password="s3cret", **once))
        _wait_for(redis.Redis(port=tls_port, ssl=True, ssl_ca_certs=str(certs.ca), **once))
        yield acl_port, tls_port
    finally:
        for p in (acl, tls):
            p.terminate()
            p.wait(timeout=10)


# The calls that must succeed get a generous bound: a TLS handshake under load
# (average 12-15) once took more than the default 250 ms, which failed closed.
# What these tests check is the connection's setup, not the store's timeout.
GENEROUS_S = 10.0


async def _step(store: AsyncRedisBudgetStore, policy, event_id: str):
    state = DeliveryState(event_id, "ep-tls-acl", 1, 13, NOW_MS)
    try:
        return await AsyncRetryPolicy(store).step(policy, state, HttpResponse(503), NOW_MS + 10)
    finally:
        await store.aclose()


async def test_an_acl_user_with_its_password_gets_the_budget_in_one_command(servers, policy):
    acl_port, _ = servers
    store = AsyncRedisBudgetStore.from_url(f"redis://alice:s3cret@127.0.0.1:{acl_port}/0", skew_check=False,
                                           timeout_s=GENEROUS_S)
    assert isinstance(await _step(store, policy, "evt-acl-ok"), Retry)
    assert store.commands == 1


async def test_a_wrong_password_fails_closed_budget_unavailable(servers, policy):
    acl_port, _ = servers
    store = AsyncRedisBudgetStore.from_url(f"redis://alice:wrong@127.0.0.1:{acl_port}/0", skew_check=False)
    decision = await _step(store, policy, "evt-acl-bad")
    assert isinstance(decision, Stop) and decision.reason is StopReason.BUDGET_UNAVAILABLE


async def test_rediss_verified_with_the_ca_file_gets_the_budget(servers, policy, certs):
    _, tls_port = servers
    store = AsyncRedisBudgetStore.from_url(f"rediss://127.0.0.1:{tls_port}/0", skew_check=False,
                                           ca_pem=certs.ca.read_text(), timeout_s=GENEROUS_S)
    assert isinstance(await _step(store, policy, "evt-tls-ok"), Retry)
    assert store.commands == 1


async def test_rediss_without_the_ca_file_fails_closed(servers, policy, certs):
    _, tls_port = servers
    for ca_pem in (None, certs.other_ca.read_text()):
        store = AsyncRedisBudgetStore.from_url(f"rediss://127.0.0.1:{tls_port}/0", skew_check=False, ca_pem=ca_pem)
        decision = await _step(store, policy, "evt-tls-bad")
        assert isinstance(decision, Stop) and decision.reason is StopReason.BUDGET_UNAVAILABLE


def test_the_replica_uses_rediss_with_its_ca_file_and_fails_closed_without_it(servers, certs, tmp_path):
    _, tls_port = servers
    url = f"rediss://127.0.0.1:{tls_port}/0"
    # a TLS handshake per pooled connection on a busy 2-core machine: a generous store timeout
    policy = str(storm_policy(tmp_path))
    with LocalEndpoint(503) as ep:
        ok = summary_of(run_replica("--target", ep.url, "--endpoint-id", "ep-rediss", "--events", "10", "--policy", policy,
                                    "--redis", url, "--ca-file", str(certs.ca), "--store-timeout-ms", "3000"))
        assert ok["stop_reasons"]["budget_unavailable"] == 0 and ok["redis_round_trips"] > 0
        bad = summary_of(run_replica("--target", ep.url, "--endpoint-id", "ep-rediss", "--events", "10", "--policy", policy,
                                     "--redis", url))
        assert bad["stop_reasons"]["budget_unavailable"] == 10 and bad["retries"] == 0
