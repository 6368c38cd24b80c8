"""``--rate N`` of the Python replica (docs/replica.md "Language extras", the
Rust replica's rule): the k-th event (from 0) is admitted no earlier than
``k * 1000 / N`` ms after the run starts. Lower bounds only: no timing upper
bound is asserted (the machine may be loaded)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from test_replica import run_replica, storm_policy, summary_of

from webhook_retry_policy.dispatcher import LocalEndpoint
from webhook_retry_policy.dispatcher.admissions import Admissions


def paced(events: int, rate: float | None, deadline_at_ms: int | None = None) -> Admissions:
    return Admissions("t", events, "ep", "http://127.0.0.1:1/", "storm", deadline_at_ms, rate_per_s=rate, start_ms=1000)


def test_a_paced_source_admits_the_kth_event_no_earlier_than_k_thousand_over_n_ms():
    a = paced(10, 20)
    assert [i["event_id"] for i in a.take(10, 1000)] == ["t-0"]  # room for ten, one due
    assert a.take(10, 1049) == [] and not a.take_now(1049)
    assert a.wake_at(1049) == 1050  # a timer to the next instant, not a busy loop
    assert [i["event_id"] for i in a.take(10, 1050)] == ["t-1"]
    assert [i["event_id"] for i in a.take(10, 1200)] == ["t-2", "t-3", "t-4"]  # late: the ones due by now
    assert a.wake_at(1200) == 1250


def test_a_paced_source_waits_for_a_slot_once_its_instant_has_passed_and_stops_at_the_deadline():
    a = paced(10, 20, deadline_at_ms=1120)
    a.take(1, 1000)
    assert a.take(0, 1060) == []  # no room: nothing admitted
    assert a.wake_at(1060) is None and a.take_now(1060)  # due already: only a freed slot goes on
    a.take(1, 1060)
    assert a.wake_at(1060) == 1100
    a.take(1, 1100)
    assert a.wake_at(1100) == 1120  # the deadline comes before the next instant (1150)
    assert a.done(1120) and a.take(10, 1150) == []


def test_without_rate_every_event_is_due_at_once():
    a = paced(3, None)
    assert len(a.take(10, 1000)) == 3 and a.wake_at(1000) is None and a.done(1000)


def test_admissions_given_back_come_first_in_their_order_and_only_they():
    a = paced(5, None)
    taken = a.take(4, 1000)
    a.give_back([taken[0], taken[2]])  # t-1 refused duplicate_event, t-3 admitted: not given back
    assert not a.done(1000)
    assert [i["event_id"] for i in a.take(10, 1000)] == ["t-0", "t-2", "t-4"]
    assert a.done(1000)
    a.give_back([taken[2]])  # the last one given back is not lost
    assert not a.done(1000) and [i["event_id"] for i in a.take(10, 1000)] == ["t-2"]


def test_the_rate_counts_the_events_taken_and_not_given_back():
    a = paced(10, 10)  # the k-th no earlier than 1000 + k * 100
    assert [i["event_id"] for i in a.take(10, 1150)] == ["t-0", "t-1"]
    assert a.wake_at(1150) == 1200
    a.give_back(a.take(10, 1200))  # t-2 (due at 1200), refused at_capacity: due at 1200 again, not 1300
    assert a.wake_at(1250) is None and [i["event_id"] for i in a.take(10, 1250)] == ["t-2"]
    assert a.wake_at(1250) == 1300


def test_a_replica_with_rate_10_admits_the_kth_event_no_earlier_than_k_times_100_ms_after_it_starts(tmp_path: Path):
    # Only what the rule implies, as lower bounds (a loaded machine only makes
    # things later): the replica's start is after this process spawns it, so
    # the k-th request (by event index) reaches the endpoint no earlier than
    # spawn + k * 100 ms, and the run lasts at least 5 * 100 ms (its
    # elapsed_ms counts from before the pacer starts). The spread between the
    # first and the last arrival is not implied: a late first admission lets
    # the events already due go at once.
    arrivals: dict[int, float] = {}
    lock = threading.Lock()

    def answer(headers: dict[str, str], body: bytes) -> int:
        index = int(headers["x-event-id"].rsplit("-", 1)[1])
        with lock:
            arrivals.setdefault(index, time.monotonic())
        return 200

    with LocalEndpoint(200, answer=answer) as ok:
        spawned = time.monotonic()
        s = summary_of(run_replica("--target", ok.url, "--endpoint-id", "ep-rate", "--events", "6", "--rate", "10",
                                   "--concurrency", "6", "--policy", str(storm_policy(tmp_path))))
    assert s["events"] == 6 == s["stop_reasons"]["delivered"] == s["attempts"]
    assert sorted(arrivals) == list(range(6)), arrivals
    assert s["elapsed_ms"] >= 500, s
    early = {k: round((at - spawned) * 1000) for k, at in arrivals.items() if at - spawned < k * 0.1}
    assert early == {}, f"events reached the endpoint before k * 100 ms after the spawn (ms): {early}"


@pytest.mark.parametrize("value", ["0", "-5", "abc", "nan", "inf", ""])
def test_a_rate_that_is_not_a_finite_number_above_0_exits_2_naming_rate(tmp_path: Path, value: str):
    proc = run_replica("--target", "http://127.0.0.1:1/", "--endpoint-id", "ep", "--events", "1",
                       "--policy", str(storm_policy(tmp_path)), "--rate", value)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "--rate" in lines[0], proc.stderr


def test_help_mentions_rate():
    proc = run_replica("--help")
    assert proc.returncode == 0 and "--rate N" in proc.stdout, proc.stderr
