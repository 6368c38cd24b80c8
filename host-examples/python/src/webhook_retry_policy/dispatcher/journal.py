"""A crash-safe file store for the example dispatcher: the event journal of
format 2 (docs/journal.md; v1 read too), the same file every host reads and writes.

All of the file's rules live in ``journal_writer`` (the pid lock file, the
header, one ``write`` + ``fdatasync`` per record before ``add``/``update``
return, the torn tail cut at open, compaction) and ``journal_record`` (the
reader: CRC, strict records, each ``policy`` checked against its
``policy_hash`` through the component). This store only turns its
:class:`EventRecord` into records and back (``journal_event``):

* an event is journaled with its target, body and the class policy it was
  admitted under; a reopened store's pending events are resumed by the
  dispatcher under that recorded policy, never the current document;
* a journal another host wrote (a replica's ``--store``) opens the same
  way, and a replica resumes one this store wrote;
* a file of another format (e.g. the ``<crc> {"op": ...}`` lines earlier
  versions of this example wrote) is refused, ``journal_unsupported``;
* errors are :class:`JournalError` with the spec's ``code``
  (``journal_locked``, ``journal_corrupt``, ``journal_io`` ...).

Writes run in a worker thread under one lock, the in-memory state updated
in the same thread once the line is on disk: a caller cancelled meanwhile
(a drain's deadline) cannot leave memory and file disagreeing.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from ..ops import PolicyOps
from .journal_event import component_hasher, component_planner, from_record, to_record
from .journal_record import JournalError
from .journal_writer import COMPACT_MIN_RECORDS, Journal
from .store import PENDING, EventRecord, InMemoryEventStore

__all__ = ["JournalError", "JournalEventStore"]


class JournalEventStore(InMemoryEventStore):
    def __init__(self, path: str, ops: PolicyOps | None = None, *,
                 compact_min_records: int = COMPACT_MIN_RECORDS) -> None:
        """Open (or create) the journal at ``path`` and take its lock.
        ``ops``: the component the records' policies are checked and planned
        with (a fresh :class:`PolicyOps` by default)."""
        super().__init__()
        self.path = path
        ops = ops if ops is not None else PolicyOps()
        self._journal = Journal(path, component_hasher(ops), compact_min_records=compact_min_records)
        self._write_lock = threading.Lock()
        try:
            plan = component_planner(ops)
            for rec in self._journal.events.values():
                record = from_record(rec, plan)
                self.events[record.event_id] = record
                if record.disable_endpoint:
                    self.disabled_endpoints.add(record.endpoint_id)
        except BaseException:
            self._journal.close()
            raise
        self.torn_bytes = self._journal.torn_bytes  # a torn last record cut off when this store opened
        self.reloaded = {i for i, r in self.events.items() if r.status == PENDING}

    @property
    def compactions(self) -> int:
        return self._journal.compactions

    async def add(self, record: EventRecord) -> None:
        if record.event_id in self.events:
            raise ValueError(f"event {record.event_id} already exists")
        await self._append(record)

    async def update(self, record: EventRecord) -> None:
        await self._append(record)

    async def disable_endpoint(self, endpoint_id: str) -> None:
        """In memory: the dead letter that carries ``disable_endpoint`` (the
        dispatcher writes it right after) is what the journal keeps."""
        self.disabled_endpoints.add(endpoint_id)

    async def _append(self, record: EventRecord) -> None:
        rec = to_record(record)  # the record as it is now, before another coroutine changes it
        await asyncio.to_thread(self._write_sync, rec, record)

    def _write_sync(self, rec: dict[str, Any], record: EventRecord) -> None:
        with self._write_lock:
            if self._journal.closed:
                raise JournalError("journal_io", f"{self.path}: the journal is closed")
            self._journal.append(rec)  # on disk (fdatasync), compacted when due
            self.events[record.event_id] = record
            if record.disable_endpoint:
                self.disabled_endpoints.add(record.endpoint_id)

    async def compact(self) -> None:
        def run() -> None:
            with self._write_lock:
                self._journal.compact()

        await asyncio.to_thread(run)

    def close(self) -> None:
        """Close the journal and remove its lock file (a clean exit); a
        write in progress finishes first."""
        with self._write_lock:
            self._journal.close()
