"""The journal across languages (docs/journal.md): a replica journaling its
run (``--store``) is killed (SIGKILL) mid-run, with attempts in flight; a
replica of the OTHER language resumes its journal (``--resume``), in six
pairs of languages.

No (event, attempt number) pair reaches the endpoint twice: the engine
journals attempt n before it asks for its send, so an attempt cut by the
kill is followed by attempt n + 1, never by n again (docs/engine.md
section 7, "A crash mid-attempt").

Every event the killed replica left pending ends delivered or dead-lettered
in the resuming replica's journal, with its first-attempt instant, deadline,
schedule and admitted policy unchanged, and no attempt of any event starts
past ``first_attempted_at_ms + window_ms`` (plus the loopback send time, as
test_requeue allows).

The policy travels with the event: the resuming replica is given a
``--policy`` whose window is much shorter (300 ms) than the admitted one
(4 s); resumed events keep the admitted window, so their dead letters'
``elapsed_ms`` exceed the new window.
"""

from __future__ import annotations

import signal
import time
from collections import Counter

import pytest

from conftest import require_replica
from fleetlib import Endpoints, assert_nothing_lost, start_replica, write_policy
from test_requeue import journal

WINDOW_MS = 4000  # admitted by the killed replica
SHORT_WINDOW_MS = 300  # the resuming replica's --policy
SEND_SLACK_MS = 50  # loopback send time between the decision and the endpoint's stamp (see test_requeue)
# A `retry_window_elapsed` dead letter is decided when the engine's wake at
# the deadline runs, and its `elapsed_ms` is the real time then: a loaded
# machine runs that wake late (4,126 ms for a 4,000 ms window once in CI,
# three pytest workers on two cores). That is no attempt past the window
# (the endpoint's log is checked for those with SEND_SLACK_MS); the bound
# here only catches an event living under another window.
WAKE_SLACK_MS = 500
# lang, events, --concurrency (events in progress at once, docs/replica.md)
KILLED = {"rust": ("rust", 32, 16), "python": ("python", 32, 16), "go": ("go", 32, 16), "node": ("node", 32, 16)}


@pytest.mark.parametrize("killed,resumer", [("rust", "python"), ("python", "rust"), ("go", "rust"), ("python", "go"),
                                             ("rust", "node"), ("node", "python")])
def test_a_journal_killed_in_one_language_is_resumed_in_the_other_under_its_admitted_policy(tmp_path, killed,
                                                                                            resumer):
    require_replica(killed)
    require_replica(resumer)
    # Slow backoff (200 ms doubling to 800), no budget pressure: events live
    # until their window or their attempts run out.
    admitted = write_policy(tmp_path / "admitted.json", ratio=1.0, min_sample=1_000_000, window_ms=WINDOW_MS,
                            base_ms=200, cap_ms=800)
    short = write_policy(tmp_path / "short.json", ratio=1.0, min_sample=1_000_000, window_ms=SHORT_WINDOW_MS,
                         base_ms=20, cap_ms=40)
    a_journal, b_journal = tmp_path / "a.journal", tmp_path / "b.journal"
    _, events, concurrency = KILLED[killed]
    with Endpoints(log=True, broken=503) as eps:
        a = start_replica(killed, target=eps.urls["broken"], endpoint_id="ep-cross", events=events, policy=admitted,
                          concurrency=concurrency, extra=("--store", str(a_journal)))
        # Kill A once it has made its first attempts (startup time varies by language).
        deadline = time.time() + 60
        while eps.stats("broken")["requests"] < events // 2 and time.time() < deadline and a.proc.poll() is None:
            time.sleep(0.01)
        assert a.proc.poll() is None, f"{killed} replica exited before it was killed: {a.proc.stderr.read()[-2000:]}"
        a.proc.send_signal(signal.SIGKILL)
        a.proc.wait()
        killed_ms = time.time() * 1000
        before = journal(a_journal)
        pending = {k: v for k, v in before.items() if v["status"] == "pending"}
        assert len(pending) >= 4, f"too few pending events when {killed} died: {len(pending)} of {len(before)}"

        b = start_replica(resumer, target=eps.urls["broken"], endpoint_id="ep-cross", events=0, policy=short,
                          concurrency=8, extra=("--resume", str(a_journal), "--store", str(b_journal)))
        sb = b.result()
        assert_nothing_lost(sb)
        assert sb["events"] == len(pending), sb
        after = journal(b_journal)
        assert set(after) == set(pending), "the resuming journal holds exactly the resumed events"
        elapsed = []
        for eid, rec in after.items():
            was = pending[eid]
            for k in ("first_attempted_at_ms", "deadline_ms", "offsets_ms", "max_attempts", "policy", "policy_hash",
                      "policy_version"):
                assert rec[k] == was[k], (eid, k, rec[k], was[k])
            assert rec["policy"]["window_ms"] == WINDOW_MS, rec["policy"]
            assert rec["status"] in ("delivered", "dead_lettered"), rec
            assert rec["attempts"] >= was["attempts"], (rec, was)
            if rec["status"] == "dead_lettered":
                assert rec["dead_letter"]["elapsed_ms"] <= WINDOW_MS + WAKE_SLACK_MS, rec
                elapsed.append(rec["dead_letter"]["elapsed_ms"])
        log = eps.log("broken")
        sent_twice = {pair: n for pair, n in Counter((x["event_id"], x["attempt"]) for x in log).items() if n > 1}
        assert not sent_twice, f"(event, attempt) pairs sent more than once across the kill: {sent_twice}"
        for x in log:
            first = (after.get(x["event_id"]) or before[x["event_id"]])["first_attempted_at_ms"]
            assert x["t_ms"] <= first + WINDOW_MS + SEND_SLACK_MS, \
                f"{x['event_id']} attempted {x['t_ms'] - first} ms after its first attempt"
        resumed_attempts = [x for x in log if x["event_id"] in pending and x["t_ms"] > killed_ms]
        # Attempts the resumer made past the --policy window (300 ms after the
        # first attempt): under that window `resume` would have stopped them.
        past_short = [x for x in resumed_attempts
                      if x["t_ms"] - pending[x["event_id"]]["first_attempted_at_ms"] > SHORT_WINDOW_MS + SEND_SLACK_MS]
    reasons = {k: v for k, v in sb["stop_reasons"].items() if v}
    print(f"journal cross ({killed} killed -> {resumer} resumed): {len(pending)} of {len(before)} events pending "
          f"at the kill; {resumer} resumed them: {reasons}, {len(resumed_attempts)} attempts after the kill "
          f"({len(past_short)} past the --policy window); {len(log)} (event, attempt) pairs, none twice; "
          f"dead-letter elapsed_ms max {max(elapsed, default=0)} (admitted window {WINDOW_MS}, "
          f"--policy window {SHORT_WINDOW_MS})")
    assert resumed_attempts, f"{resumer} made no attempt of the resumed events"
    # The admitted window governs: with a 4 s window and 200-800 ms backoff on a
    # 503 endpoint, resumed events are attempted, and live, far past the
    # resumer's 300 ms window.
    assert past_short, f"{resumer} made no attempt past its own --policy window: it did not keep the admitted one"
    assert elapsed and max(elapsed) > WINDOW_MS // 2, elapsed
