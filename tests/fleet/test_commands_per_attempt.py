"""At most one Redis command per attempt, in every language, counted by
Redis itself (``MONITOR`` on a second connection), not by the hosts' own
counters.

Each language's replica storms an always-503 loopback endpoint (300 events,
shared Redis budget); every ``EVALSHA``/``EVAL`` line naming its endpoint's
key is counted and set against the attempts the replica reports. Goal (issue
10): <= 1.0 per attempt. A language whose host is still being migrated to the
store protocol (``PENDING``, e.g. ``FLEET_RT_PENDING=go``) that misses the
goal is an expected failure with the measured figure in the message; a
language off ``PENDING`` fails hard above 1.0. All four met it on standalone
Redis when this was written (1.000 each), so ``PENDING`` is empty; on the
cluster Rust (no ``--redis-cluster`` yet) and Node are pending.
"""

from __future__ import annotations

import os

import pytest

import fleetlib
from conftest import require_replica
from fleetlib import Endpoints, MonitorCounter, assert_nothing_lost, id_patterns, start_replica, write_policy

EVENTS = 300
GOAL = 1.0
# Hosts not yet on `evaluate` -> one EVALSHA -> `settle` (issue 10 measured
# 1.89-1.93 before the migration). Shrink as each host lands.
PENDING = set(filter(None, os.environ.get("FLEET_RT_PENDING", "").split(",")))
# On the cluster: cluster-mode clients still landing in Rust and Node.
CLUSTER_PENDING = set(filter(None, os.environ.get("FLEET_RT_CLUSTER_PENDING", "").split(",")))

MEASURED: dict[str, dict] = {}


def measure(lang: str, redis, tmp_path, extra: tuple[str, ...] = ()) -> dict:
    policy = write_policy(tmp_path / "policy.json", ratio=0.1, min_sample=30, budget_window_ms=10_000)
    eid = f"monitor-{lang}"
    with Endpoints(broken=503) as eps, MonitorCounter(redis.port) as mon:
        s = start_replica(lang, target=eps.urls["broken"], endpoint_id=eid, events=EVENTS, policy=policy,
                          redis=redis.url, concurrency=4, extra=extra).result(timeout=120)
        mon.stop()
        c = mon.counts(id_patterns(eid))
        everything = mon.counts()
    assert_nothing_lost(s)
    attempts = max(int(s["attempts"]), 1)
    m = {"lang": lang, "attempts": s["attempts"], "retries": s["retries"], "scripts": c["scripts"],
         "key_commands": c["by_command"],
         "commands": everything["all"], "by_command": everything["by_command"],
         "per_attempt": c["scripts"] / attempts, "all_per_attempt": everything["all"] / attempts,
         "self_reported": s.get("redis_round_trips", 0) / attempts}
    MEASURED[lang] = m
    print(f"\n{lang}: {s['attempts']} attempts ({s['retries']} retries): {c['scripts']} EVALSHA/EVAL = "
          f"{m['per_attempt']:.3f} per attempt; all commands {everything['all']} = {m['all_per_attempt']:.3f} "
          f"per attempt {everything['by_command']}; the replica reports {m['self_reported']:.3f} round trips/attempt")
    return m


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_at_most_one_redis_command_per_attempt(lang, redis_db, tmp_path):
    require_replica(lang)
    m = measure(lang, redis_db, tmp_path)
    assert m["scripts"] > 0, f"{lang}: MONITOR saw no EVALSHA/EVAL naming the endpoint's key: is --redis used?"
    ok = m["per_attempt"] <= GOAL
    msg = (f"{lang}: {m['per_attempt']:.3f} EVALSHA/EVAL per attempt ({m['scripts']} for {m['attempts']} attempts; "
           f"goal <= {GOAL}), measured with MONITOR: {m['key_commands']}")
    evals = m["key_commands"].get("EVAL", 0)
    if not ok and evals and m["scripts"] - evals <= m["attempts"]:
        msg += (f" -- the excess is the {evals} EVAL after a NOSCRIPT EVALSHA (cold script cache): "
                f"SCRIPT LOAD once at start, or make the first call an EVAL")
    if not ok and lang in PENDING:
        pytest.xfail(msg + " [not met yet: expected failure while the host is in PENDING]")
    assert ok, msg
