"""The fleet budget over TLS with an ACL user, in every language
(docs/replica.md: ``--redis rediss://USER:PASSWORD@HOST:PORT`` and
``--ca-file`` for ``rediss://`` stores).

Debian's redis-server 7.0 with a plain port (setup, ``MONITOR``) and a TLS
port (certificate for 127.0.0.1 signed by a test CA, clients not asked for
certificates), the ACL user ``fleet``/``s3cret``. Each language's replica
storms an always-503 endpoint through the TLS port:

* right password: nothing lost, no ``budget_unavailable``, the budget is
  met, Redis counted exactly the replica's attempts and retries, at most one
  script call per attempt (``MONITOR`` on the plain port: TLS clients'
  commands show there too), retries within the ratio as in test_fleet;
* wrong password, or no ``--ca-file`` (the test CA untrusted: the client
  verifies the store's certificate too): every first attempt still goes out
  once, every retry fails closed (``budget_unavailable``), ``store_errors``
  > 0, nothing lost, nothing written.
"""

from __future__ import annotations

import time

import pytest

import fleetlib
from conftest import require_replica
from fleetlib import Endpoints, MonitorCounter, assert_nothing_lost, budget_counts, id_patterns, start_replica, write_policy
from tlslib import ACL_USER, TLSRedisServer, make_certs

EVENTS = 300
RATIO = 0.1
MIN_SAMPLE = 30
RUN_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def tls_redis(tmp_path_factory):
    certs = make_certs(tmp_path_factory.mktemp("redis-tls") / "certs")
    with TLSRedisServer(certs) as r:
        r.check_tls_login()
        yield r


@pytest.fixture()
def tls_redis_db(tls_redis):
    c = tls_redis.client()
    c.flushall()
    yield tls_redis
    c.flushall()


BUDGET_WINDOW_MS = 60_000
STORM_ROOM_MS = 25_000  # a storm here takes ~5 s; on a loaded machine, a few times that


def policy(tmp_path):
    return write_policy(tmp_path / "policy.json", ratio=RATIO, min_sample=MIN_SAMPLE,
                        budget_window_ms=BUDGET_WINDOW_MS)


def start_in_one_bucket() -> None:
    """Wait, if needed, until STORM_ROOM_MS remain in the current budget
    bucket (``floor(now_ms / window_ms)``, docs/contract.md): the storm then
    stays in one bucket, and the ratio it holds is the plain one. (Across a
    boundary the sliding estimate weights the previous bucket by less than
    1, so part of the sample floor's early retries is never paid back.)"""
    left_ms = BUDGET_WINDOW_MS - int(time.time() * 1000) % BUDGET_WINDOW_MS
    if left_ms < STORM_ROOM_MS:
        time.sleep(left_ms / 1000 + 0.05)


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_a_storm_through_a_tls_redis_as_an_acl_user_holds_the_budget_with_one_script_call_per_attempt(
        lang, tls_redis_db, tmp_path):
    require_replica(lang)
    r = tls_redis_db
    eid = f"redis-tls-{lang}"
    start_in_one_bucket()
    with Endpoints(broken=503) as eps, MonitorCounter(r.port) as mon:
        s = start_replica(lang, target=eps.urls["broken"], endpoint_id=eid, events=EVENTS, policy=policy(tmp_path),
                          redis=r.tls_url(), concurrency=4,
                          extra=("--ca-file", str(r.certs.ca))).result(timeout=RUN_TIMEOUT_S)
        requests = eps.stats("broken")["requests"]
        mon.stop()
        c = mon.counts(id_patterns(eid))
    assert_nothing_lost(s)
    why = f"{lang} (rediss:// as ACL user {ACL_USER}, --ca-file): "
    assert s["stop_reasons"]["budget_unavailable"] == 0, (
        why + f"{s['stop_reasons']['budget_unavailable']} events failed closed (budget_unavailable): store calls "
        f"failed or passed --store-timeout-ms (default 250; a TLS handshake + AUTH inside the first calls?), "
        f"store_errors {s.get('store_errors')}; stderr: {s['_stderr'][-800:]}")
    assert s["stop_reasons"]["retry_budget_exhausted"] > 0, why + f"the budget was never met: {s}"
    assert requests == s["attempts"], why + f"the endpoint saw {requests} requests, the replica reports {s['attempts']}"
    total, retries = budget_counts(r.client(), eid)
    assert (total, retries) == (s["attempts"], s["retries"]), (
        why + f"Redis counted {total} attempts / {retries} retries, the replica {s['attempts']} / {s['retries']}")
    per_attempt = c["scripts"] / max(int(s["attempts"]), 1)
    print(f"\n{lang}: rediss:// {s['attempts']} attempts ({s['retries']} retries, share "
          f"{s['retries'] / max(s['attempts'], 1):.3f}), {c['scripts']} script calls by MONITOR = "
          f"{per_attempt:.3f} per attempt {c['by_command']}")
    assert c["scripts"] > 0, why + "MONITOR saw no EVALSHA/EVAL naming the endpoint's key"
    assert per_attempt <= 1.0, why + f"{per_attempt:.3f} script calls per attempt (goal <= 1.0): {c['by_command']}"
    slack = 1 + 2  # one replica's sample-floor retry + 2 (as test_fleet)
    assert s["retries"] <= RATIO * s["attempts"] + slack, (
        why + f"{s['retries']} retries over ratio {RATIO} x {s['attempts']} attempts + {slack}")


