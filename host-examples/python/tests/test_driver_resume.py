"""A run that resumes more open events than its ``--concurrency`` (the
engine's ``max_in_flight``): the engine's timeout stays "due now" while
every slot is busy, and the driver waits for a result instead of ticking
in a busy loop; every resumed event is counted as this run's and ends."""

from __future__ import annotations

import time

from webhook_retry_policy import DeliveryEngine
from webhook_retry_policy.dispatcher import Admissions, DispatcherMetrics, Driver, LocalEndpoint, make_client

DOCUMENT = {"version": "resume", "classes": {"c": {"window_ms": 60_000, "hard_cap": 4, "backoff": {
    "base_ms": 1, "factor": 2.0, "cap_ms": 5, "jitter": "none"}}}}


class Counted(DeliveryEngine):
    """The engine, its batches counted."""

    feeds = 0

    def feed(self, inputs):  # type: ignore[no-untyped-def]
        self.feeds += 1
        return super().feed(inputs)


def journal_of_sent_events(target: str, n: int) -> bytes:
    """``n`` events whose first attempt was journaled and sent, never answered (a crash)."""
    now = time.time_ns() // 1_000_000
    with DeliveryEngine({"document": DOCUMENT, "memory_store": True, "max_in_flight": n}) as e:
        outs = e.feed([{"op": "admit", "now_ms": now, "event_id": f"ev-{i}", "endpoint_id": "ep", "target": target,
                        "class": "c"} for i in range(n)]).outputs
    assert sum(o["action"] == "send" for o in outs) == n
    return "".join(o["line"] for o in outs if o["action"] == "journal").encode()


async def test_resumed_events_beyond_the_concurrency_wait_for_a_free_slot_without_a_busy_loop() -> None:
    def slow(headers: dict[str, str], body: bytes) -> int:
        time.sleep(0.05)
        return 204

    with LocalEndpoint(204, answer=slow) as ep:
        data = journal_of_sent_events(ep.url, 12)
        with Counted({"document": DOCUMENT, "memory_store": True, "max_in_flight": 2}) as engine:
            async with make_client(allow_private_targets=True) as client:
                driver = Driver(engine, client=client, metrics=DispatcherMetrics(), concurrency=2)
                driver.resume(data)
                await driver.run(Admissions("new", 0, "ep", ep.url, "c", None), 1000)
    t = driver.tally
    assert t.events == 12 and t.stop_reasons["delivered"] == 12 and t.retries == 12, t  # attempt 2 of each
    assert ep.requests == 12
    assert engine.feeds <= 3 * 12, f"{engine.feeds} batches for 12 events: a busy loop"
