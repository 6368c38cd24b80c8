"""The replica's format-3 part (docs/health-dispatch.md, section 6): an
event of a class with ``health`` (a new one, or a journaled record whose
``policy`` carries a section) runs :class:`HealthLoop`; this mixin is its
:class:`LoopHost` on top of :class:`JournaledReplica` (the clock, the
drain-aware waits, ``Replica.send``, the journal and the dead-letter
write). A class without ``health`` never comes here: it runs exactly as
before.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from ..compiled import CompiledPolicy
from ..types import AttemptOutcome, Health, HealthDocument, Policy, Stop, StopReason
from .health_loop import HealthLoop
from .journal_record import policy_json, to_policy
from .journal_v2 import V2_ZERO, health_json, to_health

EVENT_CLASS = "storm"


class HealthHost:
    """Mixed into :class:`JournaledReplica`; ``setup_health`` before use."""

    # provided by JournaledReplica / Replica
    policy: Any
    args: Any
    tally: Any
    loop: HealthLoop
    health_doc: HealthDocument | None

    def setup_health(self, loop: HealthLoop, health_doc: HealthDocument | None) -> None:
        self.loop, self.health_doc = loop, health_doc
        self._compiled: dict[tuple[Policy, Health | None], CompiledPolicy] = {}

    def compiled_for(self, policy: Policy, health: Health | None) -> CompiledPolicy:
        key = (policy, health)
        c = self._compiled.get(key)
        if c is None:
            c = self._compiled[key] = CompiledPolicy(policy, health)
        return c

    def class_health(self) -> Health | None:
        doc = self.health_doc
        return None if doc is None else next((c.health for c in doc.classes if c.name == EVENT_CLASS), None)

    # ---- LoopHost ----

    def now_ms(self) -> int:
        return int(self.policy.clock.now_ms())

    async def wait_until(self, at_ms: int) -> bool:
        return bool(await self._wait(max(0, at_ms - self.now_ms())))  # type: ignore[attr-defined]

    async def send_attempt(self, rec: dict[str, Any], n: int) -> AttemptOutcome | StopReason | None:
        body = (base64.b64decode(rec["body_b64"]) if "body_b64" in rec else
                json.dumps({"event_id": rec["event_id"], "class": rec["class"], "attempt": n}).encode())
        window_end_ms = rec["first_attempted_at_ms"] + rec["policy"]["window_ms"]
        return await self.send(rec["event_id"], n, rec["target"], body,  # type: ignore[attr-defined,no-any-return]
                               rec["first_attempted_at_ms"], window_end_ms)

    def persist(self, rec: dict[str, Any]) -> None:
        self._persist(rec)  # type: ignore[attr-defined]

    def finish(self, rec: dict[str, Any], stop: Stop) -> StopReason:
        return self._finish(rec, stop)  # type: ignore[attr-defined,no-any-return]

    # ---- events ----

    async def deliver_health(self, event_id: str, health: Health) -> StopReason | None:
        """A new event of a class with ``health``: admitted (``admit-compiled``), journaled, gated from its first attempt."""
        storm: Policy = self.storm  # type: ignore[attr-defined]
        c = self.compiled_for(storm, health)
        now = self.now_ms()
        assert self.health_doc is not None
        adm = c.admit(EVENT_CLASS, self.health_doc.version, now)
        rec: dict[str, Any] = {
            "v": 2, "type": "event", "event_id": event_id, "endpoint_id": self.args.endpoint_id,
            "target": self.args.target, "class": EVENT_CLASS, "policy_version": adm.policy_version,
            "policy_hash": adm.policy_hash, "policy": {**policy_json(storm), "health": health_json(health)},
            "first_attempted_at_ms": adm.first_attempted_at_ms, "deadline_ms": adm.deadline_ms,
            "max_attempts": adm.schedule.max_attempts, "offsets_ms": list(adm.schedule.offsets_ms), "attempts": 0,
            "credentials_refreshed": False, "next_attempt_at_ms": now, "status": "pending", "last_outcome": "",
            "stop_reason": None, "dead_letter": None, "disable_endpoint": False, "finished_at_ms": 0, **V2_ZERO,
        }
        self.persist(rec)
        self.loop.table.get(rec["endpoint_id"]).admit(now, storm.budget.window_ms)
        return await self.loop.run(rec, c)

    async def resume_health(self, rec: dict[str, Any]) -> StopReason | None:
        """A journaled record of a class with ``health``: ``resume`` (the window and attempts), then due at
        ``held_until_ms`` (held) or ``next_attempt_at_ms``, then the loop (a held one meets the gate held)."""
        policy = to_policy(rec["policy"])
        c = self.compiled_for(policy, to_health(rec["policy"].get("health")))
        held = rec["status"] == "held"
        judged = self.policy.resume(policy, self._state(rec, rec["attempts"]))  # type: ignore[attr-defined]
        if isinstance(judged, Stop):
            if held:
                self.loop._leave_hold(rec, self.now_ms())
            return self.finish(rec, judged)
        due = rec["held_until_ms"] if held else rec["next_attempt_at_ms"]
        if due > self.now_ms() and not await self.wait_until(due):
            return None
        return await self.loop.run(rec, c)

    def health_summary(self) -> dict[str, Any]:
        n = self.loop.counts
        return {"holds": dict(n.holds), "held": n.held, "probe_calls": n.probe_calls, "wake_calls": n.wake_calls}
