"""A virtual-time harness for the format-3 send loop (``HealthLoop``): the
loop's host with a clock that jumps to the next wake once every task is
blocked, a scripted endpoint (no socket: the loop's decisions are under
test, the HTTP attempt is the replica's, tested elsewhere), the in-memory
call store (``apply-call``) and a record of every journal write."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
from collections.abc import Callable
from typing import Any

from webhook_retry_policy import CompiledPolicy, RetryPolicy
from webhook_retry_policy.dispatcher.health_loop import HealthLoop
from webhook_retry_policy.dispatcher.journal_record import policy_json
from webhook_retry_policy.dispatcher.journal_v2 import V2_ZERO, health_json
from webhook_retry_policy.dispatcher.metrics import DispatcherMetrics
from webhook_retry_policy.stores import AsyncInMemoryBudgetStore
from webhook_retry_policy.types import AttemptOutcome, CallReply, StopReason, StoreCall

T0 = 1_800_000_000_000
Answer = Callable[[int, str, int], AttemptOutcome]  # (now_ms, event_id, attempt) -> outcome


def document(health: dict[str, Any], **policy: Any) -> Any:
    cls = {"window_ms": 600_000, "hard_cap": 10,
           "backoff": {"base_ms": 1000, "factor": 2.0, "cap_ms": 8000, "jitter": "none"},
           "budget": {"ratio": 0.5, "window_ms": 60_000, "min_sample": 1, "sliding": True},
           "health": health, **policy}
    return RetryPolicy().load_health_document(json.dumps({"version": "h1", "classes": {"c": cls}}))


class CountingStore(AsyncInMemoryBudgetStore):
    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    async def store_call(self, call: StoreCall, now_ms: int) -> CallReply:
        self.ops.append(call.op.value)
        return await super().store_call(call, now_ms)


class Harness:
    """LoopHost on virtual time."""

    def __init__(self, doc: Any, answer: Answer) -> None:
        self.doc, self.answer = doc, answer
        cls = doc.classes[0]
        self.c = CompiledPolicy(cls.policy, cls.health)
        self.now = T0
        self._wakes: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self.sent: list[tuple[int, str, int]] = []
        self.writes: list[dict[str, Any]] = []
        self.finished: dict[str, tuple[StopReason, dict[str, Any]]] = {}
        self.store = CountingStore()
        self.metrics = DispatcherMetrics()
        self.loop = HealthLoop(self, self.store, self.metrics)
        self.loops = [self.loop]

    def another_replica(self) -> HealthLoop:
        """A second send loop on the same clock, endpoint and call store, with
        its own endpoint table (its own views) and metrics: another replica."""
        loop = HealthLoop(self, self.store, DispatcherMetrics())
        self.loops.append(loop)
        return loop

    # LoopHost
    def now_ms(self) -> int:
        return self.now

    async def wait_until(self, at_ms: int) -> bool:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._wakes, (at_ms, next(self._seq), fut))
        await fut
        return True

    async def send_attempt(self, rec: dict[str, Any], n: int) -> AttemptOutcome | StopReason | None:
        self.sent.append((self.now, rec["event_id"], n))
        return self.answer(self.now, rec["event_id"], n)

    def persist(self, rec: dict[str, Any]) -> None:
        self.writes.append(dict(rec))

    def finish(self, rec: dict[str, Any], stop: Any) -> StopReason:
        rec.update(status="delivered" if stop.reason is StopReason.DELIVERED else "dead_lettered",
                   stop_reason=stop.reason.value, finished_at_ms=self.now, dead_letter=stop.dead_letter)
        self.finished[rec["event_id"]] = (stop.reason, dict(rec))
        self.persist(rec)
        return stop.reason  # type: ignore[no-any-return]

    # driving
    def record(self, event_id: str, endpoint_id: str = "ep-1") -> dict[str, Any]:
        cls = self.doc.classes[0]
        adm = self.c.admit(cls.name, self.doc.version, self.now)
        return {"v": 2, "type": "event", "event_id": event_id, "endpoint_id": endpoint_id,
                "target": "http://127.0.0.1:9/hook", "class": cls.name, "policy_version": adm.policy_version,
                "policy_hash": adm.policy_hash, "policy": {**policy_json(cls.policy), "health": health_json(cls.health)},
                "first_attempted_at_ms": adm.first_attempted_at_ms, "deadline_ms": adm.deadline_ms,
                "max_attempts": adm.schedule.max_attempts, "offsets_ms": list(adm.schedule.offsets_ms),
                "attempts": 0, "credentials_refreshed": False, "next_attempt_at_ms": self.now, "status": "pending",
                "last_outcome": "", "stop_reason": None, "dead_letter": None, "disable_endpoint": False,
                "finished_at_ms": 0, **V2_ZERO}

    async def admit_at(self, at_ms: int, event_id: str, loop: HealthLoop | None = None) -> StopReason | None:
        """A new event admitted at ``at_ms`` (counted in the endpoint's admissions), then its loop
        (``loop``, else the harness's own)."""
        loop = loop if loop is not None else self.loop
        if at_ms > self.now:
            await self.wait_until(at_ms)
        rec = self.record(event_id)
        loop.table.get(rec["endpoint_id"]).admit(self.now, self.c.policy.budget.window_ms)
        return await loop.run(rec, self.c)

    async def resume(self, rec: dict[str, Any], at_ms: int) -> StopReason | None:
        if at_ms > self.now:
            await self.wait_until(at_ms)
        return await self.loop.run(rec, self.c)

    def run(self, *coros: Any, limit_ms: int = 3_600_000) -> list[Any]:
        async def main() -> list[Any]:
            tasks = [asyncio.ensure_future(c) for c in coros]
            while not all(t.done() for t in tasks):
                for _ in range(50):  # every task runs until it waits on virtual time
                    await asyncio.sleep(0)
                if all(t.done() for t in tasks):
                    break
                assert self._wakes, "blocked with nothing to wake"
                at, _, fut = heapq.heappop(self._wakes)
                assert at - T0 <= limit_ms, "virtual time ran past the test's limit"
                self.now = max(self.now, at)
                fut.set_result(None)
            for loop in self.loops:
                await loop.settle()
            return [t.result() for t in tasks]

        return asyncio.run(main())
