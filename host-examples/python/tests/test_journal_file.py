"""The journal FILE (the host's part of docs/journal.md; the engine writes
and reads the lines): one writer's lock, a stale lock of a killed writer
taken over, another live holder refused by name, lines appended and cut
back, another process's journal read without the lock."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from webhook_retry_policy.dispatcher.journal_file import JournalError, JournalFile, read_bytes


def test_the_writer_holds_the_lock_until_it_closes_and_a_second_writer_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "j"
    a = JournalFile(str(path))
    assert json.loads((tmp_path / "j.lock").read_text())["pid"] == os.getpid()
    with pytest.raises(JournalError) as e:
        JournalFile(str(path))
    assert e.value.code == "journal_locked" and f"pid {os.getpid()}" in str(e.value)
    a.close()
    assert not (tmp_path / "j.lock").exists()
    JournalFile(str(path)).close()


def test_a_lock_left_by_a_killed_writer_of_this_host_is_stale_and_taken_over(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / "j.lock").write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname(), "started_at_ms": 1}))
    JournalFile(str(tmp_path / "j")).close()


def test_a_lock_of_another_host_is_never_taken_over(tmp_path: Path) -> None:
    (tmp_path / "j.lock").write_text(json.dumps({"pid": 1, "host": "elsewhere", "started_at_ms": 1}))
    with pytest.raises(JournalError, match="journal_locked"):
        JournalFile(str(tmp_path / "j"))


def test_lines_are_appended_after_the_bytes_read_at_open_and_a_torn_tail_is_cut(tmp_path: Path) -> None:
    path = tmp_path / "j"
    path.write_bytes(b"old line\ntorn")
    j = JournalFile(str(path))
    assert j.data == b"old line\ntorn"
    j.truncate(9)
    j.append(["a\n", "b\n"])
    j.close()
    assert read_bytes(str(path)) == b"old line\na\nb\n"


def test_an_unreadable_journal_is_a_journal_io_error(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="journal_io"):
        read_bytes(str(tmp_path / "missing"))


def test_a_long_run_compacts_its_journal_to_the_engines_snapshot_which_resumes(tmp_path: Path) -> None:
    from test_replica import REPLICA, storm_policy

    from webhook_retry_policy.dispatcher import LocalEndpoint

    path = tmp_path / "long.journal"
    with LocalEndpoint(204) as ep:
        run = subprocess.run([str(REPLICA), "--target", ep.url, "--endpoint-id", "ep-long", "--events", "500",
                              "--concurrency", "2", "--policy", str(storm_policy(tmp_path)), "--store", str(path),
                              "--allow-private-targets"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["stop_reasons"]["delivered"] == 500
    lines = path.read_text().splitlines()
    assert 0 < len(lines) < 1024, len(lines)  # 500 events write 1,500 records: compacted on the way
    assert json.loads(lines[0].split(" ", 1)[1])["type"] == "header"
    assert not (tmp_path / "long.journal.compact").exists()
    again = subprocess.run([str(REPLICA), "--target", "http://127.0.0.1:9/", "--endpoint-id", "ep-long", "--events", "0",
                            "--policy", str(storm_policy(tmp_path)), "--store", str(path)],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and json.loads(again.stdout)["events"] == 0, again.stderr
