#!/usr/bin/env python3
"""Writes tests/vectors-journal/journal.json: the journal format 1 vectors
(docs/journal.md, "Vectors").

Regenerate (from the repository root, after scripts/setup):

    PYTHONPATH=host-examples/python/src python3 tests/vectors-journal/generate.py

Every policy_hash, deadline, schedule and resume verdict is computed here
by the real component (the Python host's `RetryPolicy`: `load_document`,
`admit`, `resume`), never written by hand; CRCs are zlib's crc32. The
vectors themselves need only a JSON parser. Runners: the Rust dispatcher's
`tests_journal.rs`, the Python host's `tests/test_journal_vectors.py`.
"""

from __future__ import annotations

import copy
import json
import re
import sys
import zlib
from pathlib import Path
from typing import Any

from webhook_retry_policy import RetryPolicy
from webhook_retry_policy.types import DeliveryState, Stop, StopReason

OUT = Path(__file__).resolve().parent / "journal.json"
T0 = 1796180876016
POLICY: dict[str, Any] = {
    "window_ms": 900000, "hard_cap": 16,
    "backoff": {"base_ms": 2000, "factor": 2.0, "cap_ms": 300000, "jitter": "full"},
    "budget": {"ratio": 0.1, "window_ms": 60000, "min_sample": 50, "sliding": True},
}
SHORT = {**copy.deepcopy(POLICY), "window_ms": 60000, "hard_cap": 4}
VERSION = "2026-11-30"
rp = RetryPolicy()


def admit(policy: dict[str, Any], cls: str, at_ms: int) -> Any:
    doc = rp.load_document(json.dumps({"version": VERSION, "classes": {cls: policy}}))
    return rp.admit(doc, cls, at_ms)


def crc_line(obj: Any, *, raw: str | None = None, crc: int | None = None, lf: bool = True) -> str:
    payload = raw if raw is not None else json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    c = zlib.crc32(payload.encode()) if crc is None else crc
    return f"{c:08x} {payload}" + ("\n" if lf else "")


HEADER = {"v": 1, "type": "header", "format": "webhook-retry-policy/journal", "created_at_ms": T0 - 5}


def header() -> str:
    return crc_line(HEADER)


def event(eid: str, *, policy: dict[str, Any] = POLICY, cls: str = "notification", at_ms: int = T0,
          attempts: int = 1, status: str = "pending", body: bool = True, **over: Any) -> dict[str, Any]:
    a = admit(policy, cls, at_ms)
    rec: dict[str, Any] = {
        "v": 1, "type": "event", "event_id": eid, "endpoint_id": "ep-1",
        "target": "https://hooks.example.com/x?token=t", "class": cls,
        "policy_version": a.policy_version, "policy_hash": a.policy_hash, "policy": copy.deepcopy(policy),
        "first_attempted_at_ms": a.first_attempted_at_ms, "deadline_ms": a.deadline_ms,
        "max_attempts": a.schedule.max_attempts, "offsets_ms": list(a.schedule.offsets_ms),
        "attempts": attempts, "credentials_refreshed": False,
        "next_attempt_at_ms": at_ms + (a.schedule.offsets_ms[attempts]
                                       if 0 < attempts < a.schedule.max_attempts else 0),
        "status": status, "last_outcome": "503" if attempts else "", "stop_reason": None, "dead_letter": None,
        "disable_endpoint": False, "finished_at_ms": 0,
    }
    if body:
        rec["body_b64"] = "eyJldmVudF9pZCI6ImdvLTQ3MTEtMyJ9"
    if status != "pending":
        reason = "delivered" if status == "delivered" else over.pop("reason", "max_attempts_exhausted")
        StopReason(reason)  # a contract stop reason, or this raises
        rec["stop_reason"] = reason
        rec["finished_at_ms"] = at_ms + 1000
        rec["target"] = "https://hooks.example.com/x"
        if status == "dead_lettered":
            rec["dead_letter"] = {"event_id": eid, "endpoint_id": "ep-1", "attempts": attempts, "elapsed_ms": 1000,
                                  "stop_reason": reason}
    rec.update(over)
    return rec


def verdict(rec: dict[str, Any], now_ms: int) -> str | None:
    """The component's resume verdict for a pending record, under its own policy."""
    if rec["status"] != "pending":
        return None
    doc = rp.load_document(json.dumps({"version": rec["policy_version"], "classes": {rec["class"]: rec["policy"]}}))
    policy = rp.class_policy(doc, rec["class"])
    state = DeliveryState(rec["event_id"], rec["endpoint_id"], rec["attempts"], rec["max_attempts"],
                          rec["first_attempted_at_ms"], rec["credentials_refreshed"])
    r = rp.resume(policy, state, now_ms)
    return r.reason.value if isinstance(r, Stop) else "due"


