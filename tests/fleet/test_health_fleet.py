"""Format 3 fleet-wide (docs/health-dispatch.md): replicas of every working
language on one Redis, all sending to ONE endpoint id that is down (503)
for 6 s from its first request, then healthy, with a policy that has a
`health` section; alongside, at the same time, the same languages with the
same policy WITHOUT health (format 2, the baseline) to a second endpoint id
down the same way. The endpoints answer after 50 ms, so each replica's
rate is bounded by its concurrency (2) whatever the machine.

What it proves (issue 19's goals, docs/health.md section 8): nothing lost
(every event delivered or dead-lettered with a reason; pending and held 0
at the end); >= 99% of the events that arrived during the outage delivered
after it with health (the baseline dead-letters most of them); far fewer
requests reach the down endpoint with health; after recovery the rate stays
within (1 + release.multiple) x normal + floor x replicas; Redis sees at most
one script call per attempt plus the probe calls (MONITOR); every
health replica held (circuit_open or paused). And a Retry-After case: an
endpoint answering 429 `Retry-After: 3` at first; no retry reaches it during
the pause, and each replica sends at most its concurrency there (its first
attempts, before any store reply: the gate-2 slack).

Languages whose replica does not run are left out and reported (they fail
test_replicas.py). A language's replica that breaks the format-3 contract
fails the test naming it (``FLEET_HEALTH_PENDING=go,...``: expected failure
while its send loop lands). Bounded: each run's replicas stop admitting
after 30 s (``--deadline-ms``) and are killed at 75 s.
"""

from __future__ import annotations

import time

import healthlib as hl
import pytest
from fleetlib import Endpoints, MonitorCounter, id_patterns, start_replica

DOWN_MS = 6000
LATENCY_MS = 50
CONCURRENCY = 2
EVENTS = 300
ADMIT_FOR_MS = 30_000
RUN_TIMEOUT_S = 75
RA_S = 3
RA_DOWN_MS = 2500
START_ORDER = ["python", "node", "go", "rust", "reference"]


def run_sides(tmp_path, redis, langs: list[str], sides: dict[str, dict], events: int, spec: str) -> dict:
    """Start ``len(langs)`` replicas per side (each side: its own endpoint
    ``spec`` and endpoint id, its ``health`` flag), all at once, with MONITOR
    on; wait for every summary. Per side: summaries, replica errors, the
    endpoint's log and stats, and the script calls Redis saw on its key."""
    policies = {name: hl.write_fleet_policy(tmp_path / f"{name}.json", side["health"], side.get("min_sample", 20))
                for name, side in sides.items()}
    out: dict = {name: {"summaries": [], "errors": [], "langs": langs} for name in sides}
    with Endpoints(log=True, latency_ms=LATENCY_MS, **{name: spec for name in sides}) as eps, \
            MonitorCounter(redis.port) as mon:
        reps = []
        try:
            # Slow starters first (an endpoint's outage starts at its first
            # request); the sides interleaved: both meet the same machine load.
            for lang in sorted(langs, key=START_ORDER.index):
                for name in sides:
                    reps.append((name, start_replica(lang, target=eps.urls[name], endpoint_id=f"health-fleet-{name}",
                                                     events=events, policy=policies[name], redis=redis.url,
                                                     concurrency=CONCURRENCY, deadline_ms=ADMIT_FOR_MS,
                                                     # A store call's bound: 24 replicas and Redis on a busy
                                                     # 2-core machine took calls past the default 250 ms, which
                                                     # fail closed (budget_unavailable dead letters, seen in CI's
                                                     # load; failing closed is test_faults.py's subject).
                                                     extra=("--store-timeout-ms", "2000"))))
            deadline = time.time() + RUN_TIMEOUT_S
            for name, rep in reps:
                try:
                    out[name]["summaries"].append(rep.result(timeout=max(1.0, deadline - time.time())))
                except AssertionError as e:  # exited non-zero, bad summary, or killed at the deadline
                    out[name]["errors"].append((rep.lang, str(e)[:1500]))
        finally:
            for _, rep in reps:
                rep.kill()  # only ones still running (a start failed part-way)
        mon.stop()
        for name in sides:
            c = mon.counts(id_patterns(f"health-fleet-{name}"))
            out[name].update(log=eps.log(name), stats=eps.stats(name), scripts=c["scripts"],
                             evals=c["by_command"].get("EVAL", 0))
    return out


def problems_of(side: dict, health: bool, need_holds: bool = True) -> list[tuple[str, str]]:
    found = [(lang, f"replica failed: {msg}") for lang, msg in side["errors"]]
    for s in side["summaries"]:
        found += [(s["host"], p) for p in hl.summary_problems(s, health, need_holds)]
    return found


