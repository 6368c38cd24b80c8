"""Redis stopped mid-run: the budget fails closed.

While Redis is down every retry is refused as ``budget_unavailable`` (never
"always allow"), every event still ends delivered or dead-lettered with a
reason (nothing lost), and once Redis is back retries resume.
"""

from __future__ import annotations

import time

import fleetlib
from fleetlib import Endpoints, assert_nothing_lost, budget_counts, start_replica, write_policy

DOWN_FOR_S = 1.2


def test_a_redis_outage_refuses_retries_loses_nothing_and_retries_resume_after(tmp_path, redis_server, rust_replica):
    r = redis_server
    r.client().flushall()
    # Generous budget (ratio 0.5, floor 20): before and after the outage
    # most failed events get retries, so their absence is visible.
    policy = write_policy(tmp_path / "policy.json", ratio=0.5, min_sample=20, budget_window_ms=10_000, window_ms=600)
    have, broken = fleetlib.working_langs()
    for lang, why in broken.items():
        print(f"outage: {lang} is left out: {why[:300]}")
    langs = ["rust"] + [l for l in have if l != "rust"]
    names = [f"broken-{l}" for l in langs]
    with Endpoints(log=True, **{n: 503 for n in names}) as eps:
        # Every replica runs for 9 s from its own start (--deadline-ms); the
        # outage begins once all of them are sending (some start slowly).
        reps = [start_replica(l, target=eps.urls[n], endpoint_id="ep-outage", events=200_000, policy=policy,
                              redis=r.url, concurrency=4, deadline_ms=9000,
                              extra=("--rate", "250") if l == "rust" else ())
                for l, n in zip(langs, names)]
        eps.wait_for_requests(names, replicas=reps)
        t0 = time.time() * 1000
        time.sleep(0.5)
        r.stop()
        down_at = time.time() * 1000
        time.sleep(DOWN_FOR_S)
        restart_at = time.time() * 1000  # Redis may answer any moment after this
        r.start()
        up_at = time.time() * 1000
        summaries = [x.result(timeout=60) for x in reps]
        log = eps.log("broken-rust")
    for s in summaries:
        assert_nothing_lost(s)
        print(f"{s['host']}: {s['events']} events, {s['stop_reasons']}")
        assert s["stop_reasons"]["budget_unavailable"] > 0, f"{s['host']} never failed closed: {s}"
    # The Rust replica marks its attempts (X-Attempt): retries reserved
    # before the stop go out within cap_ms (50 ms); after that, none while
    # Redis is down.
    during = [x for x in log if down_at + 100 <= x["t_ms"] <= restart_at and x["attempt"] > 1]
    firsts_during = [x for x in log if down_at <= x["t_ms"] <= restart_at and x["attempt"] == 1]
    before = [x for x in log if x["t_ms"] < down_at and x["attempt"] > 1]
    after = [x for x in log if x["t_ms"] > up_at + 100 and x["attempt"] > 1]
    print(f"rust retries: {len(before)} before, {len(during)} during ({len(firsts_during)} first attempts), {len(after)} after the outage")
    assert before, "no retries before the outage: the test did not exercise anything"
    assert firsts_during, "no first attempts during the outage: deliveries must go on without the budget"
    assert during == [], "retries were sent while the budget store was down: it failed open"
    assert after, "retries did not resume after Redis came back"
    # The fresh Redis counted attempts and reserved retries again.
    total, retries = budget_counts(r.client(), "ep-outage")
    assert total > 0 and retries > 0, (total, retries)
