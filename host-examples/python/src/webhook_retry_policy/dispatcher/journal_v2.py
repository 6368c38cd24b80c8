"""Journal format 2's additions (docs/journal.md, "Journal format 2"): the
v2 fields of an event record (holds and replays), a policy's expanded
``health`` section, and the ``replayed_as`` a reader derives from a later
record's ``replay_of``.

Read as strictly as format 1: a v2 record carries every v2 field, a v1
record none of them (the format-1 reader's leftover-field check names it).
"""

from __future__ import annotations

from typing import Any, Protocol

from ..types import Circuit, Health, HoldReason, Release

HOLD_REASONS = frozenset(r.value for r in HoldReason)
V2_FIELDS = ("held_until_ms", "hold_reason", "held_since_ms", "held_ms", "needs_reserve", "wake_refusals",
             "replay_of", "replayed_dead_letter", "replayed_as")
V2_ZERO: dict[str, Any] = {"held_until_ms": 0, "hold_reason": None, "held_since_ms": 0, "held_ms": 0,
                           "needs_reserve": False, "wake_refusals": 0, "replay_of": None,
                           "replayed_dead_letter": None, "replayed_as": None}
CIRCUIT_KEYS = ("failure_ratio", "min_sample", "cooldown_ms", "cooldown_max_ms", "probes", "probe_interval_ms")


class Fields(Protocol):
    """journal_record._Fields, as this module uses it."""

    obj: dict[str, Any]

    def err(self, k: str, why: str) -> Exception: ...
    def take(self, k: str) -> Any: ...
    def uint(self, k: str, limit: int = ...) -> int: ...
    def number(self, k: str) -> float: ...
    def flag(self, k: str) -> bool: ...
    def done(self) -> None: ...


FieldsOf = Any  # (value, prefix, line) -> Fields: journal_record._Fields


def parse_health(make: FieldsOf, v: Any, line: int) -> dict[str, Any] | None:
    """A policy's ``health`` section, every field written out (null: none)."""
    if v is None:
        return None
    f = make(v, "policy.health.", line)
    out: dict[str, Any] = {"hold_budget_refusals": f.flag("hold_budget_refusals")}
    p = make(f.take("pause"), "policy.health.pause.", line)
    out["pause"] = {"max_ms": p.uint("max_ms")}
    p.done()
    c = f.take("circuit")
    if c is None:
        out["circuit"] = None
    else:
        cf = make(c, "policy.health.circuit.", line)
        out["circuit"] = {k: (cf.number(k) if k == "failure_ratio" else cf.uint(k)) for k in CIRCUIT_KEYS}
        cf.done()
    r = make(f.take("release"), "policy.health.release.", line)
    out["release"] = {"multiple": r.number("multiple"), "floor_per_s": r.number("floor_per_s")}
    r.done()
    out["cache_ms"] = f.uint("cache_ms")
    f.done()
    return out


def take_v2(f: Fields, rec: dict[str, Any], parse_dead_letter: Any) -> None:
    """Read the v2 fields of ``f`` into ``rec`` (its ``status`` already read)."""
    for k in ("held_until_ms", "held_since_ms", "held_ms"):
        rec[k] = f.uint(k)
    reason = f.take("hold_reason")
    if reason is not None and reason not in HOLD_REASONS:
        raise f.err("hold_reason", f"is not one of {', '.join(sorted(HOLD_REASONS))}")
    if (reason is not None) != (rec["status"] == "held"):
        raise f.err("hold_reason", "must be set exactly when the status is held")
    rec["hold_reason"] = reason
    rec["needs_reserve"] = f.flag("needs_reserve")
    rec["wake_refusals"] = f.uint("wake_refusals", 2**32 - 1)
    for k in ("replay_of", "replayed_as"):
        v = f.take(k)
        if v is not None and not isinstance(v, str):
            raise f.err(k, "must be a string or null")
        rec[k] = v
    dl = f.take("replayed_dead_letter")
    rec["replayed_dead_letter"] = None if dl is None else parse_dead_letter(dl, "replayed_dead_letter.")


def derive_replayed_as(events: list[tuple[int, dict[str, Any]]], replay_of: dict[str, str]) -> None:
    """A dead letter whose newest record lacks ``replayed_as`` reads as replayed
    by the first record whose ``replay_of`` names it (that record is the commit)."""
    for _, rec in events:
        if rec["status"] == "dead_lettered" and rec.get("replayed_as") is None and rec["event_id"] in replay_of:
            rec["replayed_as"] = replay_of[rec["event_id"]]


def is_replayed(rec: dict[str, Any]) -> bool:
    return rec["status"] == "dead_lettered" and rec.get("replayed_as") is not None


def health_json(h: Health | None) -> dict[str, Any] | None:
    """A compiled section, fully expanded as a v2 record's ``policy.health``."""
    if h is None:
        return None
    c = h.circuit
    return {"hold_budget_refusals": h.hold_budget_refusals, "pause": {"max_ms": h.pause_max_ms},
            "circuit": None if c is None else {
                "failure_ratio": float(c.failure_ratio), "min_sample": c.min_sample, "cooldown_ms": c.cooldown_ms,
                "cooldown_max_ms": c.cooldown_max_ms, "probes": c.probes, "probe_interval_ms": c.probe_interval_ms},
            "release": {"multiple": float(h.release.multiple), "floor_per_s": float(h.release.floor_per_s)},
            "cache_ms": h.cache_ms}


def to_health(v: dict[str, Any] | None) -> Health | None:
    if v is None:
        return None
    c = v["circuit"]
    circuit = None if c is None else Circuit(c["failure_ratio"], c["min_sample"], c["cooldown_ms"],
                                             c["cooldown_max_ms"], c["probes"], c["probe_interval_ms"])
    return Health(v["hold_budget_refusals"], v["pause"]["max_ms"], circuit,
                  Release(v["release"]["multiple"], v["release"]["floor_per_s"]), v["cache_ms"])


def as_v2(rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` as a v2 record (a v1 record read back: its v2 fields at zero); the same dict."""
    if rec.get("v") != 2:
        rec["v"] = 2
        for k, v in V2_ZERO.items():
            rec.setdefault(k, v)
    return rec
