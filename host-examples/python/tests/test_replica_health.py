"""The replica with a format-3 policy, as a subprocess against a real
loopback endpoint: failures open the circuit and the retries are held
durably; a drain leaves them held in the journal (counted in ``pending``
and ``held``), and the next run (``--store``) resumes and delivers them.
Then a dead letter replayed by ``replica replay`` is sent by the next run."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_redis_store import REDIS_SERVER, redis_url  # noqa: F401  (a redis-server on loopback, per module)
from test_replica import REPLICA, summary_of

from webhook_retry_policy import RetryPolicy
from webhook_retry_policy.dispatcher import LocalEndpoint
from webhook_retry_policy.dispatcher.journal_event import component_hasher
from webhook_retry_policy.dispatcher.journal_writer import read_file


def health_policy(tmp_path: Path, window_ms: int = 60_000) -> Path:
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"version": "health-test", "classes": {"storm": {
        "window_ms": window_ms, "hard_cap": 16,
        "backoff": {"base_ms": 5, "factor": 2.0, "cap_ms": 50, "jitter": "full"},
        "budget": {"ratio": 0.5, "window_ms": 10_000, "min_sample": 1, "sliding": True},
        "health": {"circuit": {"min_sample": 2, "failure_ratio": 0.5, "cooldown_ms": 3000, "cooldown_max_ms": 6000},
                   "release": {"multiple": 1.0, "floor_per_s": 100.0}}}}}))
    return path


def replica(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([str(REPLICA), *args, "--allow-private-targets"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_a_held_event_survives_a_restart_in_the_journal_and_is_delivered_after_resume(tmp_path: Path) -> None:
    journal, pol = tmp_path / "j", str(health_policy(tmp_path))
    status = {"code": 503}
    with LocalEndpoint(503, answer=lambda h, b: status["code"]) as ep:
        proc = replica("--target", ep.url, "--endpoint-id", "ep-held", "--events", "4", "--concurrency", "4",
                       "--policy", pol, "--store", str(journal), "--drain-ms", "2000")
        try:
            deadline = time.monotonic() + 30
            while b'"status":"held"' not in (journal.read_bytes() if journal.exists() else b""):
                assert time.monotonic() < deadline and proc.poll() is None, "no hold was journaled"
                time.sleep(0.05)
            time.sleep(0.3)  # the other events reach their gate too
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
        finally:
            proc.kill()
        first = summary_of(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        assert first["drained"] is True and first["held"] >= 1 and first["holds"]["circuit_open"] >= 1
        assert first["pending"] >= first["held"] and first["stop_reasons"]["delivered"] == 0
        held = [r for r in read_file(str(journal), component_hasher(RetryPolicy())) if r["status"] == "held"]
        assert len(held) == first["held"] and all(r["hold_reason"] == "circuit_open" for r in held)
        sent_before = ep.requests
        status["code"] = 204
        assert all(r["held_until_ms"] > int(time.time() * 1000) for r in held), "still held at the restart"
        proc = replica("--target", ep.url, "--endpoint-id", "ep-held", "--events", "0", "--policy", pol,
                       "--store", str(journal))
        out, err = proc.communicate(timeout=60)
        second = summary_of(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        assert second["events"] == first["pending"] and second["stop_reasons"]["delivered"] == second["events"]
        assert second["pending"] == 0 and second["held"] == 0 and ep.requests - sent_before == second["attempts"]
    final = {r["event_id"]: r for r in read_file(str(journal), component_hasher(RetryPolicy()))}
    assert all(final[r["event_id"]]["status"] == "delivered" and final[r["event_id"]]["held_ms"] > 0 for r in held)


def test_a_replayed_dead_letter_is_sent_by_the_next_run_once(tmp_path: Path) -> None:
    journal = tmp_path / "j"
    one_try = tmp_path / "one.json"
    doc = json.loads(health_policy(tmp_path).read_text())
    doc["classes"]["storm"].update(hard_cap=1, health={"circuit": None})
    one_try.write_text(json.dumps(doc))
    status = {"code": 503}
    with LocalEndpoint(503, answer=lambda h, b: status["code"]) as ep:
        proc = replica("--target", ep.url, "--endpoint-id", "ep-r", "--events", "3", "--policy", str(one_try),
                       "--store", str(journal))
        out, err = proc.communicate(timeout=60)
        first = summary_of(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        assert first["stop_reasons"]["max_attempts_exhausted"] == 3
        cmd = [str(REPLICA), "replay", "--store", str(journal), "--policy", str(health_policy(tmp_path)),
               "--endpoint", "ep-r", "--reason", "max_attempts_exhausted"]
        replayed = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert replayed.returncode == 0, replayed.stderr
        line = json.loads(replayed.stdout)
        assert line["replayed"] == 3 and all(i.endswith("~r1") for i in line["ids"])
        again = json.loads(subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout)
        assert again == {"replayed": 0, "already_replayed": 3, "skipped_no_class": 0, "ids": []}
        status["code"] = 204
        before = ep.requests
        proc = replica("--target", ep.url, "--endpoint-id", "ep-r", "--events", "0", "--policy", str(one_try),
                       "--store", str(journal))
        out, err = proc.communicate(timeout=60)
        second = summary_of(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
        assert second["events"] == 3 and second["stop_reasons"]["delivered"] == 3 and ep.requests - before == 3


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_with_redis_a_health_run_makes_one_call_per_attempt_plus_its_probes_and_wakes(tmp_path: Path,
                                                                                       redis_url: str) -> None:  # noqa: F811
    status = {"code": 503}
    with LocalEndpoint(503, answer=lambda h, b: status["code"]) as ep:
        proc = replica("--target", ep.url, "--endpoint-id", f"ep-redis-{time.time_ns()}", "--events", "8",
                       "--concurrency", "8", "--policy", str(health_policy(tmp_path, window_ms=4000)),
                       "--redis", redis_url)
        out, err = proc.communicate(timeout=60)
    s = summary_of(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    print("health run with redis:", {k: s[k] for k in ("attempts", "redis_round_trips", "holds", "probe_calls",
                                                        "wake_calls", "elapsed_ms")})
    assert s["store_errors"] == 0 and s["pending"] == 0 and s["events"] == 8
    assert s["holds"]["circuit_open"] > 0, "the shared circuit opened in Redis and held the events"
    assert s["stop_reasons"]["retry_window_elapsed"] > 0 and s["stop_reasons"]["budget_unavailable"] == 0
    assert s["first_attempts"] + s["probe_calls"] <= s["redis_round_trips"]
    assert s["redis_round_trips"] <= s["attempts"] + s["probe_calls"] + s["wake_calls"]
