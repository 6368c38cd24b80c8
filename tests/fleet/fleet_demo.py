#!/usr/bin/env python3
"""``scripts/demo --redis``: the mixed-language fleet on one Redis budget.

Starts a private redis-server and local endpoints (broken 503, healthy
200), then one replica per language that has ``host-examples/<lang>/replica``
(then Rust ones, up to 8 replicas) hammering the broken endpoint with the
budget in Redis, while a Rust replica keeps delivering to the healthy one.
Prints each replica's stop reasons and the fleet-wide retry share from
Redis — then the same storm with per-replica (in-memory) budgets: each
replica sees only its eighth of the traffic, stays under its own sample
floor longer, and the fleet lets through far more retries than the ratio.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fleetlib  # noqa: E402
from fleetlib import Endpoints, RedisServer, budget_counts, start_replica, totals, write_policy  # noqa: E402

RATIO, MIN_SAMPLE, EVENTS, REPLICAS = 0.1, 50, 100, 8
COLS = ("delivered", "max_attempts_exhausted", "retry_budget_exhausted", "retry_window_elapsed", "budget_unavailable")


def row(name: str, s: dict) -> str:
    reasons = " ".join(f"{s['stop_reasons'].get(c, 0):>10}" for c in COLS)
    return f"{name:<16} {s['events']:>6} {s['attempts']:>8} {s['retries']:>7} {reasons} {s.get('redis_round_trips', 0):>9}"


def header() -> str:
    return f"{'replica':<16} {'events':>6} {'attempts':>8} {'retries':>7} " + " ".join(
        f"{c[:10]:>10}" for c in COLS) + f" {'redis_rt':>9}"


def storm(tmp: Path, langs: list[str], redis_url: str | None, tag: str) -> tuple[list[dict], dict]:
    policy = write_policy(tmp / "policy.json", ratio=RATIO, min_sample=MIN_SAMPLE, budget_window_ms=10_000)
    with Endpoints(broken=503, healthy=200) as eps:
        reps = [start_replica(l, target=eps.urls["broken"], endpoint_id=f"demo-{tag}", events=EVENTS, policy=policy,
                              redis=redis_url, concurrency=4) for l in langs]
        healthy = start_replica("rust", target=eps.urls["healthy"], endpoint_id=f"demo-{tag}-healthy", events=600,
                                policy=policy, redis=redis_url, concurrency=2, extra=("--rate", "400"))
        return [r.result() for r in reps], healthy.result()


def main() -> None:
    have, missing = fleetlib.available_langs()
    for lang in missing:
        print(f"(no host-examples/{lang}/replica: {lang} sits this one out)")
    langs = have + ["rust"] * max(0, REPLICAS - len(have))
    print(f"== fleet storm: replicas {langs}, {EVENTS} events each to an endpoint answering 503;")
    print(f"   budget {RATIO:.0%} of attempts, sample floor {MIN_SAMPLE}; a Rust replica delivers 600 events to a healthy endpoint meanwhile\n")
    with tempfile.TemporaryDirectory() as tmp, RedisServer() as redis:
        tmp = Path(tmp)
        for title, url in (("one budget in Redis, shared by the fleet", redis.url), ("per-replica in-memory budgets", None)):
            summaries, healthy = storm(tmp, langs, url, "redis" if url else "local")
            print(f"-- {title}")
            print(header())
            for s in summaries:
                print(row(s["host"], s))
            print(row("healthy (rust)", healthy))
            t = totals(summaries)
            line = f"fleet: {t['attempts']} attempts, {t['retries']} retries -> retry share {t['retry_share']:.1%} (ratio {RATIO:.0%})"
            if url:
                total, retries = budget_counts(redis.client(), "demo-redis")
                line += f"; Redis counted {total} attempts, {retries} retries"
                line += f"; {t['redis_round_trips'] / max(t['attempts'], 1):.2f} round trips per attempt"
            print(line + "\n")


if __name__ == "__main__":
    main()
