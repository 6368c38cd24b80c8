"""The fleet harness itself: the MONITOR count and the fault tests pass for
a replica that follows the store protocol, and catch one that does not.

tests/fleet/reference_replica.py (not a host: store protocol + a simplified
policy) runs the same measurements as the per-language tests, in its good
mode and in modes with a known fault: two store calls per attempt, no store
timeout, a re-sent record on NOSCRIPT. Without this, a harness bug could
pass every host.
"""

from __future__ import annotations

import pytest

from test_commands_per_attempt import GOAL, measure
from test_faults import hung_redis_run, script_flush_run
from fleetlib import Endpoints, assert_nothing_lost, budget_counts, start_replica, write_policy


def test_the_reference_replica_makes_one_redis_command_per_attempt(redis_db, tmp_path):
    m = measure("reference", redis_db, tmp_path)
    assert 0 < m["per_attempt"] <= GOAL, m


def test_monitor_sees_two_commands_per_attempt_when_record_and_reserve_are_separate(redis_db, tmp_path):
    m = measure("reference", redis_db, tmp_path, extra=("--mode", "two-calls"))
    assert m["per_attempt"] > 1.5, f"MONITOR missed the second call per attempt: {m}"


def test_the_reference_replica_survives_a_hung_redis(redis_db, tmp_path):
    m, problems = hung_redis_run("reference", redis_db, tmp_path)
    assert not problems, problems
    assert m["lost"] == 0


def test_the_hang_test_catches_a_store_call_without_a_timeout(redis_db, tmp_path):
    _, problems = hung_redis_run("reference", redis_db, tmp_path, extra=("--mode", "no-timeout"))
    assert any("stalled" in p or "no healthy delivery" in p for p in problems), problems


def test_the_reference_replica_survives_script_flush(redis_db, tmp_path):
    m, problems = script_flush_run("reference", redis_db, tmp_path)
    assert not problems, problems


def test_the_flush_test_catches_a_double_count_on_noscript(redis_db, tmp_path):
    _, problems = script_flush_run("reference", redis_db, tmp_path, extra=("--mode", "resend-on-noscript"))
    assert any("double count" in p for p in problems), problems


def test_the_reference_fleet_on_redis_counts_every_attempt_once(redis_db, tmp_path):
    """Four reference replicas storm one endpoint: Redis's counts are the
    fleet's attempts and retries, and the share holds the ratio + slack."""
    policy = write_policy(tmp_path / "policy.json", ratio=0.1, min_sample=30, budget_window_ms=10_000)
    with Endpoints(broken=503) as eps:
        reps = [start_replica("reference", target=eps.urls["broken"], endpoint_id="ref-fleet", events=300,
                              policy=policy, redis=redis_db.url, concurrency=4) for _ in range(4)]
        summaries = [r.result(timeout=120) for r in reps]
        requests = eps.stats("broken")["requests"]
    for s in summaries:
        assert_nothing_lost(s)
    attempts = sum(s["attempts"] for s in summaries)
    retries = sum(s["retries"] for s in summaries)
    assert budget_counts(redis_db.client(), "ref-fleet") == (attempts, retries)
    assert requests == attempts
    print(f"\nreference fleet x4: {attempts} attempts, {retries} retries, share {retries / attempts:.3f}")
    assert retries <= 0.1 * attempts + 4 + 2
