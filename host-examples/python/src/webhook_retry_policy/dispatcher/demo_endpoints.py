"""The demo's three loopback endpoints (204 healthy, 503 unavailable, 410
gone), optionally slow (``delay_ms`` before each answer, so a drain has
attempts in flight to wait for), each request recorded by its
``X-Event-Id`` and ``X-Attempt``: the demo's summary says how many
requests arrived and whether any attempt of an event arrived twice."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable

from .endpoints import LocalEndpoint


class DemoEndpoints:
    def __init__(self, delay_ms: int = 0) -> None:
        self.delay_s = max(0, delay_ms) / 1000
        self.received: Counter[tuple[str, str]] = Counter()  # (event id, attempt) -> requests
        self._lock = threading.Lock()
        self.healthy = LocalEndpoint(204, answer=self._answer(204))
        self.unavailable = LocalEndpoint(503, answer=self._answer(503))
        self.gone = LocalEndpoint(410, answer=self._answer(410))

    def _answer(self, status: int) -> Callable[[dict[str, str], bytes], int]:
        def answer(headers: dict[str, str], body: bytes) -> int:
            with self._lock:
                self.received[(headers.get("x-event-id", ""), headers.get("x-attempt", ""))] += 1
            if self.delay_s:
                time.sleep(self.delay_s)
            return status

        return answer

    def urls(self) -> dict[str, str]:
        return {"ep_healthy": self.healthy.url, "ep_unavailable": self.unavailable.url, "ep_gone": self.gone.url}

    def requests(self) -> int:
        with self._lock:
            return sum(self.received.values())

    def sent_twice(self) -> int:
        """Attempts (event id, attempt number) that arrived more than once."""
        with self._lock:
            return sum(1 for n in self.received.values() if n > 1)

    def close(self) -> None:
        for e in (self.healthy, self.unavailable, self.gone):
            e.close()

    def __enter__(self) -> DemoEndpoints:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
