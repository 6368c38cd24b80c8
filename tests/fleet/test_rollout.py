"""Shipping a policy to the fleet (docs/rollout.md, issue 29): eight
replicas, two per language, follow the artifact the `retry-policy`
publisher puts in the fleet's Redis, under steady load.

* publish, canary 25%, rollback, canary again, promote: every replica runs
  what the canary rule names for its id (exactly the two the rule names
  switch, and only they), each step reaches every replica, `/metrics` and
  `rollout status` agree, nothing is lost (each replica drained by SIGTERM
  at the end: events = stop reasons + pending) and the budget ratio holds; on
  standalone Redis and on a local three-master Cluster. The seconds from
  each announcement to the last replica reporting the new sha256 are
  printed (a figure, not an assertion: the bound asserted is liveness).
* refusals, each seen by all eight replicas, the fleet staying on its
  artifact: a bad signature, an unknown key, a truncated artifact, an
  oversized one (refused from HSTRLEN, never fetched), an ABI mismatch, a
  failing self-test (a real component whose Retry-After reading is off by
  one in a thousand), a missing artifact, an invalid record (on standalone
  Redis; the Cluster path is the publish test above and each host's own
  Cluster tests); then Redis stopped (SIGSTOP) 3 s right after a publish is
  announced: replicas keep delivering on their artifact and all follow once
  it is back.
"""

from __future__ import annotations

import json
import time

import pytest

import fleetlib
import rolloutlib as rl
from conftest import require_replica
from fleetlib import Endpoints, totals, write_policy

RATIO = 0.2
STEP_BOUND_S = 15  # liveness: a step that takes longer has failed
LANGS = list(fleetlib.LANGS)


@pytest.fixture(scope="module")
def cluster():
    with fleetlib.RedisCluster() as c:
        yield c


@pytest.fixture()
def keys(tmp_path):
    return rl.keypair(tmp_path, "team"), rl.keypair(tmp_path, "stranger")


def on(client, ids, sha):
    st = rl.statuses(client)
    return all(st.get(rid, {}).get("artifact_sha256") == sha for rid in ids)


def where(client, ids) -> str:
    st = rl.statuses(client)
    return json.dumps({rid: (st.get(rid, {}).get("artifact_sha256", "-")[:12], st.get(rid, {}).get("refusal"))
                       for rid in ids})


