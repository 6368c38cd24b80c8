#!/usr/bin/env python3
"""Writes tests/vectors-journal/journal2.json: the journal format 2 vectors
(docs/journal.md, "Journal format 2": holds and replays).

Regenerate (from the repository root, after scripts/setup):

    PYTHONPATH=host-examples/python/src python3 tests/vectors-journal/generate2.py

Every policy_hash, deadline, schedule and resume verdict is computed by the
real component (the Python host: `load_health_document`, `admit-compiled`
through `CompiledPolicy`, `resume`), never written by hand; CRCs are zlib's
crc32. Format 1's builders are generate.py's (imported, unchanged), so
journal.json is untouched. Each expected event is `{"status", "attempts",
"resume", "held_ms", "held_until_ms", "replayed_as"}`: `resume` for pending
and held records alike, `held_ms` the record's (before any resume),
`replayed_as` the record's or, when it has none, the `event_id` of a record
whose `replay_of` names it.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generate as g1
from webhook_retry_policy import CompiledPolicy
from webhook_retry_policy.types import DeliveryState, Stop

OUT = Path(__file__).resolve().parent / "journal2.json"
T0, VERSION, POLICY, rp = g1.T0, g1.VERSION, g1.POLICY, g1.rp
HEALTH: dict[str, Any] = {
    "hold_budget_refusals": True, "pause": {"max_ms": 600000},
    "circuit": {"failure_ratio": 0.5, "min_sample": 20, "cooldown_ms": 5000, "cooldown_max_ms": 120000,
                "probes": 1, "probe_interval_ms": 1000},
    "release": {"multiple": 1.0, "floor_per_s": 1.0}, "cache_ms": 1000,
}
HEADER2 = {**g1.HEADER, "v": 2}
V2_ZERO: dict[str, Any] = {
    "held_until_ms": 0, "hold_reason": None, "held_since_ms": 0, "held_ms": 0, "needs_reserve": False,
    "wake_refusals": 0, "replay_of": None, "replayed_dead_letter": None, "replayed_as": None,
}
crc_line = g1.crc_line


def header2() -> str:
    return crc_line(HEADER2)


def class_doc(rec: dict[str, Any]) -> str:
    return json.dumps({"version": rec["policy_version"], "classes": {rec["class"]: rec["policy"]}})


def admit3(policy: dict[str, Any], cls: str, at_ms: int) -> Any:
    """`admit-compiled` of a one-class document read by `load-health-document`."""
    doc = rp.load_health_document(json.dumps({"version": VERSION, "classes": {cls: policy}}))
    with CompiledPolicy.for_class(doc, cls) as c:
        return c.admit(cls, VERSION, at_ms)


def event2(eid: str, *, health: dict[str, Any] | None = HEALTH, at_ms: int = T0, **over: Any) -> dict[str, Any]:
    """A v2 record: format 1's fields (generate.py's), the v2 fields at zero, the policy with its health."""
    status = over.pop("status", "pending")
    fmt1 = {k: over.pop(k) for k in ("attempts", "reason", "policy", "cls") if k in over}
    rec = g1.event(eid, at_ms=at_ms, status="pending" if status == "held" else status, **fmt1)
    rec.update(v=2, **copy.deepcopy(V2_ZERO))
    if health is not None:
        policy = {**rec["policy"], "health": copy.deepcopy(health)}
        a = admit3(policy, rec["class"], at_ms)
        assert (a.first_attempted_at_ms, a.deadline_ms) == (rec["first_attempted_at_ms"], rec["deadline_ms"])
        rec["policy"], rec["policy_hash"] = policy, a.policy_hash
    rec["status"] = status
    rec.update(over)
    if status == "held":
        rec["next_attempt_at_ms"] = rec["held_until_ms"]
    return rec


def held(eid: str, until_ms: int, reason: str = "circuit_open", since_ms: int = T0 + 2000, **over: Any) -> dict[str, Any]:
    return event2(eid, status="held", held_until_ms=until_ms, hold_reason=reason, held_since_ms=since_ms, **over)


def verdict(rec: dict[str, Any], now_ms: int) -> str | None:
    """The component's resume verdict for a pending or held record, under its own policy."""
    if rec["status"] not in ("pending", "held"):
        return None
    doc = rp.load_health_document(class_doc(rec))
    policy = next(c.policy for c in doc.classes if c.name == rec["class"])
    state = DeliveryState(rec["event_id"], rec["endpoint_id"], rec["attempts"], rec["max_attempts"],
                          rec["first_attempted_at_ms"], rec["credentials_refreshed"])
    r = rp.resume(policy, state, now_ms)
    return r.reason.value if isinstance(r, Stop) else "due"