def fleet_holds(summaries: list[dict]) -> dict[str, int]:
    holds: dict[str, int] = {}
    for s in summaries:
        for k, v in s.get("holds", {}).items():
            holds[k] = holds.get(k, 0) + int(v)
    return holds


def fail_or_xfail(problems: list[tuple[str, str]], figures: str) -> None:
    if not problems:
        return
    text = "\n".join(f"{lang}: {p}" for lang, p in problems[:40]) + "\n" + figures
    if {lang for lang, _ in problems} <= hl.pending_langs():
        pytest.xfail("[FLEET_HEALTH_PENDING] " + text)
    pytest.fail(text)


def total(summaries: list[dict], key: str) -> int:
    return sum(int(s.get(key, 0)) for s in summaries)


def test_a_fleet_with_health_holds_through_an_outage_and_delivers_what_arrived_during_it(tmp_path, redis_db):
    langs, broken = hl.fleet_langs(12)
    for lang, why in broken.items():
        print(f"health fleet: {lang} is left out: {why[:300]}")
    if not langs:
        pytest.skip("no language's replica runs: " + "; ".join(v[:200] for v in broken.values()))
    sides = {"health": {"health": True}, "baseline": {"health": False}}
    r = run_sides(tmp_path, redis_db, langs, sides, EVENTS, f"503~200@{DOWN_MS}")
    h, b = r["health"], r["baseline"]
    problems = problems_of(h, True) + problems_of(b, False)
    fig = {}
    for name, side in r.items():
        st = side["stats"]
        if st.get("up_at_ms") is None:
            fail_or_xfail(problems, f"{name}: no request reached the endpoint")
            pytest.fail(f"{name}: no request reached the endpoint")
        f = hl.outage_figures(side["log"], st["up_at_ms"], DOWN_MS)
        after = [x["t_ms"] for x in side["log"] if x["t_ms"] >= st["up_at_ms"]]
        f["max_1s_after"] = hl.max_rate_per_s(after)
        # Normal running: whole seconds from 3 s after the recovery (the
        # release is over by then) to the last second of the run.
        f["steady_per_s"] = hl.steady_rate_per_s(after, st["up_at_ms"], skip_ms=3000)
        s = side["summaries"]
        f.update(attempts=total(s, "attempts"), probe_calls=total(s, "probe_calls"),
                 scripts=side["scripts"], evals=side["evals"], events=total(s, "events"),
                 dead=total(s, "events") - sum(int(x["stop_reasons"]["delivered"]) for x in s))
        fig[name] = f
    fh, fb = fig["health"], fig["baseline"]
    # The normal rate: the health fleet's own, once released (the baseline's
    # when its run after recovery is too short to read one).
    normal = fh["steady_per_s"] or fb["steady_per_s"] or 0.0
    bound = hl.release_bound_per_s(normal, len(langs))
    ratio = fh["requests_during"] / max(fb["requests_during"], 1)
    holds = fleet_holds(h["summaries"])
    rows = [("requests during the outage", "requests_during"), ("events arrived during it", "arrived_during"),
            ("... delivered after it", "delivered_after"), ("... share", "delivered_share"),
            ("... last one, ms after recovery", "last_delivered_after_ms"),
            ("requests after it", "requests_after"), ("max requests in 1 s after", "max_1s_after"),
            ("steady requests/s after", "steady_per_s"), ("events", "events"), ("dead-lettered", "dead"),
            ("attempts (summaries)", "attempts"), ("probe calls", "probe_calls"),
            ("EVALSHA/EVAL on the key", "scripts"), ("... of which EVAL", "evals")]
    table = [(f"health fleet: {len(langs)} replicas per side ({', '.join(langs)}), outage {DOWN_MS} ms, "
              f"latency {LATENCY_MS} ms, concurrency {CONCURRENCY}"),
             f"{'':32} {'health':>10} {'baseline':>10}"]
    for label, k in rows:
        table.append(f"{label:32} {_fmt(fh.get(k)):>10} {_fmt(fb.get(k)):>10}")
    per_h = fh["scripts"] / max(fh["attempts"], 1)
    per_h_bare = (fh["scripts"] - fh["probe_calls"]) / max(fh["attempts"], 1)
    table += [(f"requests during the outage, health / baseline: {ratio:.3%} (goal <= 5%); health by language "
               f"{fh['during_by_lang']}"),
              (f"Redis script calls per attempt with health: {per_h:.3f} (all), {per_h_bare:.3f} without the "
               f"{fh['probe_calls']} probe calls; baseline "
               f"{fb['scripts'] / max(fb['attempts'], 1):.3f}"),
              (f"after recovery: max {fh['max_1s_after']} requests in 1 s; bound "
               f"(1 + {hl.HEALTH['release']['multiple']}) x {normal:.0f}/s normal + "
               f"{hl.HEALTH['release']['floor_per_s']} x {len(langs)} = {bound:.0f}"),
              f"health holds: {holds}"]
    figures = "\n".join(table)
    print("\n" + figures)
    fail_or_xfail(problems, figures)
    # With health: what arrived during the outage is delivered after it.
    assert fh["arrived_during"] > 0, figures
    stops = {}
    for x in h["summaries"]:
        for k, v in x["stop_reasons"].items():
            if v and k != "delivered":
                stops[f"{x['host']} {k}"] = stops.get(f"{x['host']} {k}", 0) + int(v)
    assert fh["delivered_share"] >= 0.99, (f"undelivered by language {fh['undelivered_by_lang']}; "
                                           f"dead letters by replica language and reason {stops}\n{figures}")
    # The baseline dead-letters most of it (the budget refuses the retries).
    assert fb["delivered_share"] < 0.5, figures
    # Far fewer requests reach the down endpoint: the goal, 5% (measured
    # 1.4-1.8% with all four languages, December 2026).
    assert ratio <= 0.05, figures
    # The release stays paced: slack 25% + 10 for 1 s windows on loopback.
    assert fh["max_1s_after"] <= bound * 1.25 + 10, figures
    # One script call per attempt, plus the probe calls (a held event leaves
    # its hold with no call since docs/health.md draft 6, so the wake calls
    # this bound once allowed are gone); a NOSCRIPT fallback (cold script
    # cache) is one EVAL more, at most one per replica.
    assert fh["scripts"] <= fh["attempts"] + fh["probe_calls"] + min(fh["evals"], len(langs)), figures
    assert fb["scripts"] <= fb["attempts"] + min(fb["evals"], len(langs)), figures


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.3f}" if v < 1.5 else f"{v:.1f}"
    return str(v)


