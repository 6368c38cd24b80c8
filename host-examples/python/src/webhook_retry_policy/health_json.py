"""The JSON shapes of ``tests/vectors/format3-*.json`` (docs/health.md
section 7) <-> typed values, as ``contract_json`` is for formats 1 and 2.

Decoding is strict: an unknown or missing field raises
:class:`~.contract_json.ShapeError` (a broken vector); a wrong type raises
``PolicyError("invalid_input")`` from the typed constructors. Shapes only:
a section is spelled out whole in these files (every default written), so
it maps field by field onto the WIT ``health`` record and the component
judges it (``compile``); a section inside a document goes to
``load-health-document`` as text.
"""

from __future__ import annotations

from typing import Any

from .contract_json import _join, bucket_counts, decision_to_json, fields
from .types import (
    Budget,
    BudgetHold,
    CallReply,
    Circuit,
    DeadLetter,
    FailureBuckets,
    Finished,
    GateAnswer,
    GateEvent,
    Health,
    HealthCall,
    HealthClass,
    HealthState,
    HealthView,
    HeldBuckets,
    HeldHealth,
    HeldStop,
    Hold,
    Paced,
    Pacer,
    Probe,
    Release,
    SendProbe,
    StoreCall,
    Wait,
    Wake,
    WakeHold,
    WakeVerdict,
)

VIEW_KEYS = ("paused_until_ms", "opened_at_ms", "cooldown_ms", "closed_at_ms", "as_of_ms")
CIRCUIT_KEYS = ("failure_ratio", "min_sample", "cooldown_ms", "cooldown_max_ms", "probes", "probe_interval_ms")
EVENT_KEYS = ("event_id", "endpoint_id", "attempts", "first_attempted_at_ms", "held", "held_ms")
WAKE_KEYS = ("event_id", "endpoint_id", "attempts", "first_attempted_at_ms", "refusals")
STATE_KEYS = ("paused_until_ms", "opened_at_ms", "cooldown_ms", "probe_window", "probes_granted", "closed_at_ms")


def release(v: Any, path: str = "release") -> Release:
    f = fields(v, path, ("multiple", "floor_per_s"))
    return Release(f["multiple"], f["floor_per_s"])


def circuit(v: Any, path: str) -> Circuit | None:
    if v is None:
        return None
    f = fields(v, path, CIRCUIT_KEYS)
    return Circuit(*(f[k] for k in CIRCUIT_KEYS))


def section(v: Any, path: str = "health") -> Health | None:
    """A whole section (null: none)."""
    if v is None:
        return None
    f = fields(v, path, ("hold_budget_refusals", "pause", "circuit", "release", "cache_ms"))
    pause = fields(f["pause"], _join(path, "pause"), ("max_ms",))
    return Health(f["hold_budget_refusals"], pause["max_ms"], circuit(f["circuit"], _join(path, "circuit")),
                  release(f["release"], _join(path, "release")), f["cache_ms"])


def view(v: Any, path: str = "view") -> HealthView:
    f = fields(v, path, VIEW_KEYS)
    return HealthView(*(f[k] for k in VIEW_KEYS))


def pacer(v: Any, path: str = "pacer") -> Pacer:
    f = fields(v, path, ("tokens", "updated_ms", "normal_per_s"))
    return Pacer(f["tokens"], f["updated_ms"], f["normal_per_s"])


def gate_event(v: Any, path: str = "event") -> GateEvent:
    f = fields(v, path, EVENT_KEYS)
    return GateEvent(*(f[k] for k in EVENT_KEYS))


def wake(v: Any, path: str = "wake") -> Wake:
    f = fields(v, path, WAKE_KEYS)
    return Wake(*(f[k] for k in WAKE_KEYS))


def held(v: Any, path: str = "held") -> HeldHealth:
    f = fields(v, path, ("buckets", "health"))
    b = fields(f["buckets"], _join(path, "buckets"), ("bucket", "current", "previous"))
    bp = _join(path, "buckets")
    buckets = HeldBuckets(b["bucket"], bucket_counts(b["current"], _join(bp, "current")),
                          bucket_counts(b["previous"], _join(bp, "previous")))
    hp = _join(path, "health")
    h = fields(f["health"], hp, ("failures",) + STATE_KEYS)
    fl = fields(h["failures"], _join(hp, "failures"), ("bucket", "current", "previous"))
    state = HealthState(FailureBuckets(fl["bucket"], fl["current"], fl["previous"]), *(h[k] for k in STATE_KEYS))
    return HeldHealth(buckets, state)


