"""The example dispatcher's :class:`EventRecord` as a journal format 2
event record (docs/journal.md) and back: the one record every host writes,
so an event the example dispatcher journaled is resumed by a replica in any
language, and the other way round.

* ``HELD`` (its endpoint was disabled by a 410) is not a journal status: such
  an event is written ``pending``; the dispatcher holds it again after a
  restart, because the dead letter that disabled the endpoint carries
  ``disable_endpoint`` and is kept by compaction.
* A finished record keeps no userinfo, query or fragment in its
  ``target`` (never sent again), as the replicas write it.
* ``history`` is this process's log of attempts: not journaled.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from ..compiled import CompiledPolicy
from ..ops import PolicyOps
from ..types import Admission, DeadLetter, Policy, Schedule, StopReason
from .journal_record import Hasher, finished_target, policy_json, to_policy
from .journal_v2 import health_json, to_health
from .store import DEAD, DELIVERED, HELD, PENDING, EventRecord

# a record's class policy -> the schedule the component plans for it
Planner = Callable[[Policy], Schedule]

_STATUS_OUT = {PENDING: "pending", HELD: "pending", DELIVERED: "delivered", DEAD: "dead_lettered"}
_STATUS_IN = {"pending": PENDING, "held": PENDING, "delivered": DELIVERED, "dead_lettered": DEAD}


def component_hasher(ops: PolicyOps) -> Hasher:
    """The policy hash ``admit-compiled`` gives a one-class document read by
    ``load-health-document`` (format 2 reads as format 2; a ``health``
    section joins the fingerprint); PolicyError when refused."""
    def policy_hash(document_json: str, event_class: str) -> str:
        doc = ops.load_health_document(document_json)
        with CompiledPolicy.for_class(doc, event_class) as compiled:
            return compiled.admit(event_class, doc.version, 0).policy_hash

    return policy_hash


def component_planner(ops: PolicyOps) -> Planner:
    """``plan`` through the component, once per distinct policy."""
    plans: dict[Policy, Schedule] = {}

    def plan(policy: Policy) -> Schedule:
        if policy not in plans:
            plans[policy] = ops.plan(policy.backoff, policy.window_ms, policy.hard_cap)
        return plans[policy]

    return plan


def event_body(event_id: str, event_class: str, payload: dict[str, Any]) -> bytes:
    """The request body the example dispatcher sends for an event it admitted."""
    return json.dumps({"id": event_id, "type": event_class, "data": payload}).encode()


def to_record(r: EventRecord) -> dict[str, Any]:
    """``r`` as a journal record; ValueError when it lacks what format 1 needs."""
    if r.policy is None:
        raise ValueError(f"event {r.event_id}: no admitted policy (journal format 1 records it with the event)")
    if r.status not in _STATUS_OUT:
        raise ValueError(f"event {r.event_id}: status {r.status!r} is not pending, held, delivered or dead")
    a, dl = r.admission, r.dead_letter
    finished = r.status in (DELIVERED, DEAD)
    stop_reason = r.stop_reason or (StopReason.DELIVERED if r.status == DELIVERED else None)
    if stop_reason is None and dl is not None:
        stop_reason = dl.stop_reason
    held = r.hold_reason is not None and r.status == PENDING  # format 3's hold (journal status held)
    policy = policy_json(r.policy)
    if r.health is not None:
        policy["health"] = health_json(r.health)
    rec: dict[str, Any] = {
        "v": 2, "type": "event", "event_id": r.event_id, "endpoint_id": r.endpoint_id,
        "target": finished_target(r.target) if finished else r.target, "class": r.event_class,
        "policy_version": a.policy_version, "policy_hash": a.policy_hash, "policy": policy,
        "first_attempted_at_ms": a.first_attempted_at_ms, "deadline_ms": a.deadline_ms,
        "max_attempts": a.schedule.max_attempts, "offsets_ms": list(a.schedule.offsets_ms), "attempts": r.attempt,
        "credentials_refreshed": r.credentials_refreshed, "next_attempt_at_ms": r.next_attempt_at_ms,
        "status": "held" if held else _STATUS_OUT[r.status],
        "last_outcome": r.last_outcome,
        "stop_reason": None if stop_reason is None or not finished else stop_reason.value,
        "dead_letter": None if dl is None else {
            "event_id": dl.event_id, "endpoint_id": dl.endpoint_id, "attempts": dl.attempts,
            "elapsed_ms": dl.elapsed_ms, "stop_reason": dl.stop_reason.value},
        "disable_endpoint": r.disable_endpoint, "finished_at_ms": r.finished_at_ms if finished else 0,
        # a hold is written only with status held (an event held for a disabled endpoint is pending)
        "held_until_ms": r.held_until_ms if held else 0, "hold_reason": r.hold_reason if held else None,
        "held_since_ms": r.held_since_ms if held else 0, "held_ms": r.held_ms,
        "needs_reserve": r.needs_reserve, "wake_refusals": r.wake_refusals, "replay_of": r.replay_of,
        "replayed_dead_letter": r.replayed_dead_letter, "replayed_as": r.replayed_as,
    }
    # the body it is sent with: as admitted, else the one the dispatcher derives from the payload
    body = r.body_b64 if r.body_b64 is not None else base64.b64encode(
        event_body(r.event_id, r.event_class, r.payload)).decode("ascii")
    rec["body_b64"] = body
    return rec


def _payload(body_b64: str | None) -> dict[str, Any]:
    """The ``data`` of a body this dispatcher wrote; {} for any other body (a replica's)."""
    if body_b64 is None:
        return {}
    try:
        body = json.loads(base64.b64decode(body_b64, validate=True))
    except ValueError:
        return {}
    data = body.get("data") if isinstance(body, dict) else None
    return data if isinstance(data, dict) else {}


def from_record(rec: dict[str, Any], plan: Planner) -> EventRecord:
    """A record the reader validated (``journal_record.parse_event``) as an :class:`EventRecord`."""
    policy = to_policy(rec["policy"])
    # max_attempts and offsets_ms are the admitted ones; the rest of the schedule follows from the policy
    planned = plan(policy)
    schedule = Schedule(max_attempts=rec["max_attempts"], expected_span_ms=planned.expected_span_ms,
                        offsets_ms=tuple(rec["offsets_ms"]), worst_case_span_ms=planned.worst_case_span_ms,
                        limited_by=planned.limited_by)
    admission = Admission(rec["class"], rec["policy_version"], rec["policy_hash"], rec["first_attempted_at_ms"],
                          rec["deadline_ms"], schedule)
    dl = rec["dead_letter"]
    return EventRecord(
        event_id=rec["event_id"], endpoint_id=rec["endpoint_id"], event_class=rec["class"],
        payload=_payload(rec.get("body_b64")), admission=admission, attempt=rec["attempts"],
        next_attempt_at_ms=rec["next_attempt_at_ms"], credentials_refreshed=rec["credentials_refreshed"],
        status=_STATUS_IN[rec["status"]],
        dead_letter=None if dl is None else DeadLetter(dl["event_id"], dl["endpoint_id"], dl["attempts"],
                                                         dl["elapsed_ms"], StopReason(dl["stop_reason"])),
        last_outcome=rec["last_outcome"], target=rec["target"], policy=policy, body_b64=rec.get("body_b64"),
        stop_reason=None if rec["stop_reason"] is None else StopReason(rec["stop_reason"]),
        disable_endpoint=rec["disable_endpoint"], finished_at_ms=rec["finished_at_ms"],
        health=to_health(rec["policy"].get("health")), hold_reason=rec.get("hold_reason"),
        held_until_ms=rec.get("held_until_ms", 0), held_since_ms=rec.get("held_since_ms", 0),
        held_ms=rec.get("held_ms", 0), needs_reserve=rec.get("needs_reserve", False),
        wake_refusals=rec.get("wake_refusals", 0), replay_of=rec.get("replay_of"),
        replayed_dead_letter=rec.get("replayed_dead_letter"), replayed_as=rec.get("replayed_as"),
    )
