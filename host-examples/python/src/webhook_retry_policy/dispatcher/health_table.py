"""Per replica, per endpoint: the view, the pacer, the admissions and the
probe guard (docs/health-dispatch.md section 1), in memory only (after a
restart every view is missing, which the gate reads as stale).

* ``view``: the newest store reply's ``health-view`` (a reply older than
  the kept one does not replace it; a failed call changes nothing).
* ``pacer``: the release token bucket, replaced by every ``gate`` /
  ``after-probe`` answer; its ``normal_per_s`` is set from the component's
  ``normal-per-s`` before each of them.
* ``admissions``: new events admitted to the endpoint, counted in the class
  budget's buckets (``current``, ``previous``; rolled to the instant first).
* ``probe_busy_until_ms`` / ``probe_in_flight``: one probe call per
  endpoint and probe window (section 2).

At most :data:`MAX_ENDPOINTS` entries; past that the least recently used
one is dropped (its view is then missing: the gate fails open; its pacer
is a new one).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from ..types import HealthView, Pacer

MAX_ENDPOINTS = 10_000
NEW_PACER = Pacer(0.0, 0, 0.0)


@dataclass
class EndpointHealth:
    view: HealthView | None = None
    pacer: Pacer = NEW_PACER
    bucket: int = 0
    current: int = 0
    previous: int = 0
    probe_busy_until_ms: int = 0
    probe_in_flight: bool = False

    def roll(self, now_ms: int, window_ms: int) -> None:
        """Move the admission buckets to ``now_ms``'s (the next one: current
        becomes previous; any later one: both zero)."""
        b = now_ms // max(1, window_ms)
        if b == self.bucket:
            return
        if b == self.bucket + 1:
            self.previous, self.current = self.current, 0
        elif b > self.bucket:
            self.previous = self.current = 0
        else:
            return  # an older instant (a clock step back): counted in the newest bucket
        self.bucket = b

    def admit(self, now_ms: int, window_ms: int) -> None:
        self.roll(now_ms, window_ms)
        self.current += 1

    def keep_view(self, view: HealthView | None) -> None:
        if view is not None and (self.view is None or view.as_of_ms >= self.view.as_of_ms):
            self.view = view


class EndpointTable:
    """``EndpointHealth`` per endpoint id, least recently used dropped past ``limit``."""

    def __init__(self, limit: int = MAX_ENDPOINTS) -> None:
        self.limit = limit
        self._entries: OrderedDict[str, EndpointHealth] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, endpoint_id: str) -> EndpointHealth:
        entry = self._entries.get(endpoint_id)
        if entry is None:
            entry = self._entries[endpoint_id] = EndpointHealth()
            while len(self._entries) > self.limit:
                self._entries.popitem(last=False)
        else:
            self._entries.move_to_end(endpoint_id)
        return entry
