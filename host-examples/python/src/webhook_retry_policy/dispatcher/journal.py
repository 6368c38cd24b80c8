"""A crash-safe file store for the example dispatcher: an append-only
journal of JSON lines.

* Every change (an event added or updated, an endpoint disabled) is ONE
  line ``<crc32 hex> <json>\\n`` appended with ``os.write`` on an
  ``O_APPEND`` descriptor and ``os.fsync`` ed before the call returns: an
  event ``submit`` acknowledged, or a delivery recorded, survives a crash
  or a power cut. Appends are serialized by one asyncio lock, so two
  updates can never be written in the wrong order (the old JSON-file store
  rewrote the whole file from concurrent threads and could lose an update).
* On open the journal is replayed (the last line per event wins). A torn
  last record (no newline, or a checksum that does not match: the process
  died mid-write) is cut off with ``truncate`` + ``fsync`` before anything
  is appended, so later appends are never glued to garbage. A bad line
  before the last one is corruption, not a torn write: :class:`JournalCorrupt`.
* One writer: ``<path>.lock`` is held with ``flock(LOCK_EX | LOCK_NB)``
  while the store is open; a second opener gets :class:`StoreLocked`.
* Compaction: when the journal holds more than ``compact_factor`` lines per
  live event (and at least ``compact_min`` lines), the live state is written
  to ``<path>.compact``, fsynced, renamed over the journal and the directory
  fsynced — a crash at any point leaves either the old or the new journal.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import zlib
from collections.abc import Callable
from typing import Any

from .store import PENDING, EventRecord, InMemoryEventStore


class StoreLocked(RuntimeError):
    """Another process has this journal open."""


class JournalCorrupt(RuntimeError):
    """A journal line other than the last one does not check out."""


def _line(entry: dict[str, Any]) -> bytes:
    payload = json.dumps(entry, separators=(",", ":"), ensure_ascii=True).encode()
    return b"%08x %s\n" % (zlib.crc32(payload), payload)


def _parse(line: bytes) -> dict[str, Any] | None:
    crc, _, payload = line.partition(b" ")
    try:
        if len(crc) != 8 or int(crc, 16) != zlib.crc32(payload):
            return None
        entry = json.loads(payload)
    except ValueError:
        return None
    return entry if isinstance(entry, dict) else None


def _fsync_dir(path: str) -> None:
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class JournalEventStore(InMemoryEventStore):
    def __init__(self, path: str, *, compact_factor: int = 4, compact_min: int = 1000) -> None:
        super().__init__()
        self.path = path
        self.compact_factor, self.compact_min = compact_factor, compact_min
        self.torn_records = 0  # torn last records cut off when this store opened
        self.compactions = 0
        self._lock = asyncio.Lock()
        self._lock_fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lock_fd)
            raise StoreLocked(f"{path} is open in another process (lock file {path}.lock)") from None
        try:
            self._lines = self._recover()
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except BaseException:
            os.close(self._lock_fd)
            raise
        self.reloaded = {i for i, r in self.events.items() if r.status == PENDING}

    def _recover(self) -> int:
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return 0
        good_end, lines = 0, 0
        chunks = data.split(b"\n")
        for i, chunk in enumerate(chunks):
            if i == len(chunks) - 1 and not chunk:
                break
            newline = i < len(chunks) - 1
            final = not newline or (i == len(chunks) - 2 and not chunks[-1])
            entry = _parse(chunk) if newline else None  # a last chunk without "\n" is torn
            if entry is None:
                if not final:
                    raise JournalCorrupt(f"{self.path}: line {i + 1} does not check out")
                self.torn_records += 1
                break
            try:
                self._apply(entry)
            except (KeyError, TypeError, ValueError):
                raise JournalCorrupt(f"{self.path}: line {i + 1} is not a record") from None
            good_end += len(chunk) + 1
            lines += 1
        if good_end < len(data):
            os.truncate(self.path, good_end)
            fd = os.open(self.path, os.O_WRONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        return lines

    def _apply(self, entry: dict[str, Any]) -> None:
        if entry.get("op") == "put":
            record = EventRecord.from_json(entry["record"])
            self.events[record.event_id] = record
        elif entry.get("op") == "disable":
            self.disabled_endpoints.add(str(entry["endpoint"]))

    async def add(self, record: EventRecord) -> None:
        if record.event_id in self.events:
            raise ValueError(f"event {record.event_id} already exists")
        await self._append({"op": "put", "record": record.to_json()}, lambda: self.events.__setitem__(record.event_id, record))

    async def update(self, record: EventRecord) -> None:
        await self._append({"op": "put", "record": record.to_json()}, lambda: self.events.__setitem__(record.event_id, record))

    async def disable_endpoint(self, endpoint_id: str) -> None:
        await self._append({"op": "disable", "endpoint": endpoint_id}, lambda: self.disabled_endpoints.add(endpoint_id))

    async def _append(self, entry: dict[str, Any], apply: Callable[[], None]) -> None:
        """Write and fsync one line, then apply it in memory, then compact if
        due (under the lock: a compaction always includes every written line)."""
        line = _line(entry)  # serialized before the lock: the record as it is now
        async with self._lock:
            await asyncio.to_thread(self._write_sync, line)
            apply()
            self._lines += 1
            if self._lines > max(self.compact_min, self.compact_factor * len(self.events)):
                await asyncio.to_thread(self._compact_sync)

    def _write_sync(self, line: bytes) -> None:
        view = memoryview(line)
        while view:
            view = view[os.write(self._fd, view):]
        os.fsync(self._fd)

    def _compact_sync(self) -> None:
        tmp = self.path + ".compact"
        lines = [_line({"op": "put", "record": r.to_json()}) for r in self.events.values()]
        lines += [_line({"op": "disable", "endpoint": e}) for e in sorted(self.disabled_endpoints)]
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"".join(lines))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        _fsync_dir(self.path)
        os.close(self._fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self._lines = len(lines)
        self.compactions += 1

    async def compact(self) -> None:
        async with self._lock:
            await asyncio.to_thread(self._compact_sync)

    def close(self) -> None:
        """Release the journal and the lock (also released when the process dies)."""
        if self._fd >= 0:
            os.close(self._fd)
            os.close(self._lock_fd)
            self._fd = -1


JsonFileEventStore = JournalEventStore  # the name earlier versions of the example used
