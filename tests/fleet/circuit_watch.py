"""The circuit as the store holds it, sampled during a real-process run
(tests/fleet/bench-release): when it opened, its cooldown, the probes in
flight (docs/health.md section 3, draft 7). Read from Redis every
``every_ms`` on a connection of its own; the figures are then computed
against the endpoint's own log (Unix ms on the same machine's clock).

MONITOR counts script calls only (``EVALSHA``/``EVAL``), so these ``HMGET``
reads do not change the store-calls-per-attempt figure."""

from __future__ import annotations

import time

import redis
from sampler import Sampler

FIELDS = ("opened_at_ms", "cooldown_ms", "probes_in_flight")


class CircuitWatch(Sampler):
    """Samples ``(t_ms, opened_at_ms, cooldown_ms, probes_in_flight)`` of each key until stopped."""

    def __init__(self, port: int, keys: dict[str, str], every_ms: int = 25) -> None:
        super().__init__(every_ms)
        self.client = redis.Redis(port=port, socket_timeout=2)
        self.keys = keys
        self.samples: dict[str, list[tuple[int, int, int, int]]] = {name: [] for name in keys}

    def sample(self) -> None:
        for name, key in self.keys.items():
            try:
                vals = self.client.hmget(key, FIELDS)
            except redis.RedisError:
                continue
            t = int(time.time() * 1000)
            self.samples[name].append((t, *(int(v or 0) for v in vals)))

    def cooldowns(self, name: str) -> list[int]:
        """Each distinct opening's cooldown in order: ``[2000, 4000, ...]`` (a doubling is a new opening)."""
        out, last = [], None
        for _, opened, cooldown, _ in self.samples[name]:
            if opened and (opened, cooldown) != last:
                out.append(cooldown)
                last = (opened, cooldown)
        return out

    def cooldown_end_after(self, name: str, at_ms: int) -> int | None:
        """How long after ``at_ms`` the cooldown in force then ended (0 when over or closed; None: no sample)."""
        before = [s for s in self.samples[name] if s[0] <= at_ms]
        if not before:
            return None
        _, opened, cooldown, _ = before[-1]
        return max(0, opened + cooldown - at_ms) if opened else 0

    def open_at(self, name: str, t_ms: int) -> bool:
        """Whether the last sample at or before ``t_ms`` showed the circuit open."""
        before = [s for s in self.samples[name] if s[0] <= t_ms]
        return bool(before and before[-1][1])

    def most_in_flight(self, name: str) -> int:
        """The most probes the store counted in flight at once."""
        return max((s[3] for s in self.samples[name]), default=0)


def most_overlapping(starts_ms: list[int], latency_ms: int) -> int:
    """The most requests in flight at once at the endpoint, each taking ``latency_ms`` from its arrival."""
    edges = sorted([(t, 1) for t in starts_ms] + [(t + latency_ms, -1) for t in starts_ms])
    best = now = 0
    for _, d in edges:
        now += d
        best = max(best, now)
    return best
