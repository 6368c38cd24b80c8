"""SIGTERM / SIGINT drain of the replica (docs/replica.md): a replica
subprocess delivering to a slow loopback endpoint is signalled mid-run; it
exits 0 before --drain-ms when its attempts end first, with "drained": true, every event either
stopped or pending, and no (event_id, attempt) received twice."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import threading
import time

import pytest
from test_replica import REPLICA, storm_policy

from webhook_retry_policy.dispatcher import LocalEndpoint

SLOW_S = 0.6


class SlowReceiver:
    """Answers 503 after SLOW_S, recording each (event id, attempt) it got."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def __call__(self, headers: dict[str, str], body: bytes) -> int:
        with self.lock:
            self.seen.append((headers.get("x-event-id", ""), headers.get("x-attempt", "")))
        time.sleep(SLOW_S)
        return 503


def _signal_mid_run(tmp_path, sig: signal.Signals, drain_ms: int, extra: tuple[str, ...] = ()) -> tuple[dict, float, SlowReceiver]:
    receiver = SlowReceiver()
    with LocalEndpoint(503, answer=receiver) as ep:
        proc = subprocess.Popen([str(REPLICA), "--target", ep.url, "--endpoint-id", "ep-drain", "--events", "200",
                                 "--concurrency", "4", "--policy", str(storm_policy(tmp_path)), "--drain-ms", str(drain_ms),
                                 "--allow-private-targets", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while len(receiver.seen) < 6 and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.02)
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.1)  # attempts are in flight now (each takes SLOW_S)
            proc.send_signal(sig)
            signalled = time.monotonic()
            proc.send_signal(sig)  # a second signal during the drain is ignored
            out, err = proc.communicate(timeout=drain_ms / 1000 + 10)
            took_s = time.monotonic() - signalled
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, err
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    return json.loads(lines[0]), took_s, receiver


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_run_drains_in_flight_attempts_and_leaves_waiting_events_pending(tmp_path, sig):
    # A 30 s deadline and a bound of half of it: the run ended once the in-flight
    # attempts did (each SLOW_S), not at the deadline, however loaded the machine
    # (a 3 s deadline with a 2.5 s bound failed under load average 12-15).
    s, took_s, receiver = _signal_mid_run(tmp_path, sig, drain_ms=30_000)
    assert took_s < 15
    assert s["drained"] is True
    assert s["events"] < 200 and s["events"] == sum(s["stop_reasons"].values()) + s["pending"]
    assert s["pending"] > 0
    assert len(receiver.seen) == len(set(receiver.seen)), "an (event_id, attempt) was sent twice"
    assert len(receiver.seen) == s["attempts"]  # every started attempt finished inside the drain


def test_attempts_still_running_at_the_drain_deadline_are_abandoned_and_counted(tmp_path):
    s, took_s, receiver = _signal_mid_run(tmp_path, signal.SIGTERM, drain_ms=100)
    assert took_s < 15  # bounded (the promise is in the counts below, not in a wall-clock margin)
    assert s["drained"] is True
    assert s["events"] == sum(s["stop_reasons"].values()) + s["pending"]
    assert s["pending"] >= 1  # the abandoned attempts' events
    assert len(receiver.seen) == len(set(receiver.seen))
    assert len(receiver.seen) <= s["attempts"]


def test_a_run_that_ends_by_itself_is_not_drained_and_has_nothing_pending(tmp_path):
    with LocalEndpoint(204) as ep:
        proc = subprocess.run([str(REPLICA), "--target", ep.url, "--endpoint-id", "ep-nodrain", "--events", "5",
                               "--policy", str(storm_policy(tmp_path)), "--allow-private-targets"],
                              capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    assert s["drained"] is False and s["pending"] == 0 and s["stop_reasons"]["delivered"] == 5








def newest_records(path) -> dict[str, dict]:
    """The newest record of each event in a journal (the test reads the lines itself: ``<crc> <json>``)."""
    newest: dict[str, dict] = {}
    for line in path.read_text().splitlines():
        rec = json.loads(line.split(" ", 1)[1])
        if rec["type"] == "event":
            newest[rec["event_id"]] = rec
    return newest


def test_a_journaled_run_drains_the_same_way_and_its_journal_keeps_the_pending_events(tmp_path):
    journal = tmp_path / "run.journal"
    s, took_s, receiver = _signal_mid_run(tmp_path, signal.SIGTERM, drain_ms=30_000, extra=("--store", str(journal)))
    assert took_s < 15 and s["drained"] is True  # ended once the in-flight attempts did, not at the 30 s deadline
    assert s["events"] == sum(s["stop_reasons"].values()) + s["pending"] and s["pending"] > 0
    assert len(receiver.seen) == len(set(receiver.seen)) == s["attempts"]
    records = newest_records(journal).values()
    assert sum(1 for r in records if r["status"] == "pending") == s["pending"]


async def test_a_signal_during_the_setup_drains_at_once_and_the_callers_handlers_come_back():
    from webhook_retry_policy.dispatcher.signals import EARLY_SIGNALS, drain_on_signals, signals_caught

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    drained: list[bool] = []
    with signals_caught():
        signal.raise_signal(signal.SIGTERM)  # remembered, not fatal
        assert EARLY_SIGNALS == ["SIGTERM"]
        with drain_on_signals(lambda: drained.append(True), 1000):
            assert drained == [True]  # at once: the run starts drained
            signal.raise_signal(signal.SIGTERM)  # a second signal changes nothing
            await asyncio.sleep(0.05)
        assert drained == [True]
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before and EARLY_SIGNALS == []


def test_an_attempt_abandoned_at_the_drain_deadline_was_journaled_before_it_was_sent_so_a_resume_never_reuses_its_number(
        tmp_path):
    journal = tmp_path / "abandoned.journal"
    s, _took_s, receiver = _signal_mid_run(tmp_path, signal.SIGTERM, drain_ms=50, extra=("--store", str(journal)))
    assert s["drained"] is True and s["pending"] > 0
    newest = newest_records(journal)
    sent: dict[str, int] = {}
    for event_id, attempt_no in receiver.seen:
        sent[event_id] = max(sent.get(event_id, 0), int(attempt_no))
    pending = [r for r in newest.values() if r["status"] == "pending"]
    assert len(pending) == s["pending"]
    for r in pending:  # the next attempt a resume makes (attempts + 1) was never sent
        assert sent.get(r["event_id"], 0) <= r["attempts"], (r["event_id"], sent.get(r["event_id"]), r["attempts"])
    assert sum(r["attempts"] for r in newest.values()) == s["attempts"]
