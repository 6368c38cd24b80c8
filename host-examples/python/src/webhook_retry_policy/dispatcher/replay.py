"""``replica replay`` (docs/health-dispatch.md section 4): dead letters of a
journal replayed as new events by the delivery engine (docs/engine.md
section 9: the engine resumes the journal, chooses the dead letters, at
most once, and writes the records; this command appends them to the file).
The next run (``--store`` / ``--resume``) sends the replays.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence

from ..delivery_engine import DeliveryEngine, EngineError
from ..types import StopReason
from .journal_file import JournalError, JournalFile

DEFAULT_LIMIT = 10_000


class UsageError(Exception):
    """Bad arguments of ``replica`` or ``replica replay``: reported on stderr, exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def whole(name: str, minimum: int) -> Callable[[str], int]:
    """The argparse type of flag ``name``: a whole number, at least ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be at least {minimum}, not {value}")
        return value

    return parse


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = Parser(prog="replica replay", allow_abbrev=False,
                description="Replay dead letters of a journal as new events (docs/health-dispatch.md section 4).")
    p.add_argument("--store", required=True, metavar="FILE", help="the journal (its one writer while this runs)")
    p.add_argument("--policy", required=True, metavar="FILE", help="the current policy document (JSON)")
    p.add_argument("--endpoint", metavar="ID")
    p.add_argument("--reason", metavar="STOP_REASON", choices=[r.value for r in StopReason if r.value != "delivered"])
    p.add_argument("--from-ms", type=whole("--from-ms", 0), metavar="N")
    p.add_argument("--to-ms", type=whole("--to-ms", 0), metavar="N")
    p.add_argument("--limit", type=whole("--limit", 0), default=DEFAULT_LIMIT, metavar="N")
    p.add_argument("--now-ms", type=whole("--now-ms", 0), metavar="N", help="tests only; default the wall clock")
    return p.parse_args(list(argv))


def replay(journal: JournalFile, document: str, now_ms: int, **choose: object) -> dict[str, object]:
    """Resume ``journal``'s bytes into an engine that never sends
    (``dispatch: false``: the journal's pending events stay as they are),
    feed ``replay`` with the filter ``choose`` (``endpoint_id``,
    ``stop_reason``, ``from_ms``, ``to_ms``, ``limit``; None: any), write
    what the engine writes; the ``replayed`` action's figures."""
    with DeliveryEngine({"document": document, "memory_store": True, "dispatch": False}) as engine:
        answers = [engine.resume(now_ms, journal.data)] if journal.data else []
        answers.append(engine.feed([{"op": "replay", "now_ms": now_ms,
                                     **{k: v for k, v in choose.items() if v is not None}}]))
    out: dict[str, object] = {}
    lines: list[str] = []
    for answer in answers:
        for e in answer.errors:
            raise EngineError(e["error"], e["message"])
        for o in answer.outputs:
            if o["action"] == "journal":
                lines.append(o["line"])
                continue
            if lines:  # in order: what came before is written first
                journal.append(lines)
                lines = []
            if o["action"] == "journal_truncate":
                journal.truncate(o["keep_bytes"])
            elif o["action"] == "journal_compact":
                journal.replace(o["journal"])
            elif o["action"] == "replayed":
                out = {k: o[k] for k in ("replayed", "already_replayed", "skipped_no_class", "ids")}
    if lines:
        journal.append(lines)
    return out


def main(argv: Sequence[str]) -> int:
    """``replica replay``: one JSON line on stdout; exit 0, or 2 on bad flags, an unreadable policy or a journal error."""
    try:
        a = parse_args(argv)
        try:
            with open(a.policy, encoding="utf-8") as fh:
                document = fh.read()
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"--policy {a.policy}: {e}") from None
        now_ms = a.now_ms if a.now_ms is not None else int(time.time() * 1000)
        try:
            journal = JournalFile(a.store)
        except JournalError as e:
            raise UsageError(f"--store {a.store}: {e}") from None
        try:
            out = replay(journal, document, now_ms, endpoint_id=a.endpoint, stop_reason=a.reason, from_ms=a.from_ms,
                         to_ms=a.to_ms, limit=a.limit)
        except (JournalError, EngineError) as e:
            raise UsageError(f"--store {a.store} --policy {a.policy}: {e}") from None
        finally:
            journal.close()
    except UsageError as e:
        print(f"replica replay: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    return 0
