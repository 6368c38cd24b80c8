"""The window's edge (docs/replica.md): no attempt is started at or after
the event's ``first_attempt_ms + window_ms`` by the replica's clock. The
dispatcher checks it before an attempt and, through :func:`send_before`,
the connection checks it again immediately before the request's first byte
is written (after any wait, store call, DNS lookup and connect): past it,
:class:`WindowElapsed` is raised there and nothing is sent.

The bound travels in a context variable, so it reaches httpcore's network
stream (``destination._HeadCappedStream.write``) inside the task that sends
the request, pooled connection or new one alike.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

NowMs = Callable[[], int]

_bound: contextvars.ContextVar[tuple[NowMs, int] | None] = contextvars.ContextVar("send_before", default=None)


class WindowElapsed(Exception):
    """The event's window closed before its request was written; nothing was sent."""

    def __init__(self, now_ms: int, end_ms: int) -> None:
        super().__init__(f"the retry window ended at {end_ms} ms, now {now_ms} ms: not sent")


@contextmanager
def send_before(now_ms: NowMs, end_ms: int) -> Iterator[None]:
    """Within this block a request is written only while ``now_ms() < end_ms``."""
    token = _bound.set((now_ms, end_ms))
    try:
        check()
        yield
    finally:
        _bound.reset(token)


def check() -> None:
    """Raise :class:`WindowElapsed` when the current bound has passed (no bound: nothing to check)."""
    bound = _bound.get()
    if bound is None:
        return
    now_ms, end_ms = bound
    now = now_ms()
    if now >= end_ms:
        raise WindowElapsed(now, end_ms)
