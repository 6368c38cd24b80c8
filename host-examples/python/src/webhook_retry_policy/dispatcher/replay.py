"""Replay of dead letters (docs/health-dispatch.md section 4): the library
call :func:`replay_dead_letters` on an open journal (its one writer), and
the ``replay`` command (``replica replay ...``, :func:`main`).

Each chosen dead letter (``status: "dead_lettered"``, not yet replayed,
matching the filter, in journal order, at most ``limit``) is admitted
again under the **current** document's policy for its class
(``admit-compiled`` at ``now_ms``) as a new pending event ``<id>~r<n>``
(``n`` 1, or one more than an ``~r<n>`` suffix the id already ends with),
same endpoint, target, class and body, ``attempts`` 0, ``replay_of`` and
``replayed_dead_letter`` set. That record is the commit (a dead letter is
replayed when its record has ``replayed_as`` or any record's ``replay_of``
names it: ``journal_record.read`` derives it); the dead letter's own
``replayed_as`` record follows as a convenience, so a crash between the
two replays nothing twice. The next run (``--resume`` / ``--store``) sends
the replays, held at their first gate (a release token each).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..compiled import CompiledPolicy
from ..errors import PolicyError
from ..ops import PolicyOps
from ..types import HealthDocument, StopReason
from .journal_event import component_hasher
from .journal_record import JournalError, policy_json
from .journal_v2 import V2_ZERO, as_v2, health_json
from .journal_writer import Journal

DEFAULT_LIMIT = 10_000
_SUFFIX = re.compile(r"~r([1-9][0-9]*)$")


@dataclass(frozen=True)
class ReplayFilter:
    endpoint_id: str | None = None
    stop_reason: str | None = None
    from_ms: int | None = None  # finished_at_ms >= from_ms
    to_ms: int | None = None  # finished_at_ms < to_ms
    limit: int = DEFAULT_LIMIT

    def chooses(self, rec: dict[str, Any]) -> bool:
        return (rec["status"] == "dead_lettered"
                and (self.endpoint_id is None or rec["endpoint_id"] == self.endpoint_id)
                and (self.stop_reason is None or rec["stop_reason"] == self.stop_reason)
                and (self.from_ms is None or rec["finished_at_ms"] >= self.from_ms)
                and (self.to_ms is None or rec["finished_at_ms"] < self.to_ms))


def replay_id(event_id: str) -> str:
    m = _SUFFIX.search(event_id)
    return f"{event_id}~r1" if m is None else f"{event_id[:m.start()]}~r{int(m.group(1)) + 1}"


def replay_dead_letters(journal: Journal, document: HealthDocument, f: ReplayFilter, now_ms: int,
                        on_replayed: Callable[[], None] | None = None) -> dict[str, Any]:
    """Replay what ``f`` chooses in ``journal``; ``{"replayed", "already_replayed", "skipped_no_class", "ids"}``."""
    out: dict[str, Any] = {"replayed": 0, "already_replayed": 0, "skipped_no_class": 0, "ids": []}
    classes = {c.name: c for c in document.classes}
    compiled: dict[str, CompiledPolicy] = {}
    try:
        for rec in list(journal.events.values()):
            if not f.chooses(rec):
                continue
            if rec.get("replayed_as") is not None:
                out["already_replayed"] += 1
                continue
            if out["replayed"] + out["skipped_no_class"] >= f.limit:
                break
            cls = classes.get(rec["class"])
            if cls is None:
                out["skipped_no_class"] += 1
                continue
            c = compiled.get(cls.name) or compiled.setdefault(cls.name, CompiledPolicy(cls.policy, cls.health))
            adm = c.admit(cls.name, document.version, now_ms)
            new_id = replay_id(rec["event_id"])
            policy = policy_json(cls.policy)
            if cls.health is not None:
                policy["health"] = health_json(cls.health)
            replay: dict[str, Any] = {
                "v": 2, "type": "event", "event_id": new_id, "endpoint_id": rec["endpoint_id"],
                "target": rec["target"], "class": cls.name, "policy_version": adm.policy_version,
                "policy_hash": adm.policy_hash, "policy": policy, "first_attempted_at_ms": adm.first_attempted_at_ms,
                "deadline_ms": adm.deadline_ms, "max_attempts": adm.schedule.max_attempts,
                "offsets_ms": list(adm.schedule.offsets_ms), "attempts": 0, "credentials_refreshed": False,
                "next_attempt_at_ms": now_ms, "status": "pending", "last_outcome": "", "stop_reason": None,
                "dead_letter": None, "disable_endpoint": False, "finished_at_ms": 0, **V2_ZERO,
                "replay_of": rec["event_id"], "replayed_dead_letter": rec["dead_letter"],
            }
            if "body_b64" in rec:
                replay["body_b64"] = rec["body_b64"]
            journal.append(replay)  # the commit
            journal.append({**as_v2(dict(rec)), "replayed_as": new_id})
            out["replayed"] += 1
            out["ids"].append(new_id)
            if on_replayed is not None:
                on_replayed()
    finally:
        for x in compiled.values():
            x.close()
    return out


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _Usage(message)


def _uint(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"want a whole number, not {text!r}")
    return int(text)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = _Parser(prog="replica replay", allow_abbrev=False,
                description="Replay dead letters of a journal as new events (docs/health-dispatch.md section 4).")
    p.add_argument("--store", required=True, metavar="FILE", help="the journal (its one writer while this runs)")
    p.add_argument("--policy", required=True, metavar="FILE", help="the current policy document (JSON)")
    p.add_argument("--endpoint", metavar="ID")
    p.add_argument("--reason", metavar="STOP_REASON", choices=[r.value for r in StopReason if r.value != "delivered"])
    p.add_argument("--from-ms", type=_uint, metavar="N")
    p.add_argument("--to-ms", type=_uint, metavar="N")
    p.add_argument("--limit", type=_uint, default=DEFAULT_LIMIT, metavar="N")
    p.add_argument("--now-ms", type=_uint, metavar="N", help="tests only; default the wall clock")
    return p.parse_args(list(argv))


def main(argv: Sequence[str]) -> int:
    """``replica replay``: one JSON line on stdout; exit 0, or 2 on bad flags, an unreadable policy or a journal error."""
    try:
        a = parse_args(argv)
        ops = PolicyOps()
        try:
            with open(a.policy, encoding="utf-8") as fh:
                document = ops.load_health_document(fh.read())
        except (OSError, UnicodeDecodeError, PolicyError) as e:
            raise _Usage(f"--policy {a.policy}: {e}") from None
        now_ms = a.now_ms if a.now_ms is not None else int(time.time() * 1000)
        f = ReplayFilter(a.endpoint, a.reason, a.from_ms, a.to_ms, a.limit)
        try:
            journal = Journal(a.store, component_hasher(ops))
        except JournalError as e:
            raise _Usage(f"--store {a.store}: {e}") from None
        try:
            out = replay_dead_letters(journal, document, f, now_ms)
        except JournalError as e:
            raise _Usage(f"--store {a.store}: {e}") from None
        finally:
            journal.close()
    except _Usage as e:
        print(f"replica replay: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    return 0
