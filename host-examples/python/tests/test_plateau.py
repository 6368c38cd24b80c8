"""Plateau: 10^5 mixed calls (``PLATEAU_CALLS=1000000`` for the long run)
through this thread's one instance, sampling the guest's linear memory
(``instance.current().memory.data_len(store)``, the wasmtime ``Memory`` of
the core module) and the process RSS. The guest memory must level off: no
growth over the second half of the calls. The figures (with the time per
call since the previous sample) are printed (``-s``).

When an instance is recycled (``instance.py``): never on size or age. Each
thread keeps one ``Instance`` for the life of the thread; it is dropped
only when a call traps or returns a malformed result (``Instance._failed``
/ ``_lift_again`` call ``drop()``, the caller gets ``PolicyTrap``), and the
next call on that thread builds a fresh one from the process-wide compiled
modules. The component's allocator reuses freed blocks but never returns
memory to wasmtime, so an instance's memory is its high-water mark, set by
the largest input it was given (here a refused 1 MiB + 1 document and 4 KiB
ids); bound inputs (the contract's 1 MiB) rather than recycle.
"""

from __future__ import annotations

import os
import time

from conftest import NOW_MS

from webhook_retry_policy import (
    BucketCounts,
    BudgetCounts,
    DeliveryState,
    EventClass,
    HttpResponse,
    PolicyDocument,
    PolicyError,
    Reservation,
    RetryPolicy,
    StoreOp,
    StoreRequest,
    TransportError,
    Unavailable,
    instance,
)
from webhook_retry_policy.types import HeldBuckets

CALLS = int(os.environ.get("PLATEAU_CALLS", "100000"))


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_guest_memory_levels_off_over_mixed_calls(policy):
    rp = RetryPolicy()
    counts = BudgetCounts(BucketCounts(1000, 5), BucketCounts(900, 4))
    held = HeldBuckets(0, BucketCounts(0, 0), BucketCounts(0, 0))
    doc = PolicyDocument("v1", tuple(EventClass(f"c{i}", policy) for i in range(50)))
    big = "x" * ((1 << 20) + 1)
    inst = instance.current()
    samples: list[tuple[int, int, int, float]] = []
    started = time.perf_counter()
    every = max(1, CALLS // 20)
    for n in range(CALLS):
        k = n % 12
        eid = "e" * (n % 4096) if n % 97 == 0 else f"evt_{n}"
        state = DeliveryState(eid, f"ep_{n % 64}", 1 + n % 13, 13, NOW_MS - (n % 1000))
        outcome = HttpResponse(503, n % 3000) if n % 2 else TransportError("connect_timeout")
        now = NOW_MS + n
        if k == 0:
            rp.evaluate(policy, state, outcome, now)
        elif k == 1:
            rp.settle(policy, state, outcome, now, Reservation(n % 3 == 0, counts) if n % 5 else Unavailable())
        elif k == 2:
            rp.decide(policy, state, outcome)
        elif k == 3:
            rp.parse_retry_after("Sun, 06 Nov 2094 08:49:37 GMT" if n % 2 else str(n), now)
        elif k == 4:
            rp.settle(policy, state, outcome, now, Reservation(n % 7 == 0, counts) if n % 5 else Unavailable())
        elif k == 5:
            rp.plan(policy.backoff, policy.window_ms, 16)
        elif k == 6:
            instance.current().run("read-target", f"https://h{n % 4096}.example:{1 + n % 65535}/{eid}")
        elif k == 7:
            req = StoreRequest(StoreOp.RESERVE, state.endpoint_id, 60_000, now // 60_000)
            rp.store_key(req)
            held = rp.store_apply(req, policy.budget, now, held).held
        elif k == 8:
            rp.classify_status(100 + n % 500)
        elif k == 9:
            rp.classify_error("read_timeout" if n % 2 else eid)
        elif k == 10:
            rp.step(policy, state, outcome, now)
        elif n % 1000 == 11:
            rp.admit(doc, f"c{n % 50}", now)
        if n % 50_000 == 0:
            try:
                rp.load_document(big)
            except PolicyError:
                pass
        if n % every == 0 or n == CALLS - 1:
            samples.append((n + 1, inst.memory.data_len(inst.store), _rss_kib(), time.perf_counter() - started))
    assert instance.current() is inst, "the instance was rebuilt: a call trapped"
    last = (0, 0.0)
    for calls, mem, rss, at in samples:  # time per call over the calls since the previous sample
        per = (at - last[1]) / max(1, calls - last[0]) * 1e6
        print(f"plateau: calls {calls:>8}  guest memory {mem // 1024:>6} KiB  rss {rss:>7} KiB  {per:6.2f} us/call")
        last = (calls, at)
    half = [mem for calls, mem, _, _ in samples if calls > CALLS // 2]
    assert len(set(half)) == 1, f"guest memory grew in the second half: {samples}"
