"""The window's edge (docs/replica.md): the deadline is re-checked
immediately before the request's first byte is written (after the wait, the
store call, DNS and connect); past it nothing is sent and the event stops
retry_window_elapsed, not counted as an attempt."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from webhook_retry_policy import HttpResponse, RetryPolicy
from webhook_retry_policy.dispatcher import LocalEndpoint, make_client
from webhook_retry_policy.dispatcher.send_window import WindowElapsed, check, send_before
from webhook_retry_policy.dispatcher.transport import attempt


def _ticks(*values: int):
    """A clock returning ``values`` in turn, then the last one forever."""
    it: Iterator[int] = iter(values)
    last = [values[-1]]

    def now_ms() -> int:
        last[0] = next(it, last[0])
        return last[0]

    return now_ms


def test_the_bound_is_checked_on_entry_and_whenever_asked_and_absent_outside():
    check()  # no bound: nothing to check
    with pytest.raises(WindowElapsed):
        with send_before(lambda: 100, 100):  # at the edge: not before it
            pass
    with send_before(_ticks(99, 99, 100), 100):
        check()
        with pytest.raises(WindowElapsed, match="ended at 100 ms, now 100 ms"):
            check()
    check()


async def _post(client, url: str) -> object:
    return await attempt(client, url, content=b"{}", headers={}, policy=RetryPolicy(), now_ms=0, deadline_ms=5000)


async def test_a_deadline_passing_during_dns_and_connect_sends_nothing():
    with LocalEndpoint(204) as ep:
        async with make_client(allow_private_targets=True) as client:
            # entry: 99 (before the edge); by the first write (after resolve + connect): 100
            with pytest.raises(WindowElapsed), send_before(_ticks(99, 100), 100):
                await _post(client, ep.url)
            assert ep.requests == 0
            with send_before(lambda: 5, 100):  # the client still works for an event inside its window
                assert await _post(client, ep.url) == HttpResponse(204, None)
            assert ep.requests == 1


async def test_on_a_pooled_connection_the_write_is_checked_too():
    with LocalEndpoint(204) as ep:
        async with make_client(allow_private_targets=True) as client:
            assert await _post(client, ep.url) == HttpResponse(204, None)  # opens the pooled connection
            with pytest.raises(WindowElapsed), send_before(_ticks(99, 100), 100):
                await _post(client, ep.url)
            assert ep.requests == 1




