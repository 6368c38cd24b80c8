"""The example dispatcher against real loopback endpoints, with a manual
clock so 15-minute to 24-hour windows pass in seconds."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
import pytest

from webhook_retry_policy import AsyncRetryPolicy, ManualClock, StopReason
from webhook_retry_policy.dispatcher import (
    DEAD,
    DELIVERED,
    HELD,
    Dispatcher,
    DispatcherMetrics,
    JournalEventStore,
    LocalEndpoint,
    LocalEndpoints,
)
from webhook_retry_policy.dispatcher.demo import example_document_toml


@pytest.fixture(scope="module")
def endpoints():
    with LocalEndpoints() as eps:
        yield eps


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def policy(clock):
    return AsyncRetryPolicy(clock=clock)


@pytest.fixture
def document(policy):
    return policy.load_document_toml(example_document_toml())


@pytest.fixture
async def client():
    async with httpx.AsyncClient(timeout=5.0) as c:
        yield c


def make(document, urls, policy, client, clock, **kw):
    return Dispatcher(document, urls, policy, client=client, sleep=clock.sleep, **kw)


async def test_events_to_a_healthy_endpoint_are_delivered_with_one_request_each(endpoints, document, policy, client, clock):
    d = make(document, endpoints.urls(), policy, client, clock)
    before = endpoints.healthy.requests
    for i in range(5):
        await d.submit(f"ok_{i}", "ep_healthy", "notification", {"i": i})
    await d.run_until_idle()
    assert [(await d.store.get(f"ok_{i}")).status for i in range(5)] == [DELIVERED] * 5
    assert endpoints.healthy.requests - before == 5
    assert d.metrics.delivered._value.get() == 5


async def test_a_410_dead_letters_terminal_disables_the_endpoint_and_holds_its_other_events(document, policy, client, clock):
    with LocalEndpoint(410) as gone:
        d = make(document, {"ep_gone": gone.url}, policy, client, clock)
        await d.submit("g1", "ep_gone", "ledger", {})
        await d.run_until_idle()
        await d.submit("g2", "ep_gone", "ledger", {})
        await d.run_until_idle()
        first, second = await d.store.get("g1"), await d.store.get("g2")
        assert first.status == DEAD and first.dead_letter.stop_reason is StopReason.TERMINAL_RESPONSE
        assert "ep_gone" in d.store.disabled_endpoints and second.status == HELD and gone.requests == 1
        assert 'webhook_deadletter_total{stop_reason="terminal_response"} 1.0' in d.metrics.text()


async def test_an_always_503_endpoint_gets_the_admitted_schedule_then_max_attempts(document, policy, client, clock):
    with LocalEndpoint(503) as down:
        d = make(document, {"ep_down": down.url}, policy, client, clock)
        record = await d.submit("n1", "ep_down", "notification", {})
        admitted = record.admission.schedule.max_attempts
        wall = time.monotonic()
        await d.run_until_idle()
        r = await d.store.get("n1")
        assert r.status == DEAD and r.dead_letter.stop_reason in (StopReason.MAX_ATTEMPTS_EXHAUSTED, StopReason.RETRY_WINDOW_ELAPSED)
        assert down.requests == r.dead_letter.attempts <= admitted == 13
        assert r.dead_letter.elapsed_ms <= 900_000 and time.monotonic() - wall < 30


async def test_a_ledger_event_keeps_trying_for_a_simulated_day_in_seconds(document, policy, client, clock):
    with LocalEndpoint(503) as down:
        d = make(document, {"ep_down": down.url}, policy, client, clock)
        await d.submit("l1", "ep_down", "ledger", {})
        wall = time.monotonic()
        await d.run_until_idle()
        r = await d.store.get("l1")
        assert r.dead_letter.elapsed_ms > 20 * 3_600_000 and r.dead_letter.elapsed_ms <= 86_400_000
        assert time.monotonic() - wall < 30


async def test_a_burst_against_a_broken_endpoint_trips_the_budget_and_metrics_show_it(document, policy, client, clock):
    metrics = DispatcherMetrics()
    port = metrics.serve(0)
    try:
        with LocalEndpoint(503) as down:
            d = make(document, {"ep_down": down.url}, policy, client, clock, metrics=metrics)
            for i in range(60):
                await d.submit(f"b{i}", "ep_down", "notification", {})
            await d.run_until_idle()
            reasons = {r.dead_letter.stop_reason for r in await d.store.dead_letters()}
            assert StopReason.RETRY_BUDGET_EXHAUSTED in reasons
            assert down.requests < 60 * 13  # the budget cut the storm short
            scrape = (await client.get(f"http://127.0.0.1:{port}/metrics")).text
            assert 'webhook_deadletter_total{stop_reason="retry_budget_exhausted"}' in scrape
    finally:
        metrics.close()


async def test_the_admission_persists_and_a_restarted_dispatcher_keeps_the_first_attempt_instant(tmp_path, document, client, clock):
    path = str(tmp_path / "events.json")
    with LocalEndpoint(503) as down:
        p1 = AsyncRetryPolicy(clock=clock)
        d1 = make(document, {"ep_down": down.url}, p1, client, clock, store=JournalEventStore(path))
        admitted = await d1.submit("p1", "ep_down", "notification", {"k": 1})
        await d1.run_until(clock.now_ms() + 60_000)
        assert (await d1.store.get("p1")).attempt >= 2

        d1.store.close()  # the process ends: its lock on the journal goes with it
        p2 = AsyncRetryPolicy(clock=clock)  # a new process: new policy, store re-read from disk
        d2 = make(document, {"ep_down": down.url}, p2, client, clock, store=JournalEventStore(path))
        reloaded = await d2.store.get("p1")
        assert reloaded.admission == admitted.admission and reloaded.attempt >= 2
        await d2.run_until_idle()
        r = await d2.store.get("p1")
        assert r.status == DEAD and r.dead_letter.elapsed_ms == r.history[-1]["at_ms"] - admitted.admission.first_attempted_at_ms


async def test_an_unreachable_endpoint_is_a_retryable_connect_error(document, policy, client, clock):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again before use: connection refused
    d = make(document, {"ep_closed": f"http://127.0.0.1:{port}/hook"}, policy, client, clock)
    await d.submit("c1", "ep_closed", "notification", {})
    await d.run_until_idle()
    r = await d.store.get("c1")
    assert "connect_error" in r.history[0]["outcome"] and r.attempt > 1


async def test_an_event_reloaded_after_its_window_is_resumed_into_a_dead_letter_without_a_request(tmp_path, document, client, clock):
    path = str(tmp_path / "events.json")
    with LocalEndpoint(503) as down:
        d1 = make(document, {"ep_down": down.url}, AsyncRetryPolicy(clock=clock), client, clock,
                  store=JournalEventStore(path))
        await d1.submit("late", "ep_down", "notification", {})
        await d1.run_until(clock.now_ms() + 10_000)
        sent = down.requests
        d1.store.close()
        clock.advance(3_600_000)  # the dispatcher was down for an hour: the 15-minute window elapsed
        d2 = make(document, {"ep_down": down.url}, AsyncRetryPolicy(clock=clock), client, clock,
                  store=JournalEventStore(path))
        await d2.run_until_idle()
        r = await d2.store.get("late")
        assert r.status == DEAD and r.dead_letter.stop_reason is StopReason.RETRY_WINDOW_ELAPSED
        assert down.requests == sent


async def test_a_retry_after_that_is_not_a_number_or_a_date_is_ignored_by_the_dispatcher(document, policy, client, clock):
    with LocalEndpoint(503, retry_after="\u00b2") as odd:  # the old dispatcher crashed on int("²")
        d = make(document, {"ep_odd": odd.url}, policy, client, clock)
        await d.submit("ra", "ep_odd", "notification", {})
        await d.run_until_idle()
        r = await d.store.get("ra")
        assert r.status == DEAD and r.attempt > 1


async def test_store_and_policy_disagreements_are_counted_in_the_metric(document, clock, client):
    from webhook_retry_policy import BucketCounts, BudgetCounts, Reservation

    class Lenient:
        async def call(self, request, budget, now_ms):
            return Reservation(request.op.value != "record", BudgetCounts(BucketCounts(10_000, 9_000), BucketCounts(0, 0)))

    metrics = DispatcherMetrics()
    with LocalEndpoint(503) as down:
        d = make(document, {"ep_down": down.url}, AsyncRetryPolicy(Lenient(), clock), client, clock, metrics=metrics)
        await d.submit("dis", "ep_down", "notification", {})
        await d.run_until(clock.now_ms() + 5_000)
    assert d.policy.budget_disagreements >= 1
    assert f"webhook_budget_disagreements_total {float(d.policy.budget_disagreements)}" in metrics.text()


async def test_the_policy_info_gauge_follows_an_artifact_swap_on_the_next_round(document, policy, client, clock, caplog):
    import logging

    from webhook_retry_policy import instance
    from webhook_retry_policy.artifact import current_artifact, swap_artifact
    from webhook_retry_policy.component_reader import append_custom_section

    caplog.set_level(logging.INFO, logger="webhook_retry_policy.artifact")
    before = current_artifact()
    with LocalEndpoint(204) as ok:
        d = make(document, {"ep": ok.url}, policy, client, clock)
        assert any(r.getMessage() == f"policy artifact loaded sha256={before.info.sha256} abi=webhook:retry-policy@0.3.0 "
                   f"document_version={d.document.version} source={before.info.source}" for r in caplog.records), \
            "the load line names the version of the document the dispatcher runs, as /metrics does"
        line = 'webhook_policy_info{{abi="webhook:retry-policy@0.3.0",artifact_sha256="{}",document_version="{}"}} 1.0'
        assert line.format(before.info.sha256, d.document.version) in d.metrics.text()
        shipped = (Path(__file__).resolve().parents[1] / "src" / "webhook_retry_policy" / "retry_policy.wasm").read_bytes()
        try:
            new = swap_artifact(append_custom_section(shipped, "extra", b"dispatcher"))
            await d.submit("s1", "ep", "notification", {})
            await d.run_until_idle()
            text = d.metrics.text()
            assert line.format(new.sha256, d.document.version) in text and before.info.sha256 not in text
            assert (await d.store.get("s1")).status == DELIVERED
            logged = [r.getMessage() for r in caplog.records if r.name == "webhook_retry_policy.artifact"]
            assert any(m.startswith(f"policy artifact swapped sha256={before.info.sha256} -> {new.sha256} ")
                       and f" document_version={d.document.version} " in m for m in logged), logged
        finally:
            instance.activate(before)


async def test_a_drained_dispatcher_takes_no_event_and_starts_no_attempt_leaving_its_events_pending(document, policy, client, clock):
    from webhook_retry_policy.dispatcher import PENDING, Draining

    with LocalEndpoint(204) as ok:
        d = make(document, {"ep": ok.url}, policy, client, clock)
        await d.submit("before", "ep", "notification", {})
        d.drain()
        with pytest.raises(Draining):
            await d.submit("after", "ep", "notification", {})
        await d.run_until_idle()
        assert ok.requests == 0 and (await d.store.get("before")).status == PENDING
        assert "after" not in d.store.events
