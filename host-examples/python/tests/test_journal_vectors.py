"""Journal formats 1 and 2 (docs/journal.md): every case of tests/vectors-journal
(journal.json, and journal2.json's holds and replays) through the writer's open path (lock, read, torn tail cut, header) and the
component's ``resume`` under each record's own policy; the lock file's
stale rule, the header and mode of a new journal, and compaction."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest

from webhook_retry_policy import RetryPolicy
from webhook_retry_policy.dispatcher.journal_record import JournalError, to_policy
from webhook_retry_policy.dispatcher.journal_writer import COMPACT_MIN_RECORDS, Journal, lock_path, read_file
from webhook_retry_policy.dispatcher.replica_journal import component_hasher
from webhook_retry_policy.types import DeliveryState, Stop

VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors-journal" / "journal.json"
CASES: list[dict[str, Any]] = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]
VECTORS2 = VECTORS.with_name("journal2.json")


def _only(obj: dict[str, Any], allowed: set[str], name: str) -> None:
    unknown = set(obj) - allowed
    assert not unknown, f"case {name}: unknown fields {sorted(unknown)}"


def run_case(case: dict[str, Any], tmp: Path, rp: RetryPolicy, version: int = 1) -> None:
    name = case["name"]
    _only(case, {"name", "lines", "now_ms", "expect"}, name)
    data = "".join(case["lines"]).encode()
    path = tmp / f"case-{zlib.crc32(name.encode()):08x}.journal"
    path.write_bytes(data)
    expect = case["expect"]
    if "error" in expect:
        _only(expect, {"error", "line"}, name)
        with pytest.raises(JournalError) as e:
            Journal(str(path), component_hasher(rp))
        assert (e.value.code, e.value.line) == (expect["error"], expect["line"]), f"{name}: {e.value}"
        assert path.read_bytes() == data, f"{name}: a refused journal was changed"
        assert not os.path.exists(lock_path(str(path))), f"{name}: a refused open left its lock"
        return
    _only(expect, {"torn_bytes", "events"}, name)
    j = Journal(str(path), component_hasher(rp))
    try:
        assert j.torn_bytes == expect["torn_bytes"], name
        kept = data[:len(data) - j.torn_bytes]
        on_disk = path.read_bytes()
        assert on_disk.startswith(kept) and (len(on_disk) > len(kept)) == (not kept), f"{name}: not cut back"
        got = {}
        for eid, r in j.events.items():
            verdict = None
            if r["status"] in ("pending", "held"):
                state = DeliveryState(r["event_id"], r["endpoint_id"], r["attempts"], r["max_attempts"],
                                      r["first_attempted_at_ms"], r["credentials_refreshed"])
                res = rp.resume(to_policy(r["policy"]), state, case["now_ms"])  # format 3: the same resume
                verdict = res.reason.value if isinstance(res, Stop) else "due"
            got[eid] = {"status": r["status"], "attempts": r["attempts"], "resume": verdict}
            if version == 2:
                got[eid].update(held_ms=r.get("held_ms", 0), held_until_ms=r.get("held_until_ms", 0),
                                replayed_as=r.get("replayed_as"))
        assert got == expect["events"], name
    finally:
        j.close()


def test_every_journal_vector_passes_through_the_open_path_and_resume(tmp_path: Path) -> None:
    rp = RetryPolicy()
    failed = []
    for case in CASES:
        try:
            run_case(case, tmp_path, rp)
        except (AssertionError, JournalError) as e:
            failed.append(f"{case['name']}: {e}")
    print(f"journal vectors: {len(CASES) - len(failed)} of {len(CASES)} pass")
    assert len(CASES) >= 40
    assert not failed, "\n".join(failed)


def test_every_journal2_vector_passes_through_the_open_path_and_resume(tmp_path: Path) -> None:
    doc = json.loads(VECTORS2.read_text(encoding="utf-8"))
    _only(doc, {"format", "spec", "regenerate", "cases"}, "journal2.json")
    assert doc["format"] == "webhook-retry-policy/journal-vectors 2"
    rp = RetryPolicy()
    failed = []
    for case in doc["cases"]:
        try:
            run_case(case, tmp_path, rp, version=2)
        except (AssertionError, JournalError) as e:
            failed.append(f"{case['name']}: {e}")
    print(f"journal2 vectors: {len(doc['cases']) - len(failed)} of {len(doc['cases'])} pass")
    assert len(doc["cases"]) >= 25
    assert not failed, "\n".join(failed)


def _event(rp: RetryPolicy, eid: str, status: str = "pending") -> dict[str, Any]:
    case = next(c for c in CASES if c["name"] == "one pending event is due")
    rec = json.loads(case["lines"][1].split(" ", 1)[1])
    rec["event_id"], rec["status"] = eid, status
    return dict(rec)


def test_a_new_journal_starts_with_its_fsynced_header_and_is_private(tmp_path: Path) -> None:
    path = tmp_path / "j"
    Journal(str(path), component_hasher(RetryPolicy())).close()
    crc, payload = path.read_bytes().rstrip(b"\n").split(b" ", 1)
    assert int(crc, 16) == zlib.crc32(payload)
    assert json.loads(payload)["type"] == "header"
    assert path.stat().st_mode & 0o777 == 0o600
    assert not os.path.exists(lock_path(str(path))), "a clean close removes the lock"


def test_a_record_appended_is_read_back_by_another_process_reader(tmp_path: Path) -> None:
    rp = RetryPolicy()
    path = str(tmp_path / "j")
    j = Journal(path, component_hasher(rp))
    j.append(_event(rp, "a"))
    j.append({**_event(rp, "a"), "attempts": 2})
    j.close()
    back = read_file(path, component_hasher(rp))
    assert [(r["event_id"], r["attempts"]) for r in back] == [("a", 2)]


def test_a_lock_left_by_a_killed_writer_is_removed_and_a_live_or_foreign_one_is_refused(tmp_path: Path) -> None:
    rp = RetryPolicy()
    path = str(tmp_path / "j")
    dead = subprocess.Popen(["true"])
    dead.wait()

    def lock(pid: int, host: str) -> None:
        Path(lock_path(path)).write_text(json.dumps({"pid": pid, "host": host, "started_at_ms": 1}))

    lock(dead.pid, socket.gethostname())
    j = Journal(path, component_hasher(rp))
    assert json.loads(Path(lock_path(path)).read_text())["pid"] == os.getpid()
    with pytest.raises(JournalError) as second:
        Journal(path, component_hasher(rp))
    assert second.value.code == "journal_locked" and f"pid {os.getpid()}" in str(second.value)
    j.close()
    lock(dead.pid, "another-host.example")
    with pytest.raises(JournalError, match="another-host.example"):
        Journal(path, component_hasher(rp))
    lock(1, socket.gethostname())  # pid 1 is alive
    with pytest.raises(JournalError, match="journal_locked"):
        Journal(path, component_hasher(rp))


def test_compaction_keeps_the_header_and_the_newest_record_of_each_live_event(tmp_path: Path) -> None:
    rp = RetryPolicy()
    path = str(tmp_path / "j")
    Path(path + ".compact").write_text("half a rewrite")
    j = Journal(path, component_hasher(rp))
    assert not os.path.exists(path + ".compact")
    for i in range(COMPACT_MIN_RECORDS + 10):
        j.append({**_event(rp, f"e{i % 4}"), "attempts": i})
    j.close()
    assert j.compactions >= 1
    lines = Path(path).read_bytes().splitlines()
    assert json.loads(lines[0].split(b" ", 1)[1])["type"] == "header"
    assert len(lines) < 1 + 4 + 20
    back = {r["event_id"]: r["attempts"] for r in read_file(path, component_hasher(rp))}
    assert sorted(back) == ["e0", "e1", "e2", "e3"]
    assert max(back.values()) == COMPACT_MIN_RECORDS + 9
