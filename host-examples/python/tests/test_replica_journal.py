"""The replica's --store / --resume (journal format 1): a journal that cannot
be used is a usage error (exit 2) naming the spec's code, and a run with
--store leaves a journal another reader accepts, without its lock."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from webhook_retry_policy import RetryPolicy
from webhook_retry_policy.dispatcher.journal_writer import lock_path, read_file
from webhook_retry_policy.dispatcher.replica import main
from webhook_retry_policy.dispatcher.replica_journal import component_hasher

ARGS = ["--target", "http://127.0.0.1:9/x", "--endpoint-id", "ep", "--allow-private-targets"]


def _policy(tmp_path: Path) -> str:
    policy = tmp_path / "p.json"
    policy.write_text(json.dumps({"version": "t", "classes": {"storm": {
        "window_ms": 200, "hard_cap": 3, "backoff": {"base_ms": 10, "factor": 2.0, "cap_ms": 20, "jitter": "none"},
        "budget": {"ratio": 1.0, "window_ms": 1000, "min_sample": 1000, "sliding": True}}}}))
    return str(policy)


def test_a_missing_resume_journal_is_a_usage_error_naming_journal_io(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGS, "--events", "0", "--policy", _policy(tmp_path), "--resume", str(tmp_path / "nope")]) == 2
    assert "journal_io" in capsys.readouterr().err


def test_a_store_held_by_a_live_writer_is_a_usage_error_naming_journal_locked(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "j"
    Path(lock_path(str(store))).write_text(json.dumps({"pid": 1, "host": os.uname().nodename, "started_at_ms": 0}))
    assert main([*ARGS, "--events", "0", "--policy", _policy(tmp_path), "--store", str(store)]) == 2
    assert "journal_locked" in capsys.readouterr().err


def test_a_run_with_store_leaves_a_readable_journal_and_no_lock(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "j"
    # Port 9 (discard) refuses the connection: each event ends by its policy, journaled.
    assert main([*ARGS, "--events", "2", "--policy", _policy(tmp_path), "--store", str(store)]) == 0
    summary = json.loads(capsys.readouterr().out)
    recs = read_file(str(store), component_hasher(RetryPolicy()))
    assert len(recs) == summary["events"] == 2
    assert all(r["status"] == "dead_lettered" and r["policy"]["window_ms"] == 200 for r in recs)
    assert not os.path.exists(lock_path(str(store)))


def test_a_journal_write_that_fails_is_logged_and_the_run_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from webhook_retry_policy.dispatcher.journal_record import JournalError
    from webhook_retry_policy.dispatcher.journal_writer import Journal

    def disk_full(self: Journal, rec: dict[str, object]) -> None:
        raise JournalError("journal_io", f"{self.path}: No space left on device")

    monkeypatch.setattr(Journal, "append", disk_full)
    assert main([*ARGS, "--events", "2", "--policy", _policy(tmp_path), "--store", str(tmp_path / "j")]) == 0
    assert json.loads(capsys.readouterr().out)["events"] == 2
    assert "journal_io" in caplog.text and "No space left on device" in caplog.text
