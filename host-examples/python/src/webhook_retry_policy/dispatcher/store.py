"""Event store of the example dispatcher: every event is persisted with the
schedule it was admitted under and its first-attempt instant (the window
is measured from it across restarts), and dead-lettered events with their
record and reason. In memory here; crash-safe on disk in ``journal.py``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..types import Admission, DeadLetter, LimitedBy, Schedule, StopReason

PENDING, DELIVERED, DEAD, HELD = "pending", "delivered", "dead", "held"


@dataclass
class EventRecord:
    event_id: str
    endpoint_id: str
    event_class: str
    payload: dict[str, Any]
    admission: Admission
    attempt: int = 0  # attempts made so far
    next_attempt_at_ms: int = 0
    credentials_refreshed: bool = False
    status: str = PENDING
    dead_letter: DeadLetter | None = None
    last_outcome: str = ""
    history: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["admission"]["schedule"]["offsets_ms"] = list(self.admission.schedule.offsets_ms)
        d["admission"]["schedule"]["limited_by"] = self.admission.schedule.limited_by.value
        if self.dead_letter is not None:
            d["dead_letter"]["stop_reason"] = self.dead_letter.stop_reason.value
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> EventRecord:
        a = dict(d["admission"])
        s = dict(a.pop("schedule"))
        s["offsets_ms"] = tuple(s["offsets_ms"])
        s["limited_by"] = LimitedBy(s["limited_by"])
        admission = Admission(**a, schedule=Schedule(**s))
        dl = d.get("dead_letter")
        dead_letter = None if dl is None else DeadLetter(**{**dl, "stop_reason": StopReason(dl["stop_reason"])})
        rest = {k: v for k, v in d.items() if k not in ("admission", "dead_letter")}
        return cls(**rest, admission=admission, dead_letter=dead_letter)


class InMemoryEventStore:
    """Events and disabled endpoints in process memory."""

    def __init__(self) -> None:
        self.events: dict[str, EventRecord] = {}
        self.disabled_endpoints: set[str] = set()
        # ids loaded from storage: the dispatcher resumes them before their next attempt
        self.reloaded: set[str] = set()

    async def add(self, record: EventRecord) -> None:
        if record.event_id in self.events:
            raise ValueError(f"event {record.event_id} already exists")
        self.events[record.event_id] = record
        await self._save()

    async def update(self, record: EventRecord) -> None:
        self.events[record.event_id] = record
        await self._save()

    async def disable_endpoint(self, endpoint_id: str) -> None:
        self.disabled_endpoints.add(endpoint_id)
        await self._save()

    async def due(self, now_ms: int, limit: int) -> list[EventRecord]:
        ready = [r for r in self.events.values() if r.status == PENDING and r.next_attempt_at_ms <= now_ms]
        ready.sort(key=lambda r: (r.next_attempt_at_ms, r.event_id))
        return ready[:limit]

    async def next_due_at_ms(self) -> int | None:
        times = [r.next_attempt_at_ms for r in self.events.values() if r.status == PENDING]
        return min(times) if times else None

    async def dead_letters(self) -> list[EventRecord]:
        return [r for r in self.events.values() if r.status == DEAD]

    async def get(self, event_id: str) -> EventRecord:
        return self.events[event_id]

    async def _save(self) -> None:
        pass

    def close(self) -> None:
        """Nothing to release in memory (a file store releases its lock)."""
