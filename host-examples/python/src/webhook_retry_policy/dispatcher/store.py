"""Event store of the example dispatcher: every event is persisted with the
schedule and class policy it was admitted under and its first-attempt
instant (the window is measured from it across restarts), and
dead-lettered events with their record and reason. In memory here; on disk
in journal format 1 in ``journal.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..types import Admission, DeadLetter, Health, Policy, StopReason

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
    last_outcome: str = ""  # the last attempt's status code ("503") or transport kind, as journaled
    history: list[dict[str, Any]] = field(default_factory=list)  # this process's attempts (not journaled)
    target: str = ""  # the URL as admitted; a resumed event is sent there
    policy: Policy | None = None  # the class policy it was admitted under (decides every attempt)
    body_b64: str | None = None  # the request body as admitted (None: derived from the payload)
    stop_reason: StopReason | None = None  # once finished
    disable_endpoint: bool = False  # the 410 signal that disabled its endpoint
    finished_at_ms: int = 0  # when it stopped (0 while pending)
    # format 3 (docs/health-dispatch.md; journal format 2): the class's health section, the hold, the replay
    health: Health | None = None  # the section it was admitted with (None: format 2, no gate)
    hold_reason: str | None = None  # set while held (status stays PENDING, due at next_attempt_at_ms)
    held_until_ms: int = 0
    held_since_ms: int = 0
    held_ms: int = 0
    needs_reserve: bool = False
    wake_refusals: int = 0
    replay_of: str | None = None
    replayed_dead_letter: dict[str, Any] | None = None
    replayed_as: str | None = None


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
