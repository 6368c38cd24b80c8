"""The example dispatcher's format-3 part: an event whose class has a
``health`` section (``Dispatcher(health_document=...)``, read by
``load-health-document``) takes, at each due instant, one
:meth:`HealthLoop.step` (docs/health-dispatch.md section 2: gate, probe,
wake, send, advance) on its record in journal shape; the round-based
dispatcher then stores the record (a hold is journaled before the round
goes on) and picks it up again when it is due. A class without ``health``
never comes here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..compiled import CompiledPolicy
from ..types import AttemptOutcome, EventClass, Health, HealthDocument, Policy, PolicyDocument, Stop, StopReason
from .health_loop import HealthLoop
from .journal_event import to_record
from .metrics import DispatcherMetrics
from .store import EventRecord

# (record, attempt number) -> the outcome, the window's stop, or None (drained)
Sender = Callable[[EventRecord, int], Awaitable[AttemptOutcome | StopReason | None]]

_SYNCED = ("last_outcome", "credentials_refreshed", "next_attempt_at_ms", "held_until_ms", "hold_reason",
           "held_since_ms", "held_ms", "needs_reserve", "wake_refusals")


class DispatcherHealth:
    """The :class:`LoopHost` of the example dispatcher (one step at a time)."""

    def __init__(self, document: HealthDocument, clock: Any, store: Any, metrics: DispatcherMetrics,
                 sender: Sender, *, store_timeout_s: float = 1.0) -> None:
        self.document, self.clock, self.sender = document, clock, sender
        self.loop = HealthLoop(self, store, metrics, store_timeout_s=store_timeout_s)
        self._compiled: dict[tuple[Policy, Health | None], CompiledPolicy] = {}
        self._records: dict[str, EventRecord] = {}
        self._stops: dict[str, Stop] = {}

    def health_of(self, event_class: str) -> Health | None:
        return next((c.health for c in self.document.classes if c.name == event_class), None)

    def compiled(self, policy: Policy, health: Health | None) -> CompiledPolicy:
        key = (policy, health)
        c = self._compiled.get(key)
        if c is None:
            c = self._compiled[key] = CompiledPolicy(policy, health)
        return c

    def admitted(self, record: EventRecord) -> None:
        """A new event (not a replay) counts in its endpoint's admissions."""
        assert record.policy is not None
        self.loop.table.get(record.endpoint_id).admit(self.clock.now_ms(), record.policy.budget.window_ms)

    # ---- LoopHost ----

    def now_ms(self) -> int:
        return int(self.clock.now_ms())

    async def wait_until(self, at_ms: int) -> bool:  # step() never waits
        return True

    async def send_attempt(self, rec: dict[str, Any], n: int) -> AttemptOutcome | StopReason | None:
        record = self._records[rec["event_id"]]
        _sync(rec, record)  # left its hold: an attempt abandoned at a drain's deadline is journaled pending
        return await self.sender(record, n)

    def persist(self, rec: dict[str, Any]) -> None:
        pass  # the dispatcher stores the record after the step (before the round goes on)

    def finish(self, rec: dict[str, Any], stop: Stop) -> StopReason:
        self._stops[rec["event_id"]] = stop
        return stop.reason

    # ---- one due instant ----

    async def step(self, record: EventRecord) -> Stop | None:
        """One step of ``record``, copied back onto it; the ``Stop`` to apply, if it finished."""
        assert record.policy is not None
        rec = to_record(record)
        self._records[record.event_id] = record
        try:
            await self.loop.step(rec, self.compiled(record.policy, record.health))
        finally:
            self._records.pop(record.event_id, None)
        _sync(rec, record)
        return self._stops.pop(record.event_id, None)


def _sync(rec: dict[str, Any], record: EventRecord) -> None:
    record.attempt = rec["attempts"]
    for k in _SYNCED:
        setattr(record, k, rec[k])
    if rec["status"] == "held":
        record.next_attempt_at_ms = rec["held_until_ms"]


def policy_document(document: HealthDocument) -> PolicyDocument:
    """A format-3 document's classes without their sections (what ``DocumentHolder`` and ``admit`` take)."""
    return PolicyDocument(document.version, tuple(EventClass(c.name, c.policy) for c in document.classes))
