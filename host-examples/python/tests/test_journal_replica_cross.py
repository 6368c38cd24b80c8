"""One journal format for the example dispatcher and the replica (journal
format 1, docs/journal.md), asserted both ways through real runs: pending
events the example dispatcher journaled are read by the replica's reader and
delivered by a replica's ``--resume``, and pending events a drained replica
journaled (``--store``) are delivered by the example dispatcher, under the
policy recorded with them, never with an attempt number sent before."""

from __future__ import annotations

import asyncio
import base64
import json
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from test_replica import REPLICA

from webhook_retry_policy import AsyncRetryPolicy, RetryPolicy
from webhook_retry_policy.dispatcher import DELIVERED, PENDING, Dispatcher, DispatcherConfig, JournalEventStore, LocalEndpoint
from webhook_retry_policy.dispatcher.demo import example_document_toml
from webhook_retry_policy.dispatcher.journal_event import component_hasher, event_body
from webhook_retry_policy.dispatcher.journal_writer import read_file
from webhook_retry_policy.dispatcher.replica import main as replica_main

NOTIFY = {"window_ms": 60_000, "hard_cap": 8, "backoff": {"base_ms": 50, "factor": 2.0, "cap_ms": 200, "jitter": "full"},
          "budget": {"ratio": 1.0, "window_ms": 10_000, "min_sample": 1000, "sliding": True}}
STORM = {"window_ms": 60_000, "hard_cap": 16, "backoff": {"base_ms": 5, "factor": 2.0, "cap_ms": 50, "jitter": "full"},
         "budget": {"ratio": 1.0, "window_ms": 10_000, "min_sample": 1_000_000, "sliding": True}}


class Receiver:
    """Answers the replica (``x-attempt``) with ``replica_status`` after
    ``replica_delay_s`` and the example dispatcher (``webhook-attempt``) with
    ``dispatcher_status``, recording (who, event id, attempt, body)."""

    def __init__(self, *, replica_status: int, dispatcher_status: int, replica_delay_s: float = 0.0) -> None:
        self.replica_status, self.dispatcher_status, self.replica_delay_s = replica_status, dispatcher_status, replica_delay_s
        self.seen: list[tuple[str, str, int, bytes]] = []
        self._lock = threading.Lock()

    def __call__(self, headers: dict[str, str], body: bytes) -> int:
        if "webhook-attempt" in headers:
            who, event_id, n, status = "dispatcher", headers["webhook-id"], headers["webhook-attempt"], self.dispatcher_status
        else:
            who, event_id, n, status = "replica", headers.get("x-event-id", ""), headers.get("x-attempt", "0"), self.replica_status
            time.sleep(self.replica_delay_s)
        with self._lock:
            self.seen.append((who, event_id, int(n), body))
        return status

    def sent(self, who: str) -> list[tuple[str, int, bytes]]:
        with self._lock:
            return [(e, n, b) for w, e, n, b in self.seen if w == who]