def run_publish_canary_promote(tmp_path, keys, store: list[str], client) -> None:
    for lang in LANGS:
        require_replica(lang)
    (team, pub), _ = keys
    policy = write_policy(tmp_path / "policy.json", ratio=RATIO, min_sample=20, budget_window_ms=1000, window_ms=3000)
    v1, v2 = rl.bundle(tmp_path, "rollout-v1", policy), rl.bundle(tmp_path, "rollout-v2", policy)
    s1, s2 = rl.sha256_hex(v1.read_bytes()), rl.sha256_hex(v2.read_bytes())
    rl.publish(v1, store, team)
    ids = rl.fleet_ids(LANGS, per_lang=2, percent=25, inside=2)
    all_ids = [rid for _, rid in ids]
    canary = [rid for rid in all_ids if rl.bucket(rid) < 25]
    assert len(canary) == 2
    figures = {}
    with Endpoints(latency_ms=100, mixed="200:503/4") as eps:
        fleet = rl.start_fleet(ids, target=eps.urls["mixed"], policy=policy, pub=pub, store=store, deadline_ms=120_000)
        try:
            figures["start"] = rl.wait_until(lambda: on(client, all_ids, s1), 90, lambda: where(client, all_ids))
            eps.wait_for_requests(["mixed"], timeout_s=30)

            rl.publish(v2, store, team, canary=25)
            figures["canary 25%"] = rl.wait_until(lambda: on(client, canary, s2), STEP_BOUND_S,
                                                  lambda: where(client, all_ids))
            time.sleep(1.5)  # three ticks: nobody else moves
            others = [r for r in all_ids if r not in canary]
            assert on(client, others, s1), f"only {canary} may run the canary: {where(client, all_ids)}"
            assert on(client, canary, s2), where(client, all_ids)

            rl.rollout("rollback", store)
            figures["rollback"] = rl.wait_until(lambda: on(client, all_ids, s1), STEP_BOUND_S,
                                                lambda: where(client, all_ids))
            rl.publish(v2, store, team, canary=25)
            rl.wait_until(lambda: on(client, canary, s2), STEP_BOUND_S, lambda: where(client, all_ids))
            rl.rollout("promote", store)
            figures["promote"] = rl.wait_until(lambda: on(client, all_ids, s2), STEP_BOUND_S,
                                               lambda: where(client, all_ids))
            assert rl.record(client)["stable"] == s2 and rl.record(client)["previous"][0] == s1

            seen = {f.replica_id: rl.scrape_sha(f.metrics_port) for f in fleet}
            assert seen == {rid: s2 for rid in all_ids}, f"/metrics webhook_policy_info: {seen}"
            st = rl.cli("rollout", "status", *store, "--json")
            assert st.returncode == 0, st.stderr
            shown = {r["replica_id"]: r["artifact_sha256"] for r in json.loads(st.stdout)["replicas"]}
            assert {rid: shown.get(rid) for rid in all_ids} == seen, f"rollout status: {shown}"
        except BaseException:
            for f in fleet:
                f.replica.kill()
            raise
        summaries = rl.stop_fleet(fleet)
    t = totals(summaries)
    slack = len(fleet) + 2
    assert t["retries"] <= RATIO * t["attempts"] + slack, (
        f"fleet retries {t['retries']} over ratio {RATIO} x {t['attempts']} attempts + {slack}")
    print(f"\nrollout ({store[0]}): seconds from the announcement to the last replica reporting it: "
          + ", ".join(f"{k} {v:.2f}" for k, v in figures.items())
          + f"; events {t['events']}, attempts {t['attempts']}, retry share {t['retry_share']:.3f}")


def test_a_publish_reaches_every_replica_and_a_canary_names_exactly_its_share(tmp_path, keys, redis_db):
    run_publish_canary_promote(tmp_path, keys, ["--redis", redis_db.url], redis_db.client())


def test_the_same_rollout_works_on_a_redis_cluster(tmp_path, keys, cluster):
    cluster.flushall()
    slot_port = cluster.port_for(rl.STATE)
    assert all(cluster.port_for(k) == slot_port for k in (rl.REPLICAS, rl.artifact_key("0" * 64)))
    run_publish_canary_promote(tmp_path, keys, ["--redis-cluster", cluster.url], cluster.node_for(rl.STATE))


