"""The crash-safe journal store: fsynced appends, a torn last record cut
off without harming later appends, one writer, compaction, and a
dispatcher SIGKILLed twice mid-run that loses and duplicates no event."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from webhook_retry_policy.dispatcher import (
    DELIVERED,
    JournalCorrupt,
    JournalEventStore,
    LocalEndpoint,
    StoreLocked,
)
from webhook_retry_policy.dispatcher.store import EventRecord
from webhook_retry_policy.types import Admission, LimitedBy, Schedule

HERE = Path(__file__).resolve().parent


def _record(i: int) -> EventRecord:
    schedule = Schedule(3, 20, (0, 10, 20), 30, LimitedBy.WINDOW)
    return EventRecord(f"e{i}", "ep", "c", {"i": i}, Admission("c", "v1", "0123456789abcdef", 0, 60_000, schedule))


async def test_a_torn_last_record_is_cut_off_and_later_appends_read_back_intact(tmp_path):
    path = str(tmp_path / "journal")
    store = JournalEventStore(path)
    for i in range(3):
        await store.add(_record(i))
    store.close()
    with open(path, "ab") as f:
        f.write(b'1234abcd {"op":"put","record":{"event_id":"e9"')  # the process died mid-write
    reopened = JournalEventStore(path)
    assert reopened.torn_records == 1 and sorted(reopened.events) == ["e0", "e1", "e2"]
    await reopened.add(_record(3))
    reopened.close()
    again = JournalEventStore(path)
    assert again.torn_records == 0 and sorted(again.events) == ["e0", "e1", "e2", "e3"]
    again.close()


async def test_a_bad_line_before_the_last_one_is_corruption_not_a_torn_write(tmp_path):
    path = tmp_path / "journal"
    store = JournalEventStore(str(path))
    for i in range(3):
        await store.add(_record(i))
    store.close()
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"e1"', b'"eX"')
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalCorrupt, match="line 2"):
        JournalEventStore(str(path))


async def test_a_second_writer_is_refused_while_the_first_holds_the_lock(tmp_path):
    path = str(tmp_path / "journal")
    first = JournalEventStore(path)
    with pytest.raises(StoreLocked):
        JournalEventStore(path)
    first.close()
    JournalEventStore(path).close()


async def test_compaction_keeps_the_last_state_of_every_event_in_fewer_lines(tmp_path):
    path = tmp_path / "journal"
    store = JournalEventStore(str(path), compact_factor=2, compact_min=10)
    records = [_record(i) for i in range(4)]
    for r in records:
        await store.add(r)
    for n in range(1, 20):
        for r in records:
            r.attempt = n
            await store.update(r)
    await store.disable_endpoint("ep_gone")
    assert store.compactions > 0 and len(path.read_bytes().splitlines()) <= 10
    store.close()
    again = JournalEventStore(str(path))
    assert {e: r.attempt for e, r in again.events.items()} == {f"e{i}": 19 for i in range(4)}
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
    n = 300
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
        acked2, err2 = _run_driver(args, kill_after_acks=80)
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