def store_call(v: Any, sec: Health, budget: Budget, path: str = "request") -> StoreCall:
    """A store case's request as the ``store-call`` the component applies:
    the section's circuit and the case's budget; ``apply-call`` reads no key
    or endpoint, so they are left empty."""
    f = fields(v, path, ("op", "bucket", "outcome", "pause_until_ms", "probe"))
    health = HealthCall(f["outcome"], f["pause_until_ms"], f["probe"], sec.circuit)
    return StoreCall(f["op"], "", "", f["bucket"], budget, health)


# --- outputs in the vectors' shape ------------------------------------------

def section_to_json(h: Health) -> dict[str, Any]:
    c = h.circuit
    circuit_json = None if c is None else {k: getattr(c, k) for k in CIRCUIT_KEYS}
    return {"hold_budget_refusals": h.hold_budget_refusals, "pause": {"max_ms": h.pause_max_ms},
            "circuit": circuit_json,
            "release": {"multiple": h.release.multiple, "floor_per_s": h.release.floor_per_s}, "cache_ms": h.cache_ms}


def health_class_to_json(c: HealthClass) -> dict[str, Any]:
    return {"name": c.name, "health": None if c.health is None else section_to_json(c.health),
            "hash_words": None if c.health is None else [f"{w:016x}" for w in c.hash_words],
            "policy_hash": c.policy_hash}


def view_to_json(v: HealthView) -> dict[str, Any]:
    return {k: getattr(v, k) for k in VIEW_KEYS}


def pacer_to_json(p: Pacer) -> dict[str, Any]:
    return {"tokens": p.tokens, "updated_ms": p.updated_ms, "normal_per_s": p.normal_per_s}


def reply_to_json(r: CallReply) -> dict[str, Any]:
    res = r.reservation
    reservation = None if res is None else {"reserved": res.reserved, "counts": {
        "current": {"total": res.counts.current.total, "retries": res.counts.current.retries},
        "previous": {"total": res.counts.previous.total, "retries": res.counts.previous.retries}}}
    return {"reservation": reservation, "granted": r.granted, "view": None if r.view is None else view_to_json(r.view)}


def held_to_json(h: HeldHealth) -> dict[str, Any]:
    b, s = h.buckets, h.health
    return {
        "buckets": {"bucket": b.bucket, "current": {"total": b.current.total, "retries": b.current.retries},
                    "previous": {"total": b.previous.total, "retries": b.previous.retries}},
        "health": {"failures": {"bucket": s.failures.bucket, "current": s.failures.current,
                                "previous": s.failures.previous}, **{k: getattr(s, k) for k in STATE_KEYS}},
    }


def dead_letter_to_json(d: DeadLetter) -> dict[str, Any]:
    return {"event_id": d.event_id, "endpoint_id": d.endpoint_id, "attempts": d.attempts, "elapsed_ms": d.elapsed_ms,
            "stop_reason": d.stop_reason.value}


def gate_answer_to_json(a: GateAnswer) -> dict[str, Any]:
    v = a.verdict
    if isinstance(v, Hold):
        d: dict[str, Any] = {"action": "hold", "until_ms": v.until_ms, "reason": v.reason.value}
    elif isinstance(v, HeldStop):
        d = {"action": "stop", "stop_reason": v.dead_letter.stop_reason.value,
             "dead_letter": dead_letter_to_json(v.dead_letter), "held_ms": v.held_ms}
    elif isinstance(v, Probe):
        d = {"action": "probe"}
    else:
        d = {"action": "send", "probe": isinstance(v, SendProbe)}
    return {"decision": d, "pacer": pacer_to_json(a.pacer)}


def finished_to_json(f: Finished) -> dict[str, Any]:
    v = f.verdict
    if isinstance(v, BudgetHold):
        d: dict[str, Any] = {"hold": {"until_ms": v.until_ms, "refresh_credentials": v.refresh_credentials}}
    else:
        d = decision_to_json(v)
    return {"decision": d, "budget_disagreement": f.budget_disagreement}


def wake_verdict_to_json(v: WakeVerdict) -> dict[str, Any]:
    if isinstance(v, WakeHold):
        return {"action": "hold", "until_ms": v.until_ms, "refusals": v.refusals}
    if isinstance(v, DeadLetter):
        return {"action": "stop", "stop_reason": v.stop_reason.value, "dead_letter": dead_letter_to_json(v)}
    return {"action": "send"}


def paced_to_json(p: Paced) -> dict[str, Any]:
    v = p.verdict
    return {"action": "wait", "until_ms": v.value} if isinstance(v, Wait) else {"action": "send"}

