"""An event re-loaded by another worker keeps its first-attempt instant and
never outlives its window.

Replica A journals its events (journal format 1, docs/journal.md) and is killed (SIGKILL) while
many are waiting for a retry. Replica B resumes A's journal: each event
keeps the instant and schedule it was admitted under, and no attempt of
any event starts after ``first_attempted_at_ms + window_ms``. Replica C
resumes a copy of the journal after the window has passed: every pending
event is dead-lettered at once, without another request.
"""

from __future__ import annotations

import json
import shutil
import signal
import time
import zlib

from fleetlib import Endpoints, assert_nothing_lost, start_replica, write_policy

WINDOW_MS = 1500


def journal(path) -> dict[str, dict]:
    """The newest record per event of a journal in format 1 (docs/journal.md:
    ``<crc> <json>`` lines under a header). A SIGKILL may leave the last line
    torn (the dispatcher cuts it off when it reopens the journal): skip it."""
    latest: dict[str, dict] = {}
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete, tail = lines[:-1], lines[-1]  # `tail`: after the last LF (torn when not empty)
    for i, line in enumerate(complete):
        crc, _, payload = line.partition(b" ")
        try:
            if len(crc) != 8 or int(crc, 16) != zlib.crc32(payload):
                raise ValueError("bad CRC")
            rec = json.loads(payload)
        except ValueError:
            if i == len(complete) - 1 and not tail:
                break
            raise
        if i == 0:
            assert rec["type"] == "header" and rec["v"] in (1, 2), rec
        elif rec["type"] == "event":
            latest[rec["event_id"]] = rec
    return latest


def test_a_requeued_event_keeps_its_first_attempt_instant_and_its_window(tmp_path, rust_replica):
    # Slow backoff (100 ms doubling), no budget pressure (ratio 1): events
    # live until their window or their attempts run out.
    policy = write_policy(tmp_path / "policy.json", ratio=1.0, min_sample=1_000_000, window_ms=WINDOW_MS,
                          base_ms=100, cap_ms=400)
    a_journal, b_journal, c_journal = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    with Endpoints(log=True, broken=503) as eps:
        # --concurrency is the events in progress at once (docs/replica.md):
        # 40, so every event is in progress (most waiting for a retry) when A dies.
        a = start_replica("rust", target=eps.urls["broken"], endpoint_id="ep-requeue", events=40, policy=policy,
                          concurrency=40, extra=("--store", str(a_journal)))
        # Kill A once it has made its first attempts (startup time varies).
        deadline = time.time() + 30
        while eps.stats("broken")["requests"] < 40 and time.time() < deadline:
            time.sleep(0.01)
        time.sleep(0.1)
        a.proc.send_signal(signal.SIGKILL)
        a.proc.wait()
        killed_ms = time.time() * 1000
        before = journal(a_journal)
        pending = {k: v for k, v in before.items() if v["status"] == "pending"}
        assert len(pending) >= 10, f"too few pending events when A died: {len(pending)}"
        shutil.copy(a_journal, c_journal.with_suffix(".src"))

        b = start_replica("rust", target=eps.urls["broken"], endpoint_id="ep-requeue", events=0, policy=policy,
                          concurrency=4, extra=("--resume", str(a_journal), "--store", str(b_journal)))
        sb = b.result()
        assert_nothing_lost(sb)
        assert sb["events"] == len(pending)
        after = journal(b_journal)
        for eid, rec in after.items():
            assert rec["first_attempted_at_ms"] == pending[eid]["first_attempted_at_ms"], eid
            assert rec["deadline_ms"] == pending[eid]["deadline_ms"], eid
            assert rec["offsets_ms"] == pending[eid]["offsets_ms"], eid
            assert rec["status"] == "dead_lettered", rec
        # The window's edge, asserted without a clock race. The endpoint
        # stamps an attempt when it receives it, after the replica started
        # it, by a gap a loaded machine can stretch (CI once saw an attempt
        # decided at 1499 ms arrive at 1501 ms, and a slack of 50 ms is still
        # a bet on the load). But a replica starts attempt n+1 only after it
        # received the answer to attempt n, which the endpoint gave when it
        # received n: so arrival(n) <= start(n+1) < edge, whatever the load.
        # Hence, per event, every attempt that was followed by another must
        # have arrived before first_attempted_at_ms + window_ms. The one pair
        # that is not a chain is A's last journaled attempt and the next (B
        # did not see A's answer). A replica that ignored the window, or
        # gave a resumed event a new one, keeps retrying past the edge and
        # fails this; the instant itself (an attempt due before the edge is
        # re-checked immediately before it is written) is each host's unit
        # test (rust: dispatcher/src/tests_window.rs, go:
        # cmd/replica/edge_test.go, node: tests/window-edge.test.mjs).
        log = eps.log("broken")
        arrived: dict[str, dict[int, int]] = {}
        for x in log:  # the earliest arrival of each (event, attempt)
            seen = arrived.setdefault(x["event_id"], {})
            seen[x["attempt"]] = min(x["t_ms"], seen.get(x["attempt"], x["t_ms"]))
        for eid, by_attempt in arrived.items():
            first = (after.get(eid) or before[eid])["first_attempted_at_ms"]
            a_made = before[eid]["attempts"] if eid in before else 0
            for n, t_ms in by_attempt.items():
                if n + 1 in by_attempt and n != a_made:
                    assert t_ms < first + WINDOW_MS, \
                        f"{eid}: attempt {n} arrived {t_ms - first} ms after its first attempt (window {WINDOW_MS} ms), and attempt {n + 1} followed it"
        resumed_attempts = [x for x in log if x["event_id"] in pending and x["t_ms"] > killed_ms]
        assert resumed_attempts, "B made no attempt of the resumed events"

        # C picks up the same pending events after their windows have passed.
        time.sleep(max(0.0, (max(r["deadline_ms"] for r in pending.values()) - time.time() * 1000) / 1000) + 0.1)
        shutil.copy(c_journal.with_suffix(".src"), c_journal)
        requests_before = eps.stats("broken")["requests"]
        c = start_replica("rust", target=eps.urls["broken"], endpoint_id="ep-requeue", events=0, policy=policy,
                          extra=("--resume", str(c_journal)))
        sc = c.result()
        assert eps.stats("broken")["requests"] == requests_before, "C sent attempts for events past their window"
    print(f"requeue: A was killed with {len(pending)} of {len(before)} events pending; B resumed them: "
          f"{ {k: v for k, v in sb['stop_reasons'].items() if v} }; C, after their windows: "
          f"{ {k: v for k, v in sc['stop_reasons'].items() if v} }, no request sent")
    assert_nothing_lost(sc)
    assert sc["events"] == len(pending)
    late = sc["stop_reasons"]["retry_window_elapsed"] + sc["stop_reasons"]["max_attempts_exhausted"]
    assert late == len(pending), sc
    assert sc["stop_reasons"]["retry_window_elapsed"] > 0, sc