def run_refusals(tmp_path, keys, store: list[str], client, outage=None) -> None:
    """Every refusal kind, planted straight into the store, seen by all eight
    replicas; then, with ``outage`` = (pause, resume), a publish whose store
    stops answering right after its announcement."""
    for lang in LANGS:
        require_replica(lang)
    (team, pub), (stranger, _) = keys
    policy = write_policy(tmp_path / "policy.json", ratio=RATIO, min_sample=20, budget_window_ms=1000, window_ms=3000)
    v1 = rl.bundle(tmp_path, "refuse-v1", policy)
    s1 = rl.sha256_hex(v1.read_bytes())
    other = [rl.bundle(tmp_path, f"refuse-v{i}", policy).read_bytes() for i in (2, 3)]
    shipped = rl.SHIPPED.read_bytes()
    selftest = rl.selftest_mutant()
    rl.publish(v1, store, team)
    ids = rl.fleet_ids(LANGS, per_lang=2, percent=25, inside=2)
    all_ids = [rid for _, rid in ids]

    def bad_signature():
        forged, _ = rl.sign(team, rl.sha256_hex(other[1]))
        return rl.plant(client, other[0], team, signature=forged)

    def truncated():
        return rl.plant(client, other[1][: len(other[1]) // 2], team, sha=rl.sha256_hex(other[1]))

    cases = [
        ("a signature over another artifact", "rollout_signature_invalid", bad_signature),
        ("a key the replicas do not trust", "rollout_key_unknown", lambda: rl.plant(client, other[0], stranger)),
        ("a truncated artifact", "rollout_signature_invalid", truncated),
        ("an artifact over the 4 MiB cap", "artifact_too_large", lambda: rl.plant(client, b"\0" * (4 * 1024 * 1024 + 1), team)),
        ("another ABI", "artifact_abi_mismatch", lambda: rl.plant(client, rl.fake_component(shipped, "1.1.0"), team)),
        ("a failing self-test", "artifact_self_test_failed", lambda: rl.plant(client, selftest, team)),
        ("a record naming no stored artifact", "rollout_artifact_missing", lambda: "ab" * 32),
    ]
    during = None
    with Endpoints(latency_ms=100, mixed="200:503/4") as eps:
        fleet = rl.start_fleet(ids, target=eps.urls["mixed"], policy=policy, pub=pub, store=store, deadline_ms=120_000)
        try:
            rl.wait_until(lambda: on(client, all_ids, s1), 90, lambda: where(client, all_ids))
            for name, code, plant in cases:
                bad = plant()
                epoch = rl.record(client)["epoch"] + 1
                client.set(rl.STATE, rl.canonical(epoch, bad, previous=(s1,)))

                def refused_everywhere() -> bool:
                    st = rl.statuses(client)
                    return all(st.get(r, {}).get("epoch") == epoch and (st[r].get("refusal") or {}).get("code") == code
                               for r in all_ids)
                rl.wait_until(refused_everywhere, STEP_BOUND_S, lambda: f"{name}: {where(client, all_ids)}")
                assert on(client, all_ids, s1), f"{name}: a replica left its artifact: {where(client, all_ids)}"
                client.set(rl.STATE, rl.canonical(epoch + 1, s1))

            client.set(rl.STATE, '{"v":1,"epoch":99,"stable":"not a digest","canary":null,"previous":[]}')
            rl.wait_until(lambda: all((rl.statuses(client)[r].get("refusal") or {}).get("code") == "rollout_record_invalid"
                                      for r in all_ids), STEP_BOUND_S, lambda: where(client, all_ids))
            assert on(client, all_ids, s1)
            client.set(rl.STATE, rl.canonical(100, s1))

            v4 = rl.bundle(tmp_path, "refuse-v4", policy)
            s4 = rl.sha256_hex(v4.read_bytes())
            if outage:
                pause, resume = outage
                before = eps.stats("mixed")["requests"]
                rl.publish(v4, store, team)
                pause()  # the announcement is out; the artifact cannot be fetched
                try:
                    time.sleep(3)
                    during = eps.stats("mixed")["requests"] - before
                    assert all(f.replica.proc.poll() is None for f in fleet), "a replica exited during the store outage"
                finally:
                    resume()
                assert during > 0, "no request reached the endpoint while the store was down: delivery stopped"
            else:
                rl.publish(v4, store, team)
            rl.wait_until(lambda: on(client, all_ids, s4), STEP_BOUND_S, lambda: where(client, all_ids))
            assert {f.replica_id: rl.scrape_sha(f.metrics_port) for f in fleet} == {r: s4 for r in all_ids}
        except BaseException:
            for f in fleet:
                f.replica.kill()
            raise
        summaries = rl.stop_fleet(fleet)
    print(f"\nrollout refusals ({store[0]}): {len(cases) + 1} kinds refused by {len(all_ids)} replicas; "
          + (f"{during} requests during the 3 s the store was stopped right after a publish; " if outage else "")
          + f"events {totals(summaries)['events']}")


def test_refused_artifacts_and_a_store_outage_mid_rollout_leave_every_replica_on_its_artifact(tmp_path, keys, redis_db):
    run_refusals(tmp_path, keys, ["--redis", redis_db.url], redis_db.client(), outage=(redis_db.pause, redis_db.resume))

