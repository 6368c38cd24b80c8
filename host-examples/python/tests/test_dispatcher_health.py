"""The example dispatcher with a format-3 document (``health_document``)
against real loopback endpoints on a manual clock: a 429's pause holds the
endpoint's events durably, a restart resumes them from the journal, a
class without health runs as before beside it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from webhook_retry_policy import AsyncRetryPolicy, ManualClock
from webhook_retry_policy.dispatcher import DELIVERED, Dispatcher, JournalEventStore, LocalEndpoint
from webhook_retry_policy.dispatcher.dispatcher_health import policy_document

BASE = {"window_ms": 600_000, "hard_cap": 8, "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 8000, "jitter": "none"}}
DOC = {"version": "h-1", "classes": {"health": {**BASE, "health": {"pause": {"max_ms": 60_000}}}, "plain": BASE}}


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
async def client():
    async with httpx.AsyncClient(timeout=5.0) as c:
        yield c


def make(clock, urls, client, **kw):
    policy = AsyncRetryPolicy(clock=clock)
    doc = policy.load_health_document(json.dumps(DOC))
    return Dispatcher(policy_document(doc), urls, policy, client=client, sleep=clock.sleep, health_document=doc, **kw)


def pausing(clock, seen, pause_ms=10_000):
    start = clock.now_ms()

    def answer(headers, body):
        seen.append((clock.now_ms() - start, headers["webhook-id"]))
        return 429 if clock.now_ms() - start < pause_ms else 204

    return answer


async def test_a_429_pauses_the_endpoint_no_request_before_its_end_and_the_held_events_leave_after(clock, client):
    seen: list[tuple[int, str]] = []
    with LocalEndpoint(204, retry_after="10", answer=pausing(clock, seen)) as ep:
        d = make(clock, {"ep": ep.url}, client)
        await d.submit("e0", "ep", "health", {})
        await d.run_until(clock.now_ms() + 500)
        for i in range(1, 4):
            await d.submit(f"e{i}", "ep", "health", {})
        await d.run_until_idle()
    assert [(await d.store.get(f"e{i}")).status for i in range(4)] == [DELIVERED] * 4
    assert not [t for t, _ in seen if 0 < t < 10_000], seen
    assert sorted(e for _, e in seen if e != "e0") == ["e1", "e2", "e3"]
    assert d.metrics.holds.labels("paused")._value.get() == 3 and d.metrics.held_events._value.get() == 0
    assert all(d.store.events[f"e{i}"].held_ms > 0 for i in range(1, 4))


async def test_a_held_event_survives_a_restart_and_is_delivered_after_resume(tmp_path: Path, clock, client):
    path = str(tmp_path / "events.journal")
    seen: list[tuple[int, str]] = []
    with LocalEndpoint(204, retry_after="10", answer=pausing(clock, seen)) as ep:
        d1 = make(clock, {"ep": ep.url}, client, store=JournalEventStore(path))
        await d1.submit("e0", "ep", "health", {})
        await d1.run_until(clock.now_ms() + 500)
        await d1.submit("e1", "ep", "health", {})
        await d1.run_until(clock.now_ms() + 500)
        held = await d1.store.get("e1")
        assert held.hold_reason == "paused" and held.attempt == 0
        d1.store.close()  # the process ends while e1 is held
        assert b'"status":"held"' in Path(path).read_bytes()
        d2 = make(clock, {"ep": ep.url}, client, store=JournalEventStore(path))
        back = await d2.store.get("e1")
        assert (back.hold_reason, back.held_until_ms) == ("paused", held.held_until_ms)
        await d2.run_until_idle()
        r = await d2.store.get("e1")
        assert r.status == DELIVERED and r.held_ms > 0 and r.hold_reason is None
        d2.store.close()
    assert [e for t, e in seen if e == "e1"] == ["e1"] and min(t for t, e in seen if e == "e1") >= 10_000


async def test_a_class_without_health_beside_it_runs_as_format_2(clock, client):
    seen: list[tuple[int, str]] = []
    with LocalEndpoint(204, retry_after="10", answer=pausing(clock, seen)) as ep:
        d = make(clock, {"ep": ep.url}, client)
        await d.submit("h0", "ep", "health", {})
        await d.run_until(clock.now_ms() + 500)
        await d.submit("p0", "ep", "plain", {})
        await d.run_until_idle()
    assert (await d.store.get("p0")).status == DELIVERED
    assert [t for t, e in seen if e == "p0"][0] < 10_000, "no gate for a format-2 class: sent at once"
    assert (await d.store.get("p0")).health is None and d.metrics.holds.labels("paused")._value.get() == 0


async def test_the_dispatcher_replays_a_dead_letter_once_as_a_new_event_it_then_delivers(tmp_path: Path, clock, client):
    from webhook_retry_policy.dispatcher.replay import ReplayFilter

    status = {"code": 400}
    with LocalEndpoint(204, answer=lambda h, b: status["code"]) as ep:
        d = make(clock, {"ep": ep.url, "other": ep.url}, client, store=JournalEventStore(str(tmp_path / "j")))
        await d.submit("x", "ep", "health", {"k": 1})
        await d.submit("y", "other", "plain", {"k": 2})
        await d.run_until_idle()
        assert (await d.store.get("x")).stop_reason.value == "terminal_response"
        out = await d.replay(ReplayFilter(endpoint_id="ep"))
        assert out == {"replayed": 1, "already_replayed": 0, "skipped_no_class": 0, "ids": ["x~r1"]}
        assert (await d.replay(ReplayFilter(endpoint_id="ep")))["already_replayed"] == 1
        assert d.metrics.replayed._value.get() == 1
        new = await d.store.get("x~r1")
        assert (new.replay_of, new.attempt, new.health is not None) == ("x", 0, True)
        assert new.replayed_dead_letter is not None and new.replayed_dead_letter["event_id"] == "x"
        status["code"] = 204
        await d.run_until_idle()
        assert (await d.store.get("x~r1")).status == DELIVERED and (await d.store.get("y")).replayed_as is None
        d.store.close()
    reopened = JournalEventStore(str(tmp_path / "j"))
    try:
        assert "x" not in reopened.reloaded and reopened.events["x~r1"].status == DELIVERED
    finally:
        reopened.close()


async def test_a_json_reload_read_by_load_health_document_turns_the_gate_on_for_new_events(clock, client):
    from webhook_retry_policy.reload import DocumentHolder

    policy = AsyncRetryPolicy(clock=clock)
    plain = {"version": "p-1", "classes": {"health": BASE}}
    holder = DocumentHolder(policy, policy.load_document(json.dumps(plain)))
    seen: list[tuple[int, str]] = []
    with LocalEndpoint(204, retry_after="10", answer=pausing(clock, seen)) as ep:
        d = Dispatcher(holder, {"ep": ep.url}, policy, client=client, sleep=clock.sleep)
        assert d.health is None
        assert holder.reload_text(json.dumps(DOC)).ok and holder.health is not None
        await d.submit("e0", "ep", "health", {})
        await d.run_until(clock.now_ms() + 500)
        await d.submit("e1", "ep", "health", {})
        await d.run_until_idle()
    e1 = d.store.events["e1"]
    assert d.health is not None and e1.health is not None and e1.status == DELIVERED and e1.held_ms > 0
    assert min(t for t, e in seen if e == "e1") >= 10_000


def test_a_record_held_for_a_disabled_endpoint_is_written_pending_without_its_old_hold() -> None:
    from webhook_retry_policy.dispatcher import HELD
    from webhook_retry_policy.dispatcher.journal_event import to_record

    policy = AsyncRetryPolicy(clock=ManualClock())
    doc = policy.load_health_document(json.dumps(DOC))
    d = Dispatcher(policy_document(doc), {"ep": "http://127.0.0.1:9/hook"}, policy, health_document=doc)
    record = asyncio.run(d.submit("e", "ep", "health", {}))
    record.hold_reason, record.held_until_ms, record.held_since_ms = "paused", 5, 1
    assert to_record(record)["status"] == "held"
    record.status = HELD
    rec = to_record(record)
    assert (rec["status"], rec["hold_reason"], rec["held_until_ms"], rec["held_since_ms"]) == ("pending", None, 0, 0)
