"""A resumed run whose admissions include ids its journal holds (the same
prefix as the run that wrote it: the replica's ``python-<pid>`` after a pid
is reused). The engine refuses those ``duplicate_event`` and changes nothing;
the driver drops the admission (logged) and undoes only what the admission
itself added: a resumed event stays open and counted as this run's, the run
goes on with the other ids, and ends only once the resumed event stops."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

from webhook_retry_policy import DeliveryEngine
from webhook_retry_policy.dispatcher import Admissions, DispatcherMetrics, Driver, LocalEndpoint, make_client


def document(base_ms: int) -> dict[str, Any]:
    """One class: a 60 s window, a retry ``base_ms`` after a failure (no jitter)."""
    return {"version": "dup", "classes": {"c": {"window_ms": 60_000, "hard_cap": 4, "backoff": {
        "base_ms": base_ms, "factor": 1.0, "cap_ms": base_ms, "jitter": "none"}}}}


def journal(target: str, ids: list[str], at_ms: int, base_ms: int) -> bytes:
    """A journal of ``ids`` admitted at ``at_ms``, each attempt 1 answered 503: pending, retry due at ``+base_ms``."""
    with DeliveryEngine({"document": document(base_ms), "memory_store": True}) as e:
        outs = e.feed([{"op": "admit", "now_ms": at_ms, "event_id": i, "endpoint_id": "ep", "target": target,
                        "class": "c"} for i in ids]).outputs
        outs += e.feed([{"op": "result", "now_ms": at_ms + 1, "event_id": i, "attempt": 1, "status": 503}
                        for i in ids]).outputs
    assert not any(o["action"] in ("delivered", "dead_letter") for o in outs), outs
    return "".join(o["line"] for o in outs if o["action"] == "journal").encode()


class Receiver:
    """Answers 204, counting each (event id, attempt) it gets."""

    def __init__(self) -> None:
        self.got: Counter[tuple[str, int]] = Counter()
        self._lock = threading.Lock()

    def __call__(self, headers: dict[str, str], body: bytes) -> int:
        with self._lock:
            self.got[(headers["x-event-id"], int(headers["x-attempt"]))] += 1
        return 204

    def ids(self) -> Counter[str]:
        return Counter(event_id for event_id, _ in self.got.elements())


class DrainAfter(Driver):
    """The driver, draining once ``n`` events were delivered (``None``: never)."""

    n: int | None = None

    def _stopped(self, event_id: str, reason: str) -> None:
        super()._stopped(event_id, reason)
        if self.tally.stop_reasons["delivered"] == self.n:
            self.drain()


async def run(data: bytes, base_ms: int, url: str, events: int, concurrency: int, *,
              drain_after: int | None = None, early_inputs: int = 0) -> Driver:
    """Resume ``data``, then admit ``dup-0`` .. ``dup-<events - 1>`` as the replica does
    (``max_open`` = ``concurrency``). ``early_inputs`` ticks wait for the first batch,
    as results arriving together do: each offers a place to an admission."""
    config = {"document": document(base_ms), "memory_store": True, "max_in_flight": concurrency,
              "max_open": concurrency}
    with DeliveryEngine(config) as engine:
        async with make_client(allow_private_targets=True) as client:
            driver = DrainAfter(engine, client=client, metrics=DispatcherMetrics(), concurrency=concurrency,
                                engine_max_open=True)
            driver.n = drain_after
            driver.resume(data)
            for _ in range(early_inputs):
                driver.post({"op": "tick"})
            await driver.run(Admissions("dup", events, "ep", url, "c", None), 5000)
    return driver


def summary(driver: Driver) -> dict[str, Any]:
    return driver.tally.summary(0, 0)


async def test_a_resumed_open_event_offered_again_stays_open_and_the_run_ends_once_it_stopped() -> None:
    receiver = Receiver()
    with LocalEndpoint(204, answer=receiver) as ep:
        data = journal(ep.url, ["dup-0"], time.time_ns() // 1_000_000, 300)
        driver = await run(data, 300, ep.url, 3, 3)
    s = summary(driver)
    assert (s["events"], s["stop_reasons"]["delivered"], s["pending"]) == (3, 3, 0), s
    assert not driver.open
    # the resumed dup-0 was sent once more (its attempt 2) and never admitted anew
    assert receiver.got == Counter({("dup-0", 2): 1, ("dup-1", 1): 1, ("dup-2", 1): 1}), receiver.got


async def test_a_drain_leaves_the_resumed_event_offered_again_pending_and_counted() -> None:
    receiver = Receiver()
    with LocalEndpoint(204, answer=receiver) as ep:
        # dup-0's retry is 30 s away: the run drains once dup-1 and dup-2 are delivered
        data = journal(ep.url, ["dup-0"], time.time_ns() // 1_000_000, 30_000)
        driver = await run(data, 30_000, ep.url, 3, 3, drain_after=2)
    s = summary(driver)
    assert s["drained"] is True
    assert (s["events"], s["stop_reasons"]["delivered"], s["pending"]) == (3, 2, 1), s
    assert driver.open == {"dup-0"}
    assert receiver.ids() == Counter({"dup-1": 1, "dup-2": 1}), receiver.got


async def test_a_resumed_event_the_resume_dead_lettered_offered_again_is_counted_once() -> None:
    receiver = Receiver()
    with LocalEndpoint(204, answer=receiver) as ep:
        # admitted two minutes ago with a 60 s window: the resume dead-letters it at once (kept for replay)
        data = journal(ep.url, ["dup-0"], time.time_ns() // 1_000_000 - 120_000, 300)
        driver = await run(data, 300, ep.url, 3, 2)
    s = summary(driver)
    assert s["stop_reasons"]["retry_window_elapsed"] == 1 and s["stop_reasons"]["delivered"] == 2, s
    assert (s["events"], s["pending"]) == (3, 0), s
    assert receiver.ids() == Counter({"dup-1": 1, "dup-2": 1}), receiver.got


async def test_an_admission_refused_at_capacity_before_a_duplicate_is_taken_again_and_the_duplicate_is_not() -> None:
    receiver = Receiver()
    with LocalEndpoint(204, answer=receiver) as ep:
        # dup-1 and other-0 resumed: both places taken; the first batch offers dup-0 (at_capacity)
        # then dup-1 (duplicate_event)
        data = journal(ep.url, ["dup-1", "other-0"], time.time_ns() // 1_000_000, 300)
        driver = await run(data, 300, ep.url, 3, 2, early_inputs=2)
    s = summary(driver)
    assert (s["events"], s["stop_reasons"]["delivered"], s["pending"]) == (4, 4, 0), s
    assert receiver.ids() == Counter({"dup-0": 1, "dup-1": 1, "other-0": 1, "dup-2": 1}), receiver.got
    assert receiver.got[("dup-1", 2)] == 1 and receiver.got[("other-0", 2)] == 1, receiver.got