def ok(name: str, lines: list[str], now_ms: int, records: list[dict[str, Any]], torn: str = "") -> dict[str, Any]:
    """A readable journal: the expected state is the newest record per event."""
    newest: dict[str, dict[str, Any]] = {}
    for r in records:
        newest[r["event_id"]] = r
    events = {eid: {"status": r["status"], "attempts": r["attempts"], "resume": verdict(r, now_ms)}
              for eid, r in newest.items()}
    return {"name": name, "lines": lines + ([torn] if torn else []), "now_ms": now_ms,
            "expect": {"torn_bytes": len(torn.encode()), "events": events}}


def bad(name: str, lines: list[str], now_ms: int, error: str, line: int) -> dict[str, Any]:
    return {"name": name, "lines": lines, "now_ms": now_ms, "expect": {"error": error, "line": line}}


def cases() -> list[dict[str, Any]]:
    now = T0 + 10_000
    e1, e2 = event("ev-1"), event("ev-2", attempts=2)
    out = [
        ok("an empty file is a new journal", [], now, []),
        ok("a header alone holds no event", [header()], now, []),
        ok("one pending event is due", [header(), crc_line(e1)], now, [e1]),
        ok("the body is optional", [header(), crc_line(event("ev-1", body=False))], now, [event("ev-1", body=False)]),
    ]
    recs = [e1, e2, event("ev-1", attempts=2), event("ev-2", attempts=3, status="delivered"),
            event("ev-1", attempts=3, status="dead_lettered", reason="retry_budget_exhausted")]
    out.append(ok("the newest record of each event wins", [header()] + [crc_line(r) for r in recs], now, recs))
    out.append(ok("keys in another order are the same record", [header(), crc_line(e1, raw=json.dumps(
        dict(reversed(list(e1.items()))), separators=(",", ":")))], now, [e1]))
    # Torn tails: the last line only.
    full = crc_line(e2)
    out.append(ok("a torn tail without its LF is cut", [header(), crc_line(e1)], now, [e1], torn=full[:57]))
    out.append(ok("a whole last line without its LF is torn", [header(), crc_line(e1)], now, [e1], torn=full[:-1]))
    out.append(ok("a last line with a bad CRC is torn", [header(), crc_line(e1)], now, [e1],
                  torn=crc_line(e2, crc=zlib.crc32(b"x"))))
    out.append(ok("a last line that is not JSON is torn", [header(), crc_line(e1)], now, [e1],
                  torn=crc_line(None, raw=full[9:60])))
    out.append(ok("a torn header alone leaves an empty journal", [], now, [], torn=header()[:30]))
    out.append(ok("a torn tail holding multibyte text counts bytes",
                  [header(), crc_line(e1)], now, [e1], torn=crc_line(event("ev-\u00e9\u00e9"))[:80]))
    # Bad lines before the last: corrupt.
    out.append(bad("a middle line with a bad CRC is corrupt",
                   [header(), crc_line(e1, crc=zlib.crc32(b"y")), crc_line(e2)], now, "journal_corrupt", 2))
    out.append(bad("a middle line that is not JSON is corrupt",
                   [header(), crc_line(e1), crc_line(None, raw="{\"v\":1,"), crc_line(e2)], now, "journal_corrupt", 3))
    out.append(bad("a middle line without a CRC is corrupt",
                   [header(), json.dumps(e1) + "\n", crc_line(e2)], now, "journal_corrupt", 2))
    upper = next(r for r in (event(f"ev-u{i}") for i in range(50)) if re.search("[a-f]", crc_line(r)[:8]))
    out.append(bad("an upper-case CRC is not a CRC", [header(), crc_line(upper)[:8].upper() + crc_line(upper)[8:],
                                                     crc_line(e2)], now, "journal_corrupt", 2))
    out.append(bad("a CRC without its space is corrupt", [header(), crc_line(e1).replace(" ", "", 1), crc_line(e2)],
                   now, "journal_corrupt", 2))
    out.append(bad("an empty middle line is corrupt", [header(), "\n", crc_line(e2)], now, "journal_corrupt", 2))
    # The header.
    out.append(bad("a file without a header is refused", [crc_line(e1), crc_line(e2)], now, "journal_unsupported", 1))
    # A header or event with v 2 is format 2 (journal2.json); v 3 is refused there.
    out.append(bad("a header of another format is refused", [crc_line({**HEADER, "format": "other/journal"})], now,
                   "journal_unsupported", 1))
    out.append(bad("the old JSON-lines journal is refused", [json.dumps(e1) + "\n", json.dumps(e2) + "\n"], now,
                   "journal_unsupported", 1))
    # Records that break the table.
    out.append(bad("an unknown field is an error", [header(), crc_line({**e1, "priority": 3})], now,
                   "journal_record_invalid", 2))
    pol = copy.deepcopy(POLICY)
    pol["backoff"]["max_ms"] = 5
    out.append(bad("an unknown field inside the policy is an error", [header(), crc_line({**e1, "policy": pol})],
                   now, "journal_record_invalid", 2))
    out.append(bad("an unknown field inside the dead letter is an error", [header(), crc_line(e1), crc_line(
        event("ev-1", status="dead_lettered", dead_letter={"event_id": "ev-1", "endpoint_id": "ep-1", "attempts": 1,
                                                          "elapsed_ms": 1000, "stop_reason": "max_attempts_exhausted",
                                                          "note": "x"}))], now, "journal_record_invalid", 3))
    out.append(bad("an unknown field in the header is an error", [crc_line({**HEADER, "host": "a"})], now,
                   "journal_record_invalid", 1))
    missing = {k: v for k, v in e1.items() if k != "deadline_ms"}
    out.append(bad("a missing field is an error", [header(), crc_line(missing), crc_line(e2)], now,
                   "journal_record_invalid", 2))
    out.append(bad("a body that is not base64 is an error", [header(), crc_line({**e1, "body_b64": "not base64!"})],
                   now, "journal_record_invalid", 2))
    out.append(bad("a status outside the table is an error", [header(), crc_line({**e1, "status": "held"})], now,
                   "journal_record_invalid", 2))
    out.append(bad("an attempts count that is not an integer is an error",
                   [header(), crc_line({**e1, "attempts": "1"})], now, "journal_record_invalid", 2))
    out.append(bad("an unknown record type is an error", [header(), crc_line({**e1, "type": "snapshot"})], now,
                   "journal_record_invalid", 2))
    out.append(bad("a second header is an error", [header(), crc_line(e1), header(), crc_line(e2)], now,
                   "journal_record_invalid", 3))
    out.append(bad("a complete last line that breaks the table is not torn", [header(), crc_line(e1),
                   crc_line({**e2, "attempts": -1})], now, "journal_record_invalid", 3))
    # The policy travels with the event, checked against its hash.
    assert admit(SHORT, "notification", T0).policy_hash != e1["policy_hash"]
    out.append(bad("a policy that does not hash to policy_hash is an error",
                   [header(), crc_line({**e1, "policy": SHORT})], now, "journal_record_invalid", 2))
    # The class name is not part of the fingerprint (the component's rule): the same policy under
    # another class name checks out.
    billing = event("ev-b", cls="billing")
    assert billing["policy_hash"] == e1["policy_hash"]
    out.append(ok("the same policy under another class name hashes the same", [header(), crc_line(billing)], now,
                  [billing]))
    out.append(bad("an invalid policy is an error",
                   [header(), crc_line(e1), crc_line({**e2, "policy": {**POLICY, "hard_cap": 0}})], now,
                   "journal_record_invalid", 3))
    # Resume verdicts, under each record's own policy.
    late = event("ev-late", attempts=2)
    spent = event("ev-spent", attempts=e1["max_attempts"])
    recs = [e1, late, spent]
    window = POLICY["window_ms"]
    out.append(ok("resume: due, attempts spent", [header()] + [crc_line(r) for r in recs], now, recs))
    out.append(ok("resume: one ms before the window's end is due", [header(), crc_line(e1)], T0 + window - 1, [e1]))
    out.append(ok("resume: at the window's end the window has elapsed", [header(), crc_line(e1)], T0 + window, [e1]))
    short = event("ev-short", policy=SHORT)
    recs = [short, e1]
    out.append(ok("resume: each event under its own policy", [header()] + [crc_line(r) for r in recs],
                  T0 + 120_000, recs))
    out.append(ok("resume: attempts spent wins over the window", [header(), crc_line(spent)], T0 + window, [spent]))
    out.append(ok("resume: a pending event before its first attempt is due", [header(), crc_line(
        event("ev-0", attempts=0))], now, [event("ev-0", attempts=0)]))
    return out


def write(out: Path, version: int, script: str, cases: list[dict[str, Any]]) -> int:
    """Write a journal-vectors file (format `version`) of `cases`, names unique."""
    doc = {
        "format": f"webhook-retry-policy/journal-vectors {version}",
        "spec": "docs/journal.md",
        "regenerate": f"PYTHONPATH=host-examples/python/src python3 tests/vectors-journal/{script}",
        "cases": cases,
    }
    names = [c["name"] for c in doc["cases"]]
    assert len(names) == len(set(names)), "case names must be unique"
    out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {out} ({len(names)} cases)", file=sys.stderr)
    return 0


def main() -> int:
    return write(OUT, 1, "generate.py", cases())


if __name__ == "__main__":
    sys.exit(main())
