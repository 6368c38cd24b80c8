"""``replica replay`` (docs/health-dispatch.md section 4): dead letters of a
journal replayed as new events by the delivery engine (docs/engine.md
section 9: the engine resumes the journal, chooses the dead letters, at
most once, and writes the records; this command appends them to the file).
The next run (``--store`` / ``--resume``) sends the replays.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import SimpleNamespace

from ..delivery_engine import DeliveryEngine, EngineError
from .command_line import UsageError, run
from .journal_file import JournalError, JournalFile


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


def _replay(a: SimpleNamespace) -> dict[str, object]:
    """The command on its settings (``command_line.settings``): read ``--policy``, lock ``--store``, replay."""
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
        return replay(journal, document, now_ms, endpoint_id=a.endpoint, stop_reason=a.reason, from_ms=a.from_ms,
                      to_ms=a.to_ms, limit=a.limit)
    except (JournalError, EngineError) as e:
        raise UsageError(f"--store {a.store} --policy {a.policy}: {e}") from None
    finally:
        journal.close()


def main(argv: Sequence[str]) -> int:
    """``replica replay ARGS``: one JSON line on stdout; exit 0, or 2 on bad flags (the artifact's
    ``replica-args``), an unreadable policy or a journal error."""
    return run("replay", argv, _replay)