def test_a_retry_after_pause_keeps_every_replica_off_the_endpoint_until_it_ends(tmp_path, redis_db):
    langs, broken = hl.fleet_langs(4, per_lang=1)
    for lang, why in broken.items():
        print(f"health fleet (Retry-After): {lang} is left out: {why[:300]}")
    if not langs:
        pytest.skip("no language's replica runs")
    # A low sample floor: the baseline dead-letters refused retries at once
    # and admits new events into the pause; with health they are held.
    sides = {"health": {"health": True, "min_sample": 4}, "baseline": {"health": False, "min_sample": 4}}
    r = run_sides(tmp_path, redis_db, langs, sides, 40, f"429+RA{RA_S}~200@{RA_DOWN_MS}")
    # A replica's retries fall due as its own view's pause ends, so it may
    # never meet a `paused` hold itself: holds are not required per replica.
    problems = problems_of(r["health"], True, need_holds=False) + problems_of(r["baseline"], False)
    counts = {}
    for name, side in r.items():
        log = side["log"]
        if not log:
            fail_or_xfail(problems, f"{name}: no request reached the endpoint")
            pytest.fail(f"{name}: no request reached the endpoint")
        t0 = log[0]["t_ms"]  # the first 429: it paused the endpoint until t0 + RA_S s
        window = [x for x in log if t0 < x["t_ms"] < t0 + RA_S * 1000]
        per_replica: dict[str, list[dict]] = {}
        for x in window:
            per_replica.setdefault(hl.replica_of(x["event_id"]), []).append(x)
        counts[name] = (len(window), per_replica)
    nh, per_h = counts["health"]
    nb, _ = counts["baseline"]
    slack = len(langs) * CONCURRENCY
    figures = (f"Retry-After {RA_S} s ({len(langs)} replicas per side: {', '.join(langs)}): requests in the pause "
               f"window: health {nh}, baseline {nb}; gate-2 slack replicas x concurrency = {slack}\n"
               f"health, per replica: { {k: len(v) for k, v in per_h.items()} }; "
               f"holds {fleet_holds(r['health']['summaries'])}")
    print("\n" + figures)
    fail_or_xfail(problems, figures)
    for rep, xs in per_h.items():
        retries = [x for x in xs if x["attempt"] != 1]
        assert not retries, f"{rep} sent retries during the pause: {retries[:5]}\n{figures}"
        assert len(xs) <= CONCURRENCY, f"{rep}: {len(xs)} requests during the pause\n{figures}"
    assert nh <= slack, figures
    # The pause is far shorter than the window: with health every event is delivered.
    hs = r["health"]["summaries"]
    assert total(hs, "events") == sum(int(s["stop_reasons"]["delivered"]) for s in hs), figures
