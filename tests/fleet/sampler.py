"""A background thread that calls ``sample()`` every ``every_ms`` until
stopped: the shape of the bench's watchers (``circuit_watch.py``,
``journal_watch.py``). ``stop()`` joins the thread, then calls
``finish()`` once (a last sample, closing what the watcher holds)."""

from __future__ import annotations

import threading


class Sampler:
    def __init__(self, every_ms: int) -> None:
        self.every_s = every_ms / 1000
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._finished = False

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        if not self._finished:
            self._finished = True
            self.finish()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.every_s)

    def sample(self) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        pass
