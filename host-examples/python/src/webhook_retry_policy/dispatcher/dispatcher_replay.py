"""``Dispatcher.replay(filter)``: the example dispatcher's library call for
replaying dead letters (docs/health-dispatch.md section 4), on its event
store (in memory or the journal), with the rules of ``replay.py``: chosen
in store order, not yet replayed, at most ``limit``; each admitted under
the current document (``admit-compiled`` for a class with ``health``) as
``<id>~r<n>``; the replay's own record stored first (the commit), then the
dead letter's ``replayed_as``; ``webhook_replayed_total`` counts them. The
replays are due now and, with ``health``, meet their first gate held.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .replay import ReplayFilter, replay_id
from .store import DEAD, PENDING, EventRecord


def _chosen(r: EventRecord, f: ReplayFilter) -> bool:
    reason = r.stop_reason.value if r.stop_reason is not None else None
    return f.chooses({"status": "dead_lettered", "endpoint_id": r.endpoint_id, "stop_reason": reason,
                      "finished_at_ms": r.finished_at_ms})


async def replay(d: Any, f: ReplayFilter) -> dict[str, Any]:
    """``d``: the :class:`~.dispatcher.Dispatcher` (not imported: it imports this module)."""
    out: dict[str, Any] = {"replayed": 0, "already_replayed": 0, "skipped_no_class": 0, "ids": []}
    replay_of = {r.replay_of: r.event_id for r in d.store.events.values() if r.replay_of is not None}
    now = d.clock.now_ms()
    for r in list(d.store.events.values()):
        if r.status != DEAD or not _chosen(r, f):
            continue
        if r.replayed_as is not None or r.event_id in replay_of:
            out["already_replayed"] += 1
            continue
        if out["replayed"] + out["skipped_no_class"] >= f.limit:
            break
        health_doc = d.health.document if d.health is not None else None
        health = d.health.health_of(r.event_class) if d.health is not None else None
        if health_doc is not None and health is not None:
            policy = next(c.policy for c in health_doc.classes if c.name == r.event_class)
            admission = d.health.compiled(policy, health).admit(r.event_class, health_doc.version, now)
        elif any(c.name == r.event_class for c in d.document.classes):
            admission = d.documents.admit(r.event_class, now)
            policy = d.documents.policy_for(admission)
        else:
            out["skipped_no_class"] += 1
            continue
        new_id = replay_id(r.event_id)
        dl = r.dead_letter
        new = EventRecord(
            event_id=new_id, endpoint_id=r.endpoint_id, event_class=r.event_class, payload=r.payload,
            admission=admission, next_attempt_at_ms=now, target=r.target, policy=policy, body_b64=r.body_b64,
            health=health, replay_of=r.event_id,
            replayed_dead_letter=None if dl is None else {
                "event_id": dl.event_id, "endpoint_id": dl.endpoint_id, "attempts": dl.attempts,
                "elapsed_ms": dl.elapsed_ms, "stop_reason": dl.stop_reason.value},
        )
        assert new.status == PENDING
        await d.store.add(new)  # the commit
        await d.store.update(dataclasses.replace(r, replayed_as=new_id))
        out["replayed"] += 1
        out["ids"].append(new_id)
        d.metrics.replayed.inc()
    return out
