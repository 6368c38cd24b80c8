"""SIGTERM and SIGINT drain a replica in every language (docs/replica.md
"SIGTERM and SIGINT: drain").

A replica with 300 events (concurrency 8) delivers to an endpoint that
answers 503 after 50 ms, with a policy whose retries wait 200-1000 ms and
whose budget never refuses: when the endpoint has seen 50 requests, most
events are waiting for a retry and some attempts are in flight. Then one
signal. The replica must exit 0 within ``--drain-ms`` (2000) + 3 s, print
its one summary line with ``"drained": true`` and ``events ==
sum(stop_reasons) + pending`` with ``pending > 0``; the endpoint must have
seen each (event_id, attempt) at most once, no request arriving later than
ARRIVAL_SLACK_MS after the signal (no new attempt is started), and at most
the attempts the summary counts (an abandoned attempt may not have arrived).
SIGINT the same. With an endpoint answering after 4 s the attempts in
flight outlast the drain: the replica waits for them until the drain
deadline (not less), abandons them (their events pending) and ignores a
second SIGTERM sent during the drain. A run that ends by itself says
``"drained": false``, pending 0, with every stop reason and transport kind
in its summary; a drain leaves at most ``--concurrency`` events pending (that
many are in progress at once, waiting for a retry included). ``drain_replica.py`` (a stand-in)
checks the check: one that drains passes, one that keeps sending or dies
on the signal is caught.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Optional

import pytest

import fleetlib
from conftest import require_replica
from fleetlib import Endpoints, STOP_REASONS, start_replica, write_policy

EVENTS = 300
DRAIN_MS = 2000
EXIT_SLACK_S = 3.0
SIGNAL_AFTER_REQUESTS = 50
ARRIVAL_SLACK_MS = 250  # an attempt written just before the signal arrives a little later (loaded 2-core CI)
START_TIMEOUT_S = 120  # a first `go build` may run


def drained_run(lang: str, sig: signal.Signals, tmp_path, exe: Optional[Path] = None, extra: tuple = (),
                latency_ms: int = 50, after_requests: int = SIGNAL_AFTER_REQUESTS,
                second_signal_after_s: Optional[float] = None) -> tuple[dict, float]:
    """Run, signal, check the drain; (summary, seconds from the signal to the exit)."""
    name = sig.name
    # Long window, slow backoff, a budget that never refuses: events wait for retries.
    policy = write_policy(tmp_path / "policy.json", window_ms=30_000, base_ms=200, cap_ms=1000, hard_cap=16,
                          ratio=0.5, min_sample=100_000, budget_window_ms=10_000)
    with Endpoints(log=True, latency_ms=latency_ms, broken=503) as eps:
        rep = start_replica(lang, target=eps.urls["broken"], endpoint_id=f"drain-{lang}", events=EVENTS,
                            policy=policy, concurrency=8, extra=("--drain-ms", str(DRAIN_MS), *extra), exe=exe)
        try:
            deadline = time.time() + START_TIMEOUT_S
            while eps.stats("broken")["requests"] < after_requests:
                if rep.proc.poll() is not None:
                    out, err = rep.proc.communicate()
                    raise AssertionError(f"{lang}: the replica exited {rep.proc.returncode} before the endpoint saw "
                                         f"{after_requests} requests (is --drain-ms accepted?): "
                                         f"{err[:600]} ... {err[-600:]}\nstdout: {out[-500:]}")
                if time.time() > deadline:
                    raise AssertionError(f"{lang}: the endpoint saw fewer than {after_requests} requests "
                                         f"within {START_TIMEOUT_S} s")
                time.sleep(0.01)
            sent_at = time.time()
            os.kill(rep.proc.pid, sig)  # the wrapper execs the replica: this pid is the replica itself
            if second_signal_after_s is not None:
                time.sleep(second_signal_after_s)
                if rep.proc.poll() is None:
                    os.kill(rep.proc.pid, sig)  # during the drain: to be ignored
            try:
                out, err = rep.proc.communicate(timeout=DRAIN_MS / 1000 + EXIT_SLACK_S)
            except subprocess.TimeoutExpired:
                rep.kill()
                out, err = rep.proc.communicate()
                raise AssertionError(f"{lang}: still running {DRAIN_MS / 1000 + EXIT_SLACK_S:.0f} s after {name} "
                                     f"(--drain-ms {DRAIN_MS}); killed. stderr: {err[-1000:]}") from None
            exit_s = time.time() - sent_at
        finally:
            rep.kill()
        log = eps.log("broken")
    twice_sent = f", again after {second_signal_after_s} s" if second_signal_after_s is not None else ""
    why = f"{lang} ({name} after {after_requests} requests{twice_sent}, endpoint latency {latency_ms} ms, " \
          f"--drain-ms {DRAIN_MS}): "
    if rep.proc.returncode < 0:
        raise AssertionError(why + f"killed by signal {-rep.proc.returncode} (no drain handler), want exit 0 with a "
                             f"summary; stderr: {err[-800:]}")
    assert rep.proc.returncode == 0, why + f"exit {rep.proc.returncode}, want 0; stderr: {err[-1000:]}"
    lines = [l for l in out.splitlines() if l.strip()]
    assert len(lines) == 1, why + f"{len(lines)} lines on stdout, want the one summary: {out[-1000:]}"
    s = json.loads(lines[0])
    assert s.get("drained") is True, why + f'the summary does not say "drained": true: {s}'
    assert "pending" in s, why + f"the summary has no pending count: {s}"
    stopped = sum(int(s["stop_reasons"].get(r, 0)) for r in STOP_REASONS)
    assert s["events"] == stopped + s["pending"], (
        why + f"events {s['events']} != stopped {stopped} + pending {s['pending']}: {s}")
    assert 0 < s["events"] <= EVENTS, why + f"events {s['events']} out of (0, {EVENTS}]"
    assert s["pending"] > 0, why + f"no event pending though most were waiting for a retry: {s}"
    pairs = [(x["event_id"], x["attempt"]) for x in log]
    twice = sorted({p for p in pairs if pairs.count(p) > 1})
    assert not twice, why + f"{len(twice)} (event_id, attempt) pairs arrived more than once: {twice[:5]}"
    late = [x for x in log if x["t_ms"] > sent_at * 1000 + ARRIVAL_SLACK_MS]
    assert not late, (why + f"{len(late)} requests arrived more than {ARRIVAL_SLACK_MS} ms after the signal "
                      f"(no new attempt may start): {late[:3]}")
    assert s["attempts"] >= len(log), why + f"the summary counts {s['attempts']} attempts, the endpoint saw {len(log)}"
    print(f"\n{lang} {name}: exit 0 after {exit_s:.2f} s; {s['events']} events = {stopped} stopped + "
          f"{s['pending']} pending; {s['attempts']} attempts, endpoint saw {len(log)}")
    return s, exit_s


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_sigterm_drains_in_flight_attempts_keeps_waiting_events_pending_and_exits_0(lang, tmp_path):
    require_replica(lang)
    drained_run(lang, signal.SIGTERM, tmp_path)


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_sigint_drains_the_same_way_as_sigterm(lang, tmp_path):
    require_replica(lang)
    drained_run(lang, signal.SIGINT, tmp_path)


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_an_attempt_outlasting_the_drain_is_abandoned_at_its_deadline_and_a_second_signal_is_ignored(lang, tmp_path):
    # The endpoint answers after 4 s: the 8 attempts in flight at the signal
    # outlast --drain-ms 2000. The replica lets them run until the drain
    # deadline (not less), abandons them there (counted as made, their events
    # pending) and exits 0; the second SIGTERM 0.3 s into the drain changes nothing.
    require_replica(lang)
    s, exit_s = drained_run(lang, signal.SIGTERM, tmp_path, latency_ms=4000, after_requests=8,
                            second_signal_after_s=0.3)
    assert exit_s >= DRAIN_MS / 1000 * 0.9, (
        f"{lang}: exited {exit_s:.2f} s after SIGTERM though attempts were in flight: they may run for up to "
        f"--drain-ms {DRAIN_MS} before being abandoned")
    assert s["pending"] >= 8, f"{lang}: the 8 abandoned attempts' events should be pending: {s}"


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_at_most_concurrency_events_are_in_progress_so_at_most_that_many_are_left_pending(lang, tmp_path):
    # docs/replica.md: "--concurrency C events are in progress at once" -- an
    # event is in progress from its admission to its stop, its waits for a
    # retry included; a drain leaves exactly the events in progress pending.
    require_replica(lang)
    s, _ = drained_run(lang, signal.SIGTERM, tmp_path)
    assert s["pending"] <= 8, (
        f"{lang}: {s['pending']} events pending after a drain with --concurrency 8 ({s['events']} admitted): "
        f"more than C events were in progress at once (waiting for a retry counts as in progress)")


@pytest.mark.parametrize("lang", fleetlib.LANGS)
def test_a_run_that_ends_by_itself_says_drained_false_with_nothing_pending_and_every_counter_present(lang, tmp_path):
    # The baseline the drain is told from (docs/replica.md "The summary"):
    # every stop reason and every transport kind, zeros included.
    require_replica(lang)
    kinds = [k["kind"] for k in json.loads((fleetlib.ROOT / "fleet" / "transport-kinds.json").read_text())["kinds"]]
    policy = write_policy(tmp_path / "policy.json")
    with Endpoints(ok=200) as eps:
        s = start_replica(lang, target=eps.urls["ok"], endpoint_id=f"undrained-{lang}", events=5, policy=policy,
                          concurrency=2).result(timeout=START_TIMEOUT_S)
    why = f"{lang} (5 events delivered, no signal): "
    missing = [k for k in ("events", "attempts", "first_attempts", "retries", "stop_reasons", "pending", "drained",
                           "transport_errors", "redis_round_trips", "store_errors", "budget_disagreements",
                           "elapsed_ms") if k not in s]
    assert not missing, why + f"the summary lacks {missing}: {s}"
    assert s["drained"] is False and s["pending"] == 0, why + f"drained {s['drained']}, pending {s['pending']}"
    assert sorted(s["stop_reasons"]) == sorted(STOP_REASONS), why + f"stop_reasons keys {sorted(s['stop_reasons'])}"
    assert sorted(s["transport_errors"]) == sorted(kinds), (
        why + f"transport_errors keys differ from fleet/transport-kinds.json: missing "
        f"{sorted(set(kinds) - set(s['transport_errors']))}, extra {sorted(set(s['transport_errors']) - set(kinds))}")
    assert s["stop_reasons"]["delivered"] == 5 and not any(s["transport_errors"].values()), why + str(s)


# ---------------------------------------------------------------- the check itself

DRAIN_REPLICA = Path(__file__).resolve().parent / "drain_replica.py"


def test_the_drain_check_passes_a_stand_in_that_drains_as_documented(tmp_path):
    drained_run("drain-reference", signal.SIGTERM, tmp_path, exe=DRAIN_REPLICA, extra=("--mode", "good"))


def test_the_drain_check_catches_attempts_started_after_the_signal(tmp_path):
    with pytest.raises(AssertionError, match="arrived more than 250 ms after the signal"):
        drained_run("drain-reference", signal.SIGTERM, tmp_path, exe=DRAIN_REPLICA, extra=("--mode", "keep-sending"))


def test_the_drain_check_catches_a_replica_the_signal_kills(tmp_path):
    with pytest.raises(AssertionError, match="killed by signal 15"):
        drained_run("drain-reference", signal.SIGTERM, tmp_path, exe=DRAIN_REPLICA, extra=("--mode", "no-handler"))