def ok(name: str, lines: list[str], now_ms: int, records: list[dict[str, Any]]) -> dict[str, Any]:
    """A readable journal: the newest record per event, replayed_as derived from any replay_of."""
    newest: dict[str, dict[str, Any]] = {}
    replay_of: dict[str, str] = {}
    for r in records:
        newest[r["event_id"]] = r
        if r.get("replay_of") is not None:
            replay_of.setdefault(r["replay_of"], r["event_id"])
    events = {}
    for eid, r in newest.items():
        replayed_as = r.get("replayed_as")
        if replayed_as is None and r["status"] == "dead_lettered":
            replayed_as = replay_of.get(eid)
        events[eid] = {"status": r["status"], "attempts": r["attempts"], "resume": verdict(r, now_ms),
                       "held_ms": r.get("held_ms", 0), "held_until_ms": r.get("held_until_ms", 0),
                       "replayed_as": replayed_as}
    return {"name": name, "lines": lines, "now_ms": now_ms, "expect": {"torn_bytes": 0, "events": events}}


def lines(*records: dict[str, Any], head: str | None = None) -> list[str]:
    return [head or header2()] + [crc_line(r) for r in records]


def cases() -> list[dict[str, Any]]:
    now = T0 + 10_000
    bad = g1.bad
    p1 = event2("ev-1")
    out = [
        ok("a v2 header and a v2 pending record", lines(p1), now, [p1]),
        ok("a v1 header with v2 records appended", lines(g1.event("ev-0"), p1, head=g1.header()), now,
           [g1.event("ev-0"), p1]),
        ok("a v2 header with a v1 record", lines(g1.event("ev-0")), now, [g1.event("ev-0")]),
        ok("a v2 record of a class without health has no health in its policy", lines(event2("ev-p", health=None)),
           now, [event2("ev-p", health=None)]),
    ]
    # Holds: resumed like pending records, due at held_until_ms.
    fut, past = held("ev-f", now + 5000, held_ms=700), held("ev-p", now - 5000, "paused", held_ms=0)
    out.append(ok("held records resume due, their hold ending later or already over", lines(fut, past), now,
                  [fut, past]))
    window = POLICY["window_ms"]
    late = held("ev-w", T0 + window + 60_000, "release_pacing", held_ms=1200)
    out.append(ok("a held record whose window has ended resumes as retry_window_elapsed", lines(late),
                  T0 + window, [late]))
    budget = held("ev-b", now + 2000, "budget_refused", attempts=2, needs_reserve=True, wake_refusals=3)
    out.append(ok("a budget-held record carries needs_reserve and its wake refusals", lines(budget), now, [budget]))
    pending, on_hold, released = event2("ev-h"), held("ev-h", now + 1000), event2("ev-h", held_ms=3000, attempts=2)
    out.append(ok("a hold that ended is pending again with its held time", lines(pending, on_hold, released), now,
                  [pending, on_hold, released]))
    for reason in ("paused", "probe_refused"):
        r = held(f"ev-{reason}", now + 1, reason)
        out.append(ok(f"a hold for {reason} reads back", lines(r), now, [r]))
    # Every v2 field, exactly when v is 2.
    missing = {k: v for k, v in p1.items() if k != "wake_refusals"}
    out.append(bad("a v2 record missing a v2 field (wake_refusals) is invalid", lines(p1, missing), now,
                   "journal_record_invalid", 3))
    out.append(bad("a v1 record carrying a v2 field (held_ms) is invalid",
                   lines({**g1.event("ev-0"), "held_ms": 0}), now, "journal_record_invalid", 2))
    out.append(bad("a v1 record with status held is invalid", lines({**g1.event("ev-0"), "status": "held"}), now,
                   "journal_record_invalid", 2))
    out.append(bad("an unknown hold_reason is invalid", lines(held("ev-x", now, "overloaded")), now,
                   "journal_record_invalid", 2))
    out.append(bad("status held with hold_reason null is invalid", lines(p1, {**held("ev-x", now), "hold_reason": None}),
                   now, "journal_record_invalid", 3))
    out.append(bad("a hold_reason on a pending record is invalid", lines({**p1, "hold_reason": "paused"}), now,
                   "journal_record_invalid", 2))
    out.append(bad("needs_reserve that is not a bool is invalid", lines({**p1, "needs_reserve": 1}), now,
                   "journal_record_invalid", 2))
    out.append(bad("held_ms that is negative is invalid", lines({**p1, "held_ms": -1}), now,
                   "journal_record_invalid", 2))
    out.append(bad("a header with v 3 is refused", [crc_line({**g1.HEADER, "v": 3}), crc_line(p1)], now,
                   "journal_unsupported", 1))
    out.append(bad("an event with v 3 is refused", lines(p1, {**p1, "v": 3}), now, "journal_unsupported", 3))
    # Replays: the replay's own record is the commit.
    dl = event2("ev-d", status="dead_lettered", attempts=3, reason="max_attempts_exhausted")
    replay = event2("ev-d~r1", attempts=0, at_ms=T0 + 5000, replay_of="ev-d",
                    replayed_dead_letter=copy.deepcopy(dl["dead_letter"]))
    replay["next_attempt_at_ms"] = T0 + 5000
    marked = {**dl, "replayed_as": "ev-d~r1"}
    out.append(ok("a dead letter replayed: its replayed_as record and the replay pending", lines(dl, replay, marked),
                  now, [dl, replay, marked]))
    out.append(ok("a dead letter replayed only by a later record's replay_of (replayed_as derived)",
                  lines(dl, replay), now, [dl, replay]))
    out.append(ok("a dead letter not replayed has replayed_as null", lines(dl), now, [dl]))
    out.append(ok("a replay record pending before its first attempt", lines(replay), now, [replay]))
    v1dl = g1.event("ev-v1", status="dead_lettered", attempts=2, reason="retry_budget_exhausted")
    r1 = event2("ev-v1~r1", attempts=0, at_ms=T0 + 5000, replay_of="ev-v1",
                replayed_dead_letter=copy.deepcopy(v1dl["dead_letter"]))
    out.append(ok("a v1 dead letter replayed by a v2 record", lines(v1dl, r1, head=g1.header()), now, [v1dl, r1]))
    out.append(bad("replayed_dead_letter with an unknown field is invalid",
                   lines({**r1, "replayed_dead_letter": {**v1dl["dead_letter"], "note": "x"}}), now,
                   "journal_record_invalid", 2))
    # The policy's health section is part of the fingerprint.
    assert p1["policy_hash"] != event2("ev-1", health=None)["policy_hash"]
    out.append(ok("a policy with an expanded health section hashes to policy_hash", lines(p1), now, [p1]))
    altered = copy.deepcopy(p1)
    altered["policy"]["health"]["circuit"]["cooldown_ms"] = 6000
    out.append(bad("a policy whose health section was altered does not hash to policy_hash", lines(altered), now,
                   "journal_record_invalid", 2))
    dropped = copy.deepcopy(p1)
    del dropped["policy"]["health"]
    out.append(bad("a policy whose health section was dropped does not hash to policy_hash", lines(dropped), now,
                   "journal_record_invalid", 2))
    nocircuit = {**HEALTH, "circuit": None}
    nc = event2("ev-nc", health=nocircuit)
    out.append(ok("a health section with circuit null hashes to policy_hash", lines(nc), now, [nc]))
    partial = copy.deepcopy(p1)
    del partial["policy"]["health"]["cache_ms"]
    out.append(bad("a health section not fully expanded is invalid", lines(partial), now,
                   "journal_record_invalid", 2))
    wrong = copy.deepcopy(p1)
    wrong["policy"]["health"]["pause"]["max_ms"] = 86_400_001
    out.append(bad("a health section the component refuses is invalid", lines(wrong), now,
                   "journal_record_invalid", 2))
    return out


def main() -> int:
    return g1.write(OUT, 2, "generate2.py", cases())


if __name__ == "__main__":
    sys.exit(main())
