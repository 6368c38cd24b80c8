"""A dispatcher process for the crash test (tests/test_journal.py), which
SIGKILLs it: ``python crash_driver.py JOURNAL URL N POLICY``. Submits events
``evt_0`` .. ``evt_<N-1>`` that the journal does not hold yet (printing
``acked <id>`` once ``submit`` returned, i.e. the record is fsynced) while
delivering them, until every event has stopped."""

from __future__ import annotations

import asyncio
import sys

from webhook_retry_policy import AsyncRetryPolicy
from webhook_retry_policy.dispatcher import Dispatcher, DispatcherConfig, JournalEventStore


async def main(path: str, url: str, n: int, policy_path: str) -> None:
    policy = AsyncRetryPolicy()
    with open(policy_path, encoding="utf-8") as f:
        document = policy.load_document(f.read())
    # no compaction: it would drop delivered events, and this driver submits the ids the journal lacks
    store = JournalEventStore(path, policy, compact_min_records=1_000_000)
    print(f"opened events={len(store.events)} torn_bytes={store.torn_bytes}", file=sys.stderr, flush=True)
    d = Dispatcher(document, {"ep": url}, policy, store=store, concurrency=16,
                   config=DispatcherConfig(allow_private_targets=True, attempt_deadline_ms=5000))
    done = asyncio.Event()

    async def submit() -> None:
        for i in range(n):
            if f"evt_{i}" not in store.events:
                await d.submit(f"evt_{i}", "ep", "crash", {"i": i})
                print(f"acked evt_{i}", flush=True)
        done.set()

    async def deliver() -> None:
        while not done.is_set():
            await d.run_until_idle()
            await asyncio.sleep(0.005)
        await d.run_until_idle()

    await asyncio.gather(submit(), deliver())
    await d.client.aclose()
    store.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]))
