"""Journal formats 1 and 2 (docs/journal.md; format 2's fields: journal_v2.py): the ``<crc> <json>`` line, the header
and the event record with its admitted ``policy``, and the reader
(recovery): CRC and JSON per line, a torn tail (the last line only), a bad
line anywhere else refused, the newest record per event, each ``policy``
checked against its ``policy_hash`` through the component.

Records are read strictly: every field of the table with its type and
nothing else; an unknown field is an error naming it (a reader that
dropped it would write the event back without it).
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import PolicyError
from ..types import Backoff, Budget, Jitter, Policy, StopReason
from .journal_v2 import derive_replayed_as, parse_health, take_v2

FORMAT = "webhook-retry-policy/journal"
STATUSES = ("pending", "delivered", "dead_lettered")
STATUSES_V2 = ("pending", "held", "delivered", "dead_lettered")
VERSIONS = (1, 2)
_HEX = frozenset(b"0123456789abcdef")

# (document JSON, class) -> the policy hash `admit` gives it; raises PolicyError when refused
Hasher = Callable[[str, str], str]


class JournalError(Exception):
    """A journal the reader refuses; ``code`` is the spec's error code."""

    def __init__(self, code: str, message: str, *, line: int | None = None, field: str | None = None) -> None:
        self.code, self.line, self.field = code, line, field
        where = f"line {line}: " if line is not None else ""
        what = f"`{field}`: " if field is not None else ""
        super().__init__(f"{code}: {where}{what}{message}")


def _invalid(line: int, field: str, why: str) -> JournalError:
    return JournalError("journal_record_invalid", why, line=line, field=field)


def crc_line(record: dict[str, Any]) -> bytes:
    """One record as a complete line: ``<crc> <json>\\n``."""
    payload = json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    return b"%08x %s\n" % (zlib.crc32(payload), payload)


def header(created_at_ms: int) -> dict[str, Any]:
    """A new journal's header: format 2 (a writer appending to a v1 journal keeps its header)."""
    return {"v": 2, "type": "header", "format": FORMAT, "created_at_ms": created_at_ms}


def policy_json(p: Policy) -> dict[str, Any]:
    return {"window_ms": p.window_ms, "hard_cap": p.hard_cap,
            "backoff": {"base_ms": p.backoff.base_ms, "factor": float(p.backoff.factor), "cap_ms": p.backoff.cap_ms,
                        "jitter": p.backoff.jitter.value},
            "budget": {"ratio": float(p.budget.ratio), "window_ms": p.budget.window_ms,
                       "min_sample": p.budget.min_sample, "sliding": p.budget.sliding}}


def finished_target(url: str) -> str:
    """A stopped event is never sent again: its record keeps no userinfo, query or fragment."""
    try:
        p = urlsplit(url)
        netloc = p.netloc.rsplit("@", 1)[-1]
    except ValueError:
        return ""
    return urlunsplit((p.scheme, netloc, p.path, "", ""))


def hash_document(rec: dict[str, Any]) -> str:
    """The one-class document whose ``admit`` gives the hash ``policy`` (with its
    ``health`` section, if any: read by ``load-health-document``) must have."""
    return json.dumps({"version": rec["policy_version"], "classes": {rec["class"]: rec["policy"]}})


class _Fields:
    """Reads the fields of one JSON object, each once; ``done`` refuses the rest."""

    def __init__(self, v: Any, prefix: str, line: int) -> None:
        if not isinstance(v, dict):
            raise _invalid(line, prefix.rstrip(".") or "record", "must be a JSON object")
        self.obj, self.prefix, self.line = dict(v), prefix, line
        self.version = 1

    def err(self, k: str, why: str) -> JournalError:
        return _invalid(self.line, self.prefix + k, why)

    def take(self, k: str) -> Any:
        if k not in self.obj:
            raise self.err(k, "is missing")
        return self.obj.pop(k)

    def text(self, k: str) -> str:
        v = self.take(k)
        if not isinstance(v, str):
            raise self.err(k, "must be a string")
        return v

    def uint(self, k: str, limit: int = 2**64 - 1) -> int:
        v = self.take(k)
        if type(v) is not int or v < 0:
            raise self.err(k, "must be a non-negative integer")
        if v > limit:
            raise self.err(k, "is too large")
        return v

    def number(self, k: str) -> float:
        v = self.take(k)
        if type(v) not in (int, float):
            raise self.err(k, "must be a number")
        return float(v)

    def flag(self, k: str) -> bool:
        v = self.take(k)
        if type(v) is not bool:
            raise self.err(k, "must be true or false")
        return v

    def reason(self, k: str, *, nullable: bool) -> str | None:
        v = self.take(k)
        if v is None and nullable:
            return None
        if not isinstance(v, str) or v not in {r.value for r in StopReason}:
            raise self.err(k, "is not a stop reason")
        return v

    def done(self) -> None:
        for k in self.obj:
            raise self.err(k, f"is not a field of journal format {self.version}")


