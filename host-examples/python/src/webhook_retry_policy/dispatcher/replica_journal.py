"""The Python replica's ``--store FILE`` and ``--resume FILE`` (journal
format 1, docs/journal.md), like the Rust replica's:

* ``--store FILE`` journals the run: each event's record is written (and
  fdatasynced) when it is admitted, after each retry decision and when it
  stops; the file's own pending events are continued first (a restart
  after a crash: the lock of a killed writer is stale and removed).
* ``--resume FILE`` continues the pending events of another replica's
  journal, in any language: events admitted by someone else, each decided
  under the ``policy`` recorded with it (checked against its
  ``policy_hash``), never under this replica's ``--policy``. Each waits for
  its ``next_attempt_at_ms``, goes through the component's ``resume``
  (stopped ones are dead-lettered without a request), and keeps its
  first-attempt instant, deadline and schedule.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from typing import Any

from ..redact import redact
from ..transport_kinds import TransportKind
from ..types import (
    DeadLetter,
    DeliveryState,
    HealthDocument,
    HttpResponse,
    Policy,
    PolicyDocument,
    Retry,
    Stop,
    StopReason,
)
from .health_loop import HealthLoop
from .journal_event import component_hasher
from .journal_record import JournalError, finished_target, policy_json, to_policy
from .journal_v2 import V2_ZERO, as_v2
from .journal_writer import Journal, read_file
from .metrics import DispatcherMetrics
from .replica_health import HealthHost
from .replica_run import EVENT_CLASS, Replica

log = logging.getLogger("webhook_retry_policy.replica")


class JournaledReplica(HealthHost, Replica):
    """A replica whose events are journaled (``--store``) and which first
    continues journaled pending and held events (its own, and ``--resume``'s);
    also the replica of a class with ``health`` (without a journal then):
    such events run the format-3 send loop (``replica_health``)."""

    def __init__(self, args: Any, policy: Any, storm: Policy, max_attempts: int, client: Any,
                 document: PolicyDocument, *, store: Any = None, health_doc: HealthDocument | None = None,
                 metrics: DispatcherMetrics | None = None) -> None:
        super().__init__(args, policy, storm, max_attempts, client, metrics)
        self.document = document
        self.setup_health(HealthLoop(self, store, self.metrics, store_timeout_s=getattr(policy, "store_timeout_s", None)
                                     or 1.0), health_doc)
        hasher = component_hasher(policy)
        self.journal = Journal(args.store, hasher) if args.store is not None else None
        resumed: dict[str, dict[str, Any]] = {}
        if self.journal is not None:
            if self.journal.torn_bytes:
                log.warning("--store %s: cut a torn last record (%d bytes; never acknowledged)", args.store,
                            self.journal.torn_bytes)
            resumed.update(self.journal.events)
        if args.resume is not None and args.resume != args.store:
            try:
                resumed.update({r["event_id"]: r for r in read_file(args.resume, hasher)})
            except BaseException:
                self.close()
                raise
        # pending and held records alike are resumed; every record this run writes is v2
        self.resumed = [as_v2(r) for r in resumed.values() if r["status"] in ("pending", "held")]

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()

    def _persist(self, rec: dict[str, Any]) -> None:
        """Journal ``rec``; a failed write (disk full) is logged and the run goes
        on, as the Rust dispatcher does (the line was cut back: the journal stays whole)."""
        if self.journal is not None:
            try:
                self.journal.append(rec)
            except JournalError as e:
                log.error("event %s: %s", rec["event_id"], redact(str(e)))

    async def run(self) -> None:
        self.tally.events += len(self.resumed)
        for rec in self.resumed:
            self._persist(rec)  # this journal knows every event it continues
            if rec["status"] == "held":
                self.loop.count_resumed_hold()

        async def resumed_one(rec: dict[str, Any]) -> None:
            reason = await self._resume(rec)
            if reason is not None:  # None: a drain left it pending (its record says so)
                self._stopped(reason)

        await asyncio.gather(super().run(), *(resumed_one(r) for r in self.resumed))
        await self.loop.settle()

    async def deliver(self, event_id: str) -> StopReason | None:
        health = self.class_health()
        if health is not None:
            return await self.deliver_health(event_id, health)
        now = self.policy.clock.now_ms()
        adm = self.policy.admit(self.document, EVENT_CLASS, now)
        rec: dict[str, Any] = {
            "v": 2, "type": "event", "event_id": event_id, "endpoint_id": self.args.endpoint_id,
            "target": self.args.target, "class": EVENT_CLASS, "policy_version": adm.policy_version,
            "policy_hash": adm.policy_hash, "policy": policy_json(self.storm),
            "first_attempted_at_ms": adm.first_attempted_at_ms, "deadline_ms": adm.deadline_ms,
            "max_attempts": adm.schedule.max_attempts, "offsets_ms": list(adm.schedule.offsets_ms), "attempts": 0,
            "credentials_refreshed": False, "next_attempt_at_ms": now, "status": "pending", "last_outcome": "",
            "stop_reason": None, "dead_letter": None, "disable_endpoint": False, "finished_at_ms": 0, **V2_ZERO,
        }
        self._persist(rec)
        return await self._attempts(rec, self.storm)

    async def _resume(self, rec: dict[str, Any]) -> StopReason | None:
        if rec["policy"].get("health") is not None:
            return await self.resume_health(rec)
        policy = to_policy(rec["policy"])  # the admitted policy, checked against policy_hash when read
        wait_ms = rec["next_attempt_at_ms"] - self.policy.clock.now_ms()
        if wait_ms > 0 and not await self._wait(wait_ms):
            return None
        judged = self.policy.resume(policy, self._state(rec, rec["attempts"]))
        if isinstance(judged, Stop):
            return self._finish(rec, judged)
        return await self._attempts(rec, policy)

    @staticmethod
    def _state(rec: dict[str, Any], attempt_no: int) -> DeliveryState:
        return DeliveryState(rec["event_id"], rec["endpoint_id"], attempt_no, rec["max_attempts"],
                             rec["first_attempted_at_ms"], rec["credentials_refreshed"])

    def _finish(self, rec: dict[str, Any], stop: Stop) -> StopReason:
        dl = stop.dead_letter
        rec.update({
            "status": "delivered" if stop.reason is StopReason.DELIVERED else "dead_lettered",
            "stop_reason": stop.reason.value, "disable_endpoint": stop.disable_endpoint,
            "dead_letter": None if dl is None else {
                "event_id": dl.event_id, "endpoint_id": dl.endpoint_id, "attempts": dl.attempts,
                "elapsed_ms": dl.elapsed_ms, "stop_reason": dl.stop_reason.value},
            "finished_at_ms": self.policy.clock.now_ms(), "target": finished_target(rec["target"]),
        })
        self._persist(dict(rec))
        return stop.reason

    async def _attempts(self, rec: dict[str, Any], policy: Policy) -> StopReason | None:
        """Attempt after attempt under ``policy`` until it stops the event, or
        a drain leaves it pending (None; every attempt goes through
        ``Replica.send``: the drain, the window's edge, counts and metrics)."""
        event_id = rec["event_id"]
        window_end_ms = rec["first_attempted_at_ms"] + policy.window_ms
        while True:
            n = rec["attempts"] + 1
            body = (base64.b64decode(rec["body_b64"]) if "body_b64" in rec else
                    json.dumps({"event_id": event_id, "class": rec["class"], "attempt": n}).encode())
            try:
                sent = await self.send(event_id, n, rec["target"], body, rec["first_attempted_at_ms"], window_end_ms)
            except asyncio.CancelledError:
                # abandoned at the drain's deadline: made (counted), never reused by a resume; no response in time
                rec.update({"attempts": n, "last_outcome": TransportKind.READ_TIMEOUT.value,
                            "next_attempt_at_ms": self.policy.clock.now_ms()})
                self._persist(dict(rec))
                raise
            if sent is None:
                return None
            if isinstance(sent, StopReason):  # the window closed before the request was written: a dead letter
                elapsed_ms = max(0, self.policy.clock.now_ms() - rec["first_attempted_at_ms"])
                return self._finish(rec, Stop(sent, dead_letter=DeadLetter(event_id, rec["endpoint_id"], n - 1,
                                                                             elapsed_ms, sent)))
            outcome = sent
            rec["attempts"] = n
            rec["last_outcome"] = str(outcome.status) if isinstance(outcome, HttpResponse) else outcome.kind
            decision = await self.decide(policy, self._state(rec, n), outcome)
            if isinstance(decision, Stop):
                return self._finish(rec, decision)
            assert isinstance(decision, Retry)
            rec["credentials_refreshed"] = rec["credentials_refreshed"] or decision.refresh_credentials
            rec["next_attempt_at_ms"] = self.policy.clock.now_ms() + decision.delay_ms
            self._persist(dict(rec))
            if not await self._wait(decision.delay_ms):
                return None
