"""The window's edge (docs/replica.md): the deadline is re-checked
immediately before the request's first byte is written (after the wait, the
store call, DNS and connect); past it nothing is sent and the event stops
retry_window_elapsed, not counted as an attempt."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from webhook_retry_policy import AsyncRetryPolicy, HttpResponse, RetryPolicy, StopReason
from webhook_retry_policy.dispatcher import LocalEndpoint, make_client
from webhook_retry_policy.dispatcher.metrics import DispatcherMetrics
from webhook_retry_policy.dispatcher.replica_run import Replica
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


async def test_the_replica_stops_a_late_attempt_retry_window_elapsed_without_counting_it(policy):
    with LocalEndpoint(204) as ep:
        async with make_client(allow_private_targets=True) as client:
            args = argparse.Namespace(events=1, deadline_ms=None, concurrency=1, endpoint_id="ep-edge", target=ep.url,
                                      attempt_deadline_ms=5000)
            metrics = DispatcherMetrics()
            replica = Replica(args, AsyncRetryPolicy(), policy, 13, client, metrics)
            now = replica.policy.clock.now_ms()
            late = await replica.send("evt-late", 2, ep.url, b"{}", now - policy.window_ms, now - 1)
            assert late is StopReason.RETRY_WINDOW_ELAPSED
            assert ep.requests == 0
            assert replica.tally.first_attempts + replica.tally.retries == 0
            assert metrics.attempts.labels("retry")._value.get() == 0
            assert metrics.delivery_duration._sum.get() == 0
            inside = await replica.send("evt-inside", 1, ep.url, b"{}", now, now + policy.window_ms)
            assert inside == HttpResponse(204, None) and ep.requests == 1 and replica.tally.first_attempts == 1


async def test_the_example_dispatcher_dead_letters_an_event_past_its_window_without_sending_it():
    from webhook_retry_policy import ManualClock
    from webhook_retry_policy.dispatcher import DEAD, Dispatcher
    from webhook_retry_policy.dispatcher.demo import example_document_toml

    clock = ManualClock()
    policy = AsyncRetryPolicy(clock=clock)
    document = policy.load_document_toml(example_document_toml())
    with LocalEndpoint(204) as ep:
        async with make_client(allow_private_targets=True) as client:
            d = Dispatcher(document, {"ep": ep.url}, policy, client=client, sleep=clock.sleep)
            await d.submit("evt-late", "ep", "notification", {})
            clock.advance(900_000)  # the notification class's whole window passes before its first attempt
            await d.run_until_idle()
            record = await d.store.get("evt-late")
            assert record.status == DEAD and record.dead_letter is not None
            assert record.dead_letter.stop_reason is StopReason.RETRY_WINDOW_ELAPSED and record.dead_letter.attempts == 0
            assert ep.requests == 0
            assert d.metrics.deadletter.labels("retry_window_elapsed")._value.get() == 1
            assert d.metrics.attempts.labels("first")._value.get() == 0
