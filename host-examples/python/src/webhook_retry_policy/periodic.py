"""A daemon thread that calls one function every ``interval_ms`` until
stopped: the file watch (:mod:`.artifact_watch`) and the rollout follower
(:mod:`.rollout.follower`) poll this way. A call that raises is reported
through ``on_error`` and the next one still comes: a poller never dies
silently."""

from __future__ import annotations

import threading
from collections.abc import Callable


class Periodic:
    def __init__(self, name: str, call: Callable[[], object], on_error: Callable[[Exception], None]) -> None:
        self._name, self._call, self._on_error = name, call, on_error
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, interval_ms: int) -> None:
        def loop() -> None:
            while not self._stop.wait(interval_ms / 1000):
                try:
                    self._call()
                except Exception as e:
                    self._on_error(e)

        self._thread = threading.Thread(target=loop, name=self._name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
