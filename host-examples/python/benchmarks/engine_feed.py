"""The delivery engine's benchmark row (``run.py``): one delivered event
through :class:`DeliveryEngine` with ``memory_store`` = two batches, two
component crossings: ``feed([admit])`` (journal lines, the first ``send``;
the engine answers its own ``record`` call) and ``feed([result 200])``
(the count, the journal line, ``delivered``, now and then ``journal_compact``). Each batch's answer is
parsed, as a host driving the engine would."""

from __future__ import annotations

import itertools
from collections.abc import Callable

from webhook_retry_policy import DeliveryEngine

ROW = "DeliveryEngine: one delivered event = feed [admit] + feed [result 200] (memory_store, 2 crossings)"
CROSSINGS_PER_EVENT = 2
DOCUMENT = {"version": "bench", "classes": {"n": {"window_ms": 60000, "hard_cap": 4, "backoff": {
    "base_ms": 1000, "factor": 2.0, "cap_ms": 60000, "jitter": "none"}}}}


def delivered_events(n: int) -> Callable[[], None]:
    """``n`` events admitted and delivered, one at a time, on one engine (kept open)."""
    engine = DeliveryEngine({"document": DOCUMENT, "memory_store": True})
    ids = itertools.count()
    now = [1_800_000_000_000]

    def run() -> None:
        for _ in range(n):
            i, t = next(ids), now[0]
            event_id = f"ev-{i}"
            sent = engine.feed([{"op": "admit", "now_ms": t, "event_id": event_id, "endpoint_id": f"ep-{i % 16}",
                                 "target": "https://hooks.example.com/x", "class": "n"}])
            done = engine.feed([{"op": "result", "now_ms": t + 1, "event_id": event_id, "attempt": 1, "status": 200}])
            # (a compaction's ``journal_compact`` may follow ``delivered`` in the same answer)
            if sent.errors or done.errors or not any(o["action"] == "delivered" for o in done.outputs):
                raise AssertionError(f"not delivered: {sent} {done}")
            now[0] = t + 2

    return run