def test_pending_events_the_example_dispatcher_journaled_are_read_and_delivered_by_a_replica_resume(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = str(tmp_path / "dispatcher.journal")
    storm = tmp_path / "storm.json"
    storm.write_text(json.dumps({"version": "cross", "classes": {"storm": STORM}}))
    receiver = Receiver(replica_status=204, dispatcher_status=503)
    with LocalEndpoint(204, answer=receiver) as ep:
        async def dispatch() -> dict[str, int]:
            policy = AsyncRetryPolicy()
            document = policy.load_document(json.dumps({"version": "cross-notify", "classes": {"notify": NOTIFY}}))
            store = JournalEventStore(journal, policy)
            d = Dispatcher(document, {"ep": ep.url}, policy, store=store,
                           config=DispatcherConfig(allow_private_targets=True))
            for i in range(3):
                await d.submit(f"d{i}", "ep", "notify", {"i": i})
            await d.run_until(policy.clock.now_ms() + 30)  # first attempts (503), retries scheduled
            await d.client.aclose()
            store.close()
            assert all(r.status == PENDING and r.attempt >= 1 for r in store.events.values())
            return {e: r.attempt for e, r in store.events.items()}

        attempts = asyncio.run(dispatch())
        records = read_file(journal, component_hasher(RetryPolicy()))  # the replica's reader
        assert {r["event_id"]: (r["status"], r["attempts"]) for r in records} == {
            e: ("pending", n) for e, n in attempts.items()}
        for r in records:
            assert r["policy"] == NOTIFY and r["target"] == ep.url and r["class"] == "notify"
            assert base64.b64decode(r["body_b64"]) == event_body(r["event_id"], "notify", {"i": int(r["event_id"][1:])})
        code = replica_main(["--target", ep.url, "--endpoint-id", "ep-replica", "--events", "0", "--policy", str(storm),
                             "--resume", journal, "--allow-private-targets"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["events"] == 3 and summary["stop_reasons"]["delivered"] == 3 and summary["pending"] == 0
    resumed = receiver.sent("replica")
    assert sorted((e, n) for e, n, _ in resumed) == sorted((e, n + 1) for e, n in attempts.items())  # next number
    for event_id, _n, body in resumed:  # the body journaled with the event, as admitted
        assert body == event_body(event_id, "notify", {"i": int(event_id[1:])})


def _drained_replica_journal(tmp_path: Path, receiver: Receiver, url: str) -> tuple[str, dict]:
    journal = str(tmp_path / "replica.journal")
    policy = tmp_path / "storm.json"
    policy.write_text(json.dumps({"version": "cross-storm", "classes": {"storm": STORM}}))
    proc = subprocess.Popen([str(REPLICA), "--target", url, "--endpoint-id", "ep-replica", "--events", "200",
                             "--concurrency", "4", "--policy", str(policy), "--drain-ms", "3000", "--store", journal,
                             "--allow-private-targets"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(receiver.sent("replica")) < 6 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    return journal, json.loads(out)


async def test_pending_events_a_drained_replica_journaled_are_delivered_by_the_example_dispatcher_under_their_policy(
        tmp_path: Path) -> None:
    receiver = Receiver(replica_status=503, dispatcher_status=204, replica_delay_s=0.3)
    with LocalEndpoint(204, answer=receiver) as ep:
        journal, summary = await asyncio.to_thread(_drained_replica_journal, tmp_path, receiver, ep.url)
        assert summary["drained"] is True and summary["pending"] > 0
        policy = AsyncRetryPolicy()
        document = policy.load_document_toml(example_document_toml())
        assert "storm" not in {c.name for c in document.classes}  # only the recorded policy can decide these
        store = JournalEventStore(journal, policy)
        pending = {e: r.attempt for e, r in store.events.items() if r.status == PENDING}
        assert len(pending) == summary["pending"] and store.reloaded == set(pending)
        d = Dispatcher(document, {}, policy, store=store, config=DispatcherConfig(allow_private_targets=True))
        await d.run_until_idle()
        await d.client.aclose()
        store.close()
    assert all(store.events[e].status == DELIVERED for e in pending)
    by_dispatcher = receiver.sent("dispatcher")
    assert sorted((e, n) for e, n, _ in by_dispatcher) == sorted((e, n + 1) for e, n in pending.items())
    sent_by_replica: dict[str, int] = {}
    for event_id, n, _ in receiver.sent("replica"):
        sent_by_replica[event_id] = max(sent_by_replica.get(event_id, 0), n)
    assert all(sent_by_replica.get(e, 0) <= n for e, n in pending.items())  # no attempt number sent twice
    after = {r["event_id"]: r for r in read_file(journal, component_hasher(RetryPolicy()))}
    assert all(after[e]["status"] == "delivered" and after[e]["policy"] == STORM for e in pending)