def unusable_store_run(lang: str, r, tmp_path, case: str, redis_url: str, extra: tuple) -> None:
    """A storm whose budget store cannot be used (``case``): first attempts
    go out once each, every retry fails closed, nothing lost or written."""
    events = 60
    eid = f"redis-tls-{case.replace(' ', '-')}-{lang}"
    with Endpoints(log=True, broken=503) as eps:
        s = start_replica(lang, target=eps.urls["broken"], endpoint_id=eid, events=events, policy=policy(tmp_path),
                          redis=redis_url, concurrency=4, extra=extra).result(timeout=RUN_TIMEOUT_S)
        log = eps.log("broken")
    assert_nothing_lost(s)
    why = f"{lang} (rediss:// with {case}): "
    firsts = sorted(x["event_id"] for x in log if x["attempt"] == 1)
    assert len(firsts) == len(set(firsts)) == events == s["first_attempts"], (
        why + f"every event's first attempt should go out once: endpoint saw {len(firsts)} "
        f"({len(set(firsts))} distinct), replica reports {s['first_attempts']} of {events}; "
        f"stderr: {s['_stderr'][-800:]}")
    later = [x for x in log if x["attempt"] != 1]
    assert not later and s["retries"] == 0, why + f"{len(later)} retries reached the endpoint ({s['retries']} reported)"
    assert s["stop_reasons"]["budget_unavailable"] == events, (
        why + f"every 503 should fail closed as budget_unavailable: {s['stop_reasons']}")
    assert "store_errors" in s, why + f"the summary has no store_errors (docs/replica.md): {s}"
    assert int(s["store_errors"]) > 0, why + f"store_errors is 0 though every retry failed closed: {s}"
    assert budget_counts(r.client(), eid) == (0, 0), why + "something was written to Redis"


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_a_wrong_redis_password_fails_every_retry_closed_and_first_attempts_go_on(lang, tls_redis_db, tmp_path):
    require_replica(lang)
    r = tls_redis_db
    unusable_store_run(lang, r, tmp_path, "a wrong ACL password", r.tls_url(password="not-the-password"),
                       ("--ca-file", str(r.certs.ca)))


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_a_tls_redis_whose_ca_is_not_trusted_fails_every_retry_closed(lang, tls_redis_db, tmp_path):
    # No --ca-file: the platform store does not trust the test CA, and the
    # client never skips verification, so the store is never reached.
    require_replica(lang)
    r = tls_redis_db
    unusable_store_run(lang, r, tmp_path, "no --ca-file", r.tls_url(), ())
