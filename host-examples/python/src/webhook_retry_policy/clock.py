"""The host clock (WIT import ``clock``): wall-clock milliseconds since the
Unix epoch, the same clock the first-attempt instant is persisted with."""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> int: ...


class SystemClock:
    """``time.time_ns() // 1_000_000``."""

    @staticmethod
    def now_ms() -> int:
        return time.time_ns() // 1_000_000


class ManualClock:
    """A clock that moves only when told to (tests, simulations: the demo's
    driver lives through a 24-hour retry window in milliseconds)."""

    def __init__(self, now_ms: int = 1_700_000_000_000) -> None:
        self._now_ms = now_ms
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        with self._lock:
            return self._now_ms

    def set(self, now_ms: int) -> None:
        with self._lock:
            self._now_ms = now_ms

    def advance(self, by_ms: int) -> None:
        with self._lock:
            self._now_ms += by_ms