def kind(v: Any, line: int) -> str:
    """``v`` (other than 1: ``journal_unsupported``) and ``type`` of a record."""
    if not isinstance(v, dict):
        raise _invalid(line, "record", "must be a JSON object")
    if "v" not in v:
        raise _invalid(line, "v", "is missing")
    if type(v["v"]) is not int or v["v"] not in VERSIONS:
        raise JournalError("journal_unsupported", f"record version `v` {v['v']!r}, not 1 or 2", line=line)
    if not isinstance(v.get("type"), str):
        raise _invalid(line, "type", "must be a string")
    return str(v["type"])


def check_header(v: dict[str, Any], line: int) -> None:
    f = _Fields(v, "", line)
    f.take("v")
    f.take("type")
    fmt = f.text("format")
    if fmt != FORMAT:
        raise JournalError("journal_unsupported", f"format `{fmt}`, not `{FORMAT}`", line=line)
    f.uint("created_at_ms")
    f.done()


def parse_policy(v: Any, line: int, version: int = 1) -> dict[str, Any]:
    f = _Fields(v, "policy.", line)
    f.version = version
    out: dict[str, Any] = {"window_ms": f.uint("window_ms"), "hard_cap": f.uint("hard_cap", 2**32 - 1)}
    b = _Fields(f.take("backoff"), "policy.backoff.", line)
    out["backoff"] = {"base_ms": b.uint("base_ms"), "factor": b.number("factor"), "cap_ms": b.uint("cap_ms")}
    jitter = b.text("jitter")
    if jitter not in {j.value for j in Jitter}:
        raise b.err("jitter", "is not none, full or equal")
    out["backoff"]["jitter"] = jitter
    b.done()
    g = _Fields(f.take("budget"), "policy.budget.", line)
    out["budget"] = {"ratio": g.number("ratio"), "window_ms": g.uint("window_ms"), "min_sample": g.uint("min_sample"),
                     "sliding": g.flag("sliding")}
    g.done()
    if version == 2 and "health" in f.obj:
        out["health"] = parse_health(_Fields, f.take("health"), line)
    f.done()
    return out


def to_policy(p: dict[str, Any]) -> Policy:
    b, g = p["backoff"], p["budget"]
    return Policy(Backoff(b["base_ms"], b["factor"], b["cap_ms"], Jitter(b["jitter"])), p["window_ms"], p["hard_cap"],
                  Budget(g["ratio"], g["window_ms"], g["min_sample"], g["sliding"]))


def parse_event(v: dict[str, Any], line: int) -> dict[str, Any]:
    """A validated event record (a plain dict in the journal's own shape)."""
    f = _Fields(v, "", line)
    rec: dict[str, Any] = {"v": f.take("v"), "type": f.take("type")}
    f.version = version = rec["v"]
    for k in ("event_id", "endpoint_id", "target", "class", "policy_version", "policy_hash"):
        rec[k] = f.text(k)
    h = rec["policy_hash"]
    if len(h) != 16 or not set(h.encode()) <= _HEX:
        raise f.err("policy_hash", "must be 16 lowercase hex digits")
    rec["policy"] = parse_policy(f.take("policy"), line, version)
    for k in ("first_attempted_at_ms", "deadline_ms"):
        rec[k] = f.uint(k)
    rec["max_attempts"] = f.uint("max_attempts", 2**32 - 1)
    offsets = f.take("offsets_ms")
    if not isinstance(offsets, list) or any(type(x) is not int or x < 0 for x in offsets):
        raise f.err("offsets_ms", "must be an array of non-negative integers")
    rec["offsets_ms"] = offsets
    rec["attempts"] = f.uint("attempts", 2**32 - 1)
    rec["credentials_refreshed"] = f.flag("credentials_refreshed")
    rec["next_attempt_at_ms"] = f.uint("next_attempt_at_ms")
    rec["status"] = f.text("status")
    if rec["status"] not in (STATUSES_V2 if version == 2 else STATUSES):
        raise f.err("status", f"is not {' or '.join(STATUSES_V2 if version == 2 else STATUSES)}")
    rec["last_outcome"] = f.text("last_outcome")
    rec["stop_reason"] = f.reason("stop_reason", nullable=True)

    def dead_letter(dl: Any, prefix: str) -> dict[str, Any]:
        d = _Fields(dl, prefix, line)
        out = {"event_id": d.text("event_id"), "endpoint_id": d.text("endpoint_id"),
               "attempts": d.uint("attempts", 2**32 - 1), "elapsed_ms": d.uint("elapsed_ms"),
               "stop_reason": d.reason("stop_reason", nullable=False)}
        d.done()
        return out

    dl = f.take("dead_letter")
    rec["dead_letter"] = None if dl is None else dead_letter(dl, "dead_letter.")
    rec["disable_endpoint"] = f.flag("disable_endpoint")
    rec["finished_at_ms"] = f.uint("finished_at_ms")
    if "body_b64" in f.obj:
        rec["body_b64"] = f.text("body_b64")
        try:
            base64.b64decode(rec["body_b64"], validate=True)
        except ValueError:
            raise f.err("body_b64", "must be standard base64 with padding") from None
    if version == 2:
        take_v2(f, rec, dead_letter)
    f.done()
    return rec


