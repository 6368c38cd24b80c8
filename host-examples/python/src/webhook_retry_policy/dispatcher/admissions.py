"""What a run admits: the replica's ids ``<prefix>-<i>`` (:class:`Admissions`),
or any :class:`AdmissionSource` (the demo's rounds). The driver offers the
engine as many as the open events leave room for; those refused
``at_capacity`` (docs/engine.md section 1, ``max_open``) are given back and
taken again first; one refused ``duplicate_event`` is dropped (the driver
logs it)."""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol


class AdmissionSource(Protocol):
    """What the driver admits from (the replica's :class:`Admissions`, the demo's rounds)."""

    def take(self, room: int, now_ms: int) -> list[dict[str, Any]]: ...  # at most ``room`` admit inputs
    def take_now(self, now_ms: int) -> bool: ...  # an admission is possible now, given a slot
    def wake_at(self, now_ms: int) -> int | None: ...  # when admission goes on by itself (a timer)
    def done(self, now_ms: int) -> bool: ...  # nothing more to admit
    def give_back(self, refused: list[dict[str, Any]]) -> None: ...  # taken, refused at_capacity: first again


class Admissions:
    """Events to admit: ids ``<prefix>-<i>`` for ``i < events``, until
    ``deadline_at_ms``; with ``rate_per_s``, the k-th (from 0) no earlier than
    ``start_ms + k * 1000 / rate_per_s`` (``--rate``). Those refused
    ``at_capacity`` are given back and taken again first, in their order."""

    def __init__(self, prefix: str, events: int, endpoint_id: str, target: str, event_class: str,
                 deadline_at_ms: int | None, *, rate_per_s: float | None = None, start_ms: int = 0) -> None:
        self.prefix, self.events, self.endpoint_id, self.target = prefix, events, endpoint_id, target
        self.event_class, self.deadline_at_ms = event_class, deadline_at_ms
        self.rate_per_s, self.start_ms = rate_per_s, start_ms
        self.next = 0  # the next new id's i
        self.back: deque[dict[str, Any]] = deque()  # given back (refused at_capacity): taken before new ids

    def _due_ms(self) -> int:
        """When the next event may be admitted (the Rust replica's rule: whole ms, rounded down;
        k counts the events taken and not given back)."""
        if self.rate_per_s is None:
            return self.start_ms
        return self.start_ms + int(min((self.next - len(self.back)) * 1000 / self.rate_per_s, 2.0**62))

    def wake_at(self, now_ms: int) -> int | None:
        """When admission goes on by itself: the next paced instant (or the
        deadline, if sooner) while it is ahead; else never (it needs a slot)."""
        if self.done(now_ms) or (due := self._due_ms()) <= now_ms:
            return None
        return due if self.deadline_at_ms is None else min(due, self.deadline_at_ms)

    def take_now(self, now_ms: int) -> bool:
        """Whether an admission is possible now (given a free slot)."""
        return not self.done(now_ms) and self._due_ms() <= now_ms

    def done(self, now_ms: int) -> bool:
        deadline = self.deadline_at_ms is not None and now_ms >= self.deadline_at_ms
        return deadline or (not self.back and self.next >= self.events)

    def give_back(self, refused: list[dict[str, Any]]) -> None:
        """Admissions taken and refused ``at_capacity``, in the order taken: they come first again
        (only they: a ``duplicate_event`` between them is not this run's to admit)."""
        self.back.extendleft(reversed(refused))

    def take(self, room: int, now_ms: int) -> list[dict[str, Any]]:
        out = []
        while room > 0 and self.take_now(now_ms):
            if self.back:
                out.append(self.back.popleft())
            else:
                out.append({"op": "admit", "event_id": f"{self.prefix}-{self.next}", "endpoint_id": self.endpoint_id,
                            "target": self.target, "class": self.event_class})
                self.next += 1
            room -= 1
        return out
