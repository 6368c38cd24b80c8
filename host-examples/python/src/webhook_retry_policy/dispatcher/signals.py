"""SIGTERM and SIGINT (docs/replica.md "drain"): from the start of ``main``
a signal is remembered (:func:`signals_caught`) instead of killing the
process mid-setup; once the run starts, :func:`drain_on_signals` turns the
first one into a drain and ignores the rest."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Callable, Iterator
from typing import Any

log = logging.getLogger("webhook_retry_policy.replica")
EARLY_SIGNALS: list[str] = []  # received before the run started


@contextlib.contextmanager
def signals_caught() -> Iterator[None]:
    """Remember SIGTERM/SIGINT until the run takes over; the previous handlers
    are back afterwards (``main`` may run inside another program, a test)."""
    def remember(signum: int, _frame: object) -> None:
        EARLY_SIGNALS.append(signal.Signals(signum).name)

    previous: dict[signal.Signals, Any] = {}
    with contextlib.suppress(ValueError):  # not the main thread: signals are not ours to handle
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, remember)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        EARLY_SIGNALS.clear()


@contextlib.contextmanager
def drain_on_signals(drain: Callable[[], None], drain_ms: int) -> Iterator[None]:
    """Within the block the first SIGTERM/SIGINT calls ``drain`` (a signal
    during the setup: at once); afterwards, while the summary is written,
    signals are ignored (never the default kill)."""
    loop = asyncio.get_running_loop()
    fired: list[str] = []

    def on_signal(name: str) -> None:
        if not fired:
            fired.append(name)
            log.warning("%s: draining (in-progress attempts get up to %d ms; no new attempt starts)", name, drain_ms)
            drain()

    if EARLY_SIGNALS:
        on_signal(EARLY_SIGNALS[0])
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread / no signals here
            loop.add_signal_handler(sig, on_signal, sig.name)
            installed.append(sig)
    try:
        yield
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
            signal.signal(sig, signal.SIG_IGN)