def _checked(content: bytes) -> Any:
    """The JSON of a ``<crc> <json>`` line whose CRC checks out; ValueError otherwise."""
    if len(content) < 10 or content[8:9] != b" " or not set(content[:8]) <= _HEX:
        raise ValueError("not `<crc> <json>` with 8 lowercase hex digits")
    payload = content[9:]
    if zlib.crc32(payload) != int(content[:8], 16):
        raise ValueError("the CRC does not match")

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(payload.decode("utf-8"), parse_constant=no_constant)


@dataclass
class Recovered:
    events: list[tuple[int, dict[str, Any]]]  # newest record per event with its line, first-seen order
    records: int  # complete records kept, the header included
    good_len: int  # bytes of the good prefix
    torn_bytes: int  # bytes of a torn tail (0: none)
    header_v: int = 0  # the header's v (0: no header yet)


def read(data: bytes, hasher: Hasher) -> Recovered:
    """Read a whole journal's bytes (docs/journal.md, "Reading")."""
    newest: dict[str, tuple[int, dict[str, Any]]] = {}
    replay_of: dict[str, str] = {}  # dead letter -> the first record replaying it
    good_len = records = start = line = version = 0
    while start < len(data):
        line += 1
        end = data.find(b"\n", start)
        if end < 0:
            break  # no LF: a torn tail
        is_last = end + 1 == len(data)
        try:
            v = _checked(data[start:end])
        except (ValueError, UnicodeDecodeError) as e:
            if is_last:
                break
            if line == 1:
                raise JournalError("journal_unsupported", f"the first line is not a header: {e}", line=1) from None
            raise JournalError("journal_corrupt", str(e), line=line) from None
        if line == 1 and (not isinstance(v, dict) or "v" not in v or "type" not in v):
            # e.g. the example dispatcher's older `<crc> {"op": ...}` journal: refused, never read as events
            raise JournalError("journal_unsupported", "the first record is not a journal header", line=1)
        t = kind(v, line)
        if line == 1:
            if t != "header":
                raise JournalError("journal_unsupported", f"the first record is `{t}`, not a header", line=1)
            check_header(v, line)
            version = v["v"]
        elif t == "event":
            rec = parse_event(v, line)
            newest[rec["event_id"]] = (line, rec)  # an update keeps the first-seen position
            if rec.get("replay_of") is not None:
                replay_of.setdefault(rec["replay_of"], rec["event_id"])
        elif t == "header":
            raise _invalid(line, "type", "a header after the first line")
        else:
            raise _invalid(line, "type", f"`{t}` is not header or event")
        records += 1
        good_len = start = end + 1
    hashes: dict[tuple[str, str], str | PolicyError] = {}
    for line_no, rec in newest.values():
        key = (hash_document(rec), rec["class"])
        if key not in hashes:
            try:
                hashes[key] = hasher(*key)
            except PolicyError as e:
                hashes[key] = e
        got = hashes[key]
        if isinstance(got, PolicyError):
            raise _invalid(line_no, "policy", f"refused by the component: {got}")
        if got != rec["policy_hash"]:
            raise _invalid(line_no, "policy", f"hashes to {got}, not to policy_hash {rec['policy_hash']}")
    events = list(newest.values())
    derive_replayed_as(events, replay_of)
    return Recovered(events, records, good_len, len(data) - good_len, version)
