"""Helpers of test_health_fleet.py: the fleet's make-up, the format-3 policy
(small numbers: the run takes seconds) and its format-2 twin, and the
figures read from an endpoint's request log (``{"t_ms", "attempt",
"event_id"}`` per request) around its outage (``up_at_ms - down_ms`` to
``up_at_ms``, the down-then-healthy endpoint's own clock).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Iterable
from pathlib import Path

import fleetlib

# docs/health.md section 1, scaled down: the outage (6 s) is far shorter
# than the retry window (25 s); cooldown 500 ms doubling to at most 1 s, so
# the circuit is probed about once a second and closes within ~1 s of the
# recovery; release at 3x the normal rate, at least 1/s per replica.
HEALTH = {
    "hold_budget_refusals": True,
    "pause": {"max_ms": 10_000},
    "circuit": {"failure_ratio": 0.5, "min_sample": 10, "cooldown_ms": 500, "cooldown_max_ms": 1000,
                "probes": 1, "probe_interval_ms": 250},
    "release": {"multiple": 3.0, "floor_per_s": 1.0},
    "cache_ms": 1000,
}
WINDOW_MS = 25_000
# 4 s, not 1 s: the script refuses a call whose now_ms is more than a quarter
# of the budget window from Redis TIME (docs/contract.md, skew check), and on
# a busy 2-core machine a queued call took 263-267 ms (budget_unavailable
# dead letters, seen under load with a 1 s window).
BUDGET_WINDOW_MS = 4000


def write_fleet_policy(path: Path, health: bool, min_sample: int = 20) -> Path:
    """The fleet's policy: budget ratio 0.1 over 4 s (sliding), retry window
    25 s, backoff 20..200 ms; with ``health`` the HEALTH section (format 3),
    else none (format 2, the baseline)."""
    return fleetlib.write_policy(path, ratio=0.1, budget_window_ms=BUDGET_WINDOW_MS, min_sample=min_sample,
                                 window_ms=WINDOW_MS, base_ms=20, cap_ms=200, hard_cap=16,
                                 health=HEALTH if health else None)


def fleet_langs(n: int = 12, per_lang: int = 3) -> tuple[list[str], dict[str, str]]:
    """``per_lang`` replicas of every language whose replica runs, then Rust
    ones up to ``n`` (when Rust runs); and {language: why not} for the rest."""
    have, broken = fleetlib.working_langs()
    langs = [l for l in have for _ in range(per_lang)]
    while "rust" in have and len(langs) < n:
        langs.append("rust")
    return langs, broken


def pending_langs() -> set[str]:
    """Languages whose format-3 send loop is still landing
    (``FLEET_HEALTH_PENDING=go,node``; default none): their problems make the
    fleet test an expected failure instead of a hard one."""
    return set(filter(None, os.environ.get("FLEET_HEALTH_PENDING", "").split(",")))


def lang_of(event_id: str) -> str:
    """Event ids are ``<lang>-<pid>-<i>`` (docs/replica.md)."""
    return event_id.split("-", 1)[0]


def replica_of(event_id: str) -> str:
    """``<lang>-<pid>``: one replica."""
    return event_id.rsplit("-", 1)[0]


def outage_figures(log: list[dict], up_at_ms: int, down_ms: int) -> dict:
    """Requests during the outage, and what became of the events whose
    first attempt arrived during it: delivered after it (some request of
    theirs reached the endpoint at or after ``up_at_ms``, when it answers
    200, which ends an event) or not (dead-lettered during the outage)."""
    start = up_at_ms - down_ms
    during = [x for x in log if start <= x["t_ms"] < up_at_ms]
    arrived = {x["event_id"] for x in during if x["attempt"] == 1}
    delivered_at: dict[str, int] = {}
    for x in log:
        if x["t_ms"] >= up_at_ms and x["event_id"] in arrived:
            delivered_at.setdefault(x["event_id"], x["t_ms"])
    delivered = set(delivered_at)
    return {"requests_during": len(during), "arrived_during": len(arrived), "delivered_after": len(delivered),
            "last_delivered_after_ms": max(delivered_at.values()) - up_at_ms if delivered_at else None,
            "delivered_share": len(delivered) / len(arrived) if arrived else 0.0,
            "undelivered_by_lang": _count_by_lang(arrived - delivered),
            "during_by_lang": _count_by_lang([x["event_id"] for x in during]),
            "requests_after": sum(1 for x in log if x["t_ms"] >= up_at_ms)}


def _count_by_lang(ids: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in ids:
        out[lang_of(e)] = out.get(lang_of(e), 0) + 1
    return out


def max_rate_per_s(times_ms: list[int], width_ms: int = 1000) -> int:
    """The most requests in any window of ``width_ms`` (sliding, starting at a request)."""
    ts = sorted(times_ms)
    best = j = 0
    for i, t in enumerate(ts):
        while ts[j] <= t - width_ms:
            j += 1
        best = max(best, i - j + 1)
    return best


def steady_rate_per_s(times_ms: list[int], from_ms: int, skip_ms: int = 1000) -> float | None:
    """The median of whole 1 s buckets from ``from_ms + skip_ms`` to one
    second before the last request: the rate of a fleet running normally
    (None when fewer than two whole buckets)."""
    ts = sorted(t for t in times_ms if t >= from_ms + skip_ms)
    if not ts:
        return None
    end = ts[-1] - 1000
    counts = []
    b = from_ms + skip_ms
    while b + 1000 <= end:
        counts.append(sum(1 for t in ts if b <= t < b + 1000))
        b += 1000
    return float(statistics.median(counts)) if len(counts) >= 2 else None


def release_bound_per_s(normal_per_s: float, replicas: int) -> float:
    """docs/health.md section 4: after a recovery the fleet sends at most
    (1 + release.multiple) x normal + release.floor_per_s per replica."""
    r = HEALTH["release"]
    return (1 + r["multiple"]) * normal_per_s + r["floor_per_s"] * replicas


def summary_problems(s: dict, health: bool, need_holds: bool = True) -> list[str]:
    """What a replica's summary breaks: an event without a stop reason, an
    event left pending or held, and (format 3) a summary without the
    format-3 fields (docs/replica.md) or, with ``need_holds``, no
    ``circuit_open`` or ``paused`` hold at all."""
    out = []
    n = sum(int(v) for v in s["stop_reasons"].values())
    if n != s["events"]:
        out.append(f"{s['events']} events but {n} stop reasons (lost)")
    if s.get("pending", 0) or s.get("held", 0):
        out.append(f"pending {s.get('pending')} held {s.get('held')} at the end")
    if health:
        missing = [k for k in ("holds", "held", "probe_calls") if k not in s]
        if missing:
            out.append(f"summary lacks the format-3 fields {missing} (no health send loop?)")
        elif need_holds and s["holds"].get("circuit_open", 0) + s["holds"].get("paused", 0) == 0:
            out.append(f"no circuit_open or paused hold: holds {s['holds']}")
    return out
