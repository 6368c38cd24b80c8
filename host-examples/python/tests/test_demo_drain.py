"""The example dispatcher's demo drains on SIGTERM/SIGINT: spawned with a
journal and slow endpoints, signalled mid-run, it takes no more events,
lets the attempts in flight finish (or abandons them at --drain-ms,
journaled before they were sent), exits 0 and leaves every unfinished
event pending in the journal, its lock removed, with no attempt received
twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_drain import newest_records

SRC = Path(__file__).resolve().parents[1] / "src"


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _signal_demo(tmp_path: Path, sig: signal.Signals, *, slow_ms: int, drain_ms: int,
                 lines_before_signal: int) -> tuple[dict, float, Path]:
    journal = tmp_path / "demo.journal"
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    proc = subprocess.Popen([sys.executable, "-m", "webhook_retry_policy.dispatcher.demo", "--store", str(journal),
                             "--rounds", "1000", "--burst", "2", "--slow-ms", str(slow_ms), "--drain-ms", str(drain_ms)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while _lines(journal) < lines_before_signal and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(sig)
        signalled = time.monotonic()
        proc.send_signal(sig)  # a second signal during the drain is ignored
        out, err = proc.communicate(timeout=drain_ms / 1000 + 20)
        took_s = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "draining" in err
    summary = [line for line in out.splitlines() if line.startswith("summary ")]
    assert len(summary) == 1 and out.rstrip().endswith(summary[0]), out
    return json.loads(summary[0].removeprefix("summary ")), took_s, journal


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signalled_demo_finishes_its_attempts_in_flight_and_leaves_every_unfinished_event_in_the_journal(
        tmp_path: Path, sig: signal.Signals) -> None:
    s, took_s, journal = _signal_demo(tmp_path, sig, slow_ms=150, drain_ms=5000, lines_before_signal=30)
    assert took_s < 4  # ended once the attempts in flight did (150 ms each), not at the 5 s drain deadline
    assert s["drained"] is True and s["events"] < 1000 * 2 * 3  # it stopped taking events
    assert s["sent_twice"] == 0
    assert not os.path.exists(str(journal) + ".lock")  # the lock goes with the clean exit
    records = list(newest_records(journal).values())
    pending = [r for r in records if r["status"] == "pending"]
    assert len(records) == s["events"] and len(pending) == s["pending"] > 0
    assert sum(r["attempts"] for r in records) == s["requests"]  # every request that arrived is journaled


def test_attempts_still_in_flight_at_the_drain_deadline_are_abandoned_and_journaled_as_made(tmp_path: Path) -> None:
    s, took_s, journal = _signal_demo(tmp_path, signal.SIGTERM, slow_ms=5000, drain_ms=300, lines_before_signal=7)
    assert took_s < 0.3 + 3  # the 5 s answers were not awaited
    assert s["drained"] is True and s["sent_twice"] == 0
    records = list(newest_records(journal).values())
    abandoned = [r for r in records if r["status"] == "pending" and r["attempts"] == 1 and r["last_outcome"] == ""]
    # journaled with attempts 1 before attempt 1 was sent: a resume sends attempt 2 (attempt 1 may have arrived)
    assert abandoned
    assert sum(r["attempts"] for r in records) >= s["requests"] > 0
    assert len([r for r in records if r["status"] == "pending"]) == s["pending"]
