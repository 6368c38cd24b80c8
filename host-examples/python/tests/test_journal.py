"""The example dispatcher's journal store on journal format 1
(docs/journal.md): fsynced appends, a torn last record cut off without
harming later appends, one writer (the pid lock file), compaction that
keeps pending events and dead letters only, an older format refused, and a
dispatcher SIGKILLed twice mid-run that loses and duplicates no event."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
import zlib
from collections import Counter
from pathlib import Path

import pytest

from webhook_retry_policy import RetryPolicy, StopReason
from webhook_retry_policy.dispatcher import (
    DEAD,
    DELIVERED,
    JournalError,
    JournalEventStore,
    LocalEndpoint,
)
from webhook_retry_policy.dispatcher.journal_event import event_body
from webhook_retry_policy.dispatcher.journal_writer import lock_path
from webhook_retry_policy.dispatcher.store import EventRecord
from webhook_retry_policy.types import DeadLetter

HERE = Path(__file__).resolve().parent
NOW_MS = 1_700_000_000_000
DOCUMENT = {"version": "journal-test", "classes": {"notify": {
    "window_ms": 60_000, "hard_cap": 8, "backoff": {"base_ms": 50, "factor": 2.0, "cap_ms": 200, "jitter": "full"},
    "budget": {"ratio": 0.5, "window_ms": 10_000, "min_sample": 1000, "sliding": True}}}}


def _record(i: int, endpoint_id: str = "ep") -> EventRecord:
    ops = RetryPolicy()
    document = ops.load_document(json.dumps(DOCUMENT))
    return EventRecord(f"e{i}", endpoint_id, "notify", {"i": i}, ops.admit(document, "notify", NOW_MS),
                       next_attempt_at_ms=NOW_MS, target="http://127.0.0.1:9/hook?token=t",
                       policy=ops.class_policy(document, "notify"))


def _finish(r: EventRecord, reason: StopReason, *, disable_endpoint: bool = False) -> EventRecord:
    r.attempt, r.stop_reason, r.finished_at_ms = 1, reason, NOW_MS + 10
    r.status = DELIVERED if reason is StopReason.DELIVERED else DEAD
    if r.status == DEAD:
        r.dead_letter = DeadLetter(r.event_id, r.endpoint_id, 1, 10, reason)
    r.disable_endpoint = disable_endpoint
    return r


async def test_a_torn_last_record_is_cut_off_and_later_appends_read_back_intact(tmp_path):
    path = str(tmp_path / "journal")
    store = JournalEventStore(path)
    for i in range(3):
        await store.add(_record(i))
    store.close()
    torn = b'1234abcd {"v":1,"type":"event","event_id":"e9"'  # the process died mid-write
    with open(path, "ab") as f:
        f.write(torn)
    reopened = JournalEventStore(path)
    assert reopened.torn_bytes == len(torn) and sorted(reopened.events) == ["e0", "e1", "e2"]
    await reopened.add(_record(3))
    reopened.close()
    again = JournalEventStore(path)
    assert again.torn_bytes == 0 and sorted(again.events) == ["e0", "e1", "e2", "e3"]
    again.close()


async def test_a_bad_line_before_the_last_one_is_journal_corrupt_naming_the_line(tmp_path):
    path = tmp_path / "journal"
    store = JournalEventStore(str(path))
    for i in range(3):
        await store.add(_record(i))
    store.close()
    lines = path.read_bytes().split(b"\n")  # line 1 is the header
    lines[2] = lines[2].replace(b'"e1"', b'"eX"')
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError) as e:
        JournalEventStore(str(path))
    assert (e.value.code, e.value.line) == ("journal_corrupt", 3)
    assert not os.path.exists(lock_path(str(path)))  # a refused open leaves no lock behind


async def test_a_second_writer_is_refused_with_journal_locked_naming_the_holder(tmp_path):
    path = str(tmp_path / "journal")
    first = JournalEventStore(path)
    holder = json.loads(Path(lock_path(path)).read_text())
    assert holder["pid"] == os.getpid()
    with pytest.raises(JournalError) as e:
        JournalEventStore(path)
    assert e.value.code == "journal_locked" and f"pid {os.getpid()}" in str(e.value)
    first.close()
    assert not os.path.exists(lock_path(path))
    JournalEventStore(path).close()


async def test_a_journal_of_the_older_op_lines_format_is_refused_as_journal_unsupported(tmp_path):
    path = tmp_path / "journal"

    def old_line(entry: dict) -> bytes:  # what earlier versions of this store wrote
        payload = json.dumps(entry, separators=(",", ":")).encode()
        return b"%08x %s\n" % (zlib.crc32(payload), payload)

    data = old_line({"op": "put", "record": {"event_id": "e0", "status": "pending"}}) + old_line(
        {"op": "disable", "endpoint": "ep_gone"})
    path.write_bytes(data)
    with pytest.raises(JournalError) as e:
        JournalEventStore(str(path))
    assert (e.value.code, e.value.line) == ("journal_unsupported", 1)
    assert path.read_bytes() == data and not os.path.exists(lock_path(str(path)))  # not read, not rewritten


async def test_every_journaled_field_reads_back_but_the_history_and_a_held_event_reads_back_pending(tmp_path):
    path = str(tmp_path / "journal")
    store = JournalEventStore(path)
    pending, gone, held = _record(0), _record(1, "ep_gone"), _record(2, "ep_gone")
    await store.add(pending)
    pending.attempt, pending.last_outcome, pending.credentials_refreshed = 2, "503", True
    pending.next_attempt_at_ms = NOW_MS + 400
    pending.history.append({"attempt": 2})
    await store.update(pending)
    await store.add(gone)
    await store.update(_finish(gone, StopReason.TERMINAL_RESPONSE, disable_endpoint=True))
    await store.add(held)
    held.status = "held"
    await store.update(held)
    store.close()
    again = JournalEventStore(path)
    back = again.events["e0"]
    assert back.history == [] and back.payload == {"i": 0}
    assert base64.b64decode(back.body_b64) == event_body("e0", "notify", {"i": 0})  # the body it is sent with
    back.history, back.body_b64 = pending.history, None
    assert back == pending
    assert again.events["e1"].dead_letter == gone.dead_letter and again.events["e1"].target == "http://127.0.0.1:9/hook"
    assert again.events["e2"].status == "pending" and again.disabled_endpoints == {"ep_gone"}
    assert again.reloaded == {"e0", "e2"}
    again.close()


async def test_compaction_keeps_the_newest_pending_and_dead_lettered_records_and_drops_delivered_ones(tmp_path):
    path = tmp_path / "journal"
    store = JournalEventStore(str(path), compact_min_records=10)
    delivered, gone = _record(8), _record(9, "ep_gone")
    for r in (delivered, gone):
        await store.add(r)
    await store.update(_finish(delivered, StopReason.DELIVERED))
    await store.update(_finish(gone, StopReason.TERMINAL_RESPONSE, disable_endpoint=True))
    records = [_record(i) for i in range(4)]
    for r in records:
        await store.add(r)
    for n in range(1, 20):
        for r in records:
            r.attempt = n
            await store.update(r)
    # 10 records at most: the 11th (more than twice the 5 live events) compacts to a header and 5 records
    assert store.compactions > 0 and len(path.read_bytes().splitlines()) <= 10
    assert not os.path.exists(str(path) + ".compact")
    store.close()
    again = JournalEventStore(str(path))
    assert {e: r.attempt for e, r in again.events.items() if r.status == "pending"} == {f"e{i}": 19 for i in range(4)}
    assert "e8" not in again.events and again.events["e9"].status == DEAD
    assert again.disabled_endpoints == {"ep_gone"}
    again.close()


def _run_driver(args: list[str], kill_after_acks: int | None) -> tuple[list[str], str]:
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    proc = subprocess.Popen([sys.executable, str(HERE / "crash_driver.py"), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    acked: list[str] = []
    err: list[str] = []
    threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True).start()  # type: ignore[union-attr]
    for line in proc.stdout:  # type: ignore[union-attr]
        acked.append(line.split()[1])
        if kill_after_acks is not None and len(acked) >= kill_after_acks:
            time.sleep(0.05)  # mid-stream: submits and delivery updates are being appended
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(120)
    time.sleep(0.1)
    if kill_after_acks is None:
        assert proc.returncode == 0, err
    else:
        assert proc.returncode == -signal.SIGKILL
    return acked, "".join(err)


def test_a_dispatcher_killed_twice_mid_write_loses_and_duplicates_no_event(tmp_path):
    # Enough events that the second run always has some to submit when it is
    # killed: the first run keeps acking for the 50 ms before its kill lands
    # (with 300, a fast first run once left the second fewer than 80: it
    # finished instead of being killed).
    n = 600
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"version": "crash", "classes": {"crash": {
        "window_ms": 60000, "hard_cap": 16, "backoff": {"base_ms": 5, "factor": 2.0, "cap_ms": 50, "jitter": "full"},
        "budget": {"ratio": 0.9, "window_ms": 1000, "min_sample": 1000000, "sliding": True}}}}))
    delivered: Counter[str] = Counter()
    lock = threading.Lock()

    def answer(headers: dict[str, str], body: bytes) -> int:
        if headers.get("webhook-attempt") == "1":
            return 503  # every event needs a retry: more journal writes per event
        with lock:
            delivered[headers["webhook-id"]] += 1
        return 204

    journal = str(tmp_path / "events.journal")
    with LocalEndpoint(204, answer=answer) as ep:
        args = [journal, ep.url, str(n), str(policy)]
        acked1, err1 = _run_driver(args, kill_after_acks=80)
        acked2, err2 = _run_driver(args, kill_after_acks=40)
        acked3, err3 = _run_driver(args, kill_after_acks=None)
    store = JournalEventStore(journal)
    acked = acked1 + acked2 + acked3
    statuses = Counter(r.status for r in store.events.values())
    lost = set(acked) - set(store.events)
    duplicated = [e for e, c in Counter(acked).items() if c > 1]
    redelivered = sum(c - 1 for c in delivered.values() if c > 1)
    print(f"\ncrash test: acked {len(acked1)} + {len(acked2)} + {len(acked3)} = {len(acked)} of {n}; "
          f"in the journal {len(store.events)} {dict(statuses)}; lost {len(lost)}; submitted twice "
          f"{len(duplicated)}; delivered to the endpoint {len(delivered)} distinct ids, {redelivered} redelivered "
          f"(at least once: killed between a 2xx and its fsync); restarts saw: {err2.strip()} / {err3.strip()}")
    assert not lost and not duplicated
    assert set(store.events) == {f"evt_{i}" for i in range(n)}
    assert statuses == Counter({DELIVERED: n})
    assert set(delivered) == set(store.events)
    store.close()
