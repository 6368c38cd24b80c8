"""Writing a journal of format 2 (docs/journal.md; a v1 journal keeps its header): the pid lock file, the
header of a new journal, one ``write`` + ``fdatasync`` per record before it
is acknowledged, the torn tail cut at open, and compaction.

* **Lock**: ``<journal>.lock`` created with ``O_CREAT | O_EXCL`` holds
  ``{"pid", "host", "started_at_ms"}``. A lock of this host whose process
  is gone (``kill(pid, 0)``: ``ESRCH``, the writer was killed) is stale:
  removed and the create retried once; any other holder is
  ``journal_locked``, named. ``close`` removes it (a clean exit).
* **Compaction**: at 1024 records and more than twice as many as live
  events (pending and held events plus dead letters not replayed), the
  journal is rewritten (a v2 header, then the newest record of each live event) into
  ``<journal>.compact``, fsynced, renamed over it, the directory fsynced.
  A leftover ``.compact`` is deleted at open.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import time
from typing import Any

from .journal_record import Hasher, JournalError, crc_line, header, read
from .journal_v2 import is_replayed

COMPACT_MIN_RECORDS = 1024


def lock_path(path: str) -> str:
    return path + ".lock"


def _io(path: str, e: OSError) -> JournalError:
    return JournalError("journal_io", f"{path}: {e.strerror or e}")


def _gone(pid: Any) -> bool:
    if type(pid) is not int or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError as e:
        return e.errno == errno.ESRCH
    return False


def acquire_lock(path: str, now_ms: int) -> str:
    """Take ``path``'s lock for this process; returns the lock file's path."""
    lp = lock_path(path)
    body = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started_at_ms": now_ms}).encode()
    for retry in (False, True):
        try:
            fd = os.open(lp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            try:
                with open(lp, encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                text = ""
            try:
                holder = json.loads(text)
            except ValueError:
                holder = None
            pid = holder.get("pid") if isinstance(holder, dict) else None
            host = holder.get("host") if isinstance(holder, dict) else None
            if retry or host != socket.gethostname() or not _gone(pid):
                who = f"pid {pid} on {host} ({lp})" if pid is not None and host is not None else f"{lp} ({text!r})"
                raise JournalError("journal_locked", f"the journal is held by {who}") from None
            try:
                os.unlink(lp)
            except FileNotFoundError:
                pass
            except OSError as e:
                raise _io(lp, e) from None
            continue
        except OSError as e:
            raise _io(lp, e) from None
        try:
            os.write(fd, body)
            os.fsync(fd)
        finally:
            os.close(fd)
        return lp
    raise JournalError("journal_locked", f"{lp} was taken again while a stale lock was removed")


def _live(rec: dict[str, Any]) -> bool:
    """Kept by compaction: pending and held events, dead letters not replayed."""
    return rec["status"] != "delivered" and not is_replayed(rec)


def _fsync_dir(path: str) -> None:
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_file(path: str, hasher: Hasher) -> list[dict[str, Any]]:
    """Another process's journal: no lock, nothing written; the newest record
    of each event in first-seen order (a torn tail skipped)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise _io(path, e) from None
    return [rec for _, rec in read(data, hasher).events]


class Journal:
    """One writer's journal, open for appending."""

    def __init__(self, path: str, hasher: Hasher, *, compact_min_records: int = COMPACT_MIN_RECORDS) -> None:
        """``compact_min_records``: the spec's 1024; tests lower it to see compactions."""
        self.path = path
        self.compact_min_records = compact_min_records
        now = int(time.time() * 1000)
        self._lock = acquire_lock(path, now)
        try:
            try:
                os.unlink(path + ".compact")
            except FileNotFoundError:
                pass
            self._fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(os.dup(self._fd), "rb") as f:
                data = f.read()
            found = read(data, hasher)
            if found.torn_bytes:
                os.ftruncate(self._fd, found.good_len)
                os.fsync(self._fd)
            self.torn_bytes = found.torn_bytes
            self.records = found.records
            self.len = found.good_len
            if self.records == 0:
                line = crc_line(header(now))
                os.write(self._fd, line)
                os.fsync(self._fd)
                self.records, self.len = 1, len(line)
            _fsync_dir(path)
        except OSError as e:
            self._release()
            raise _io(path, e) from None
        except BaseException:
            self._release()
            raise
        self.events: dict[str, dict[str, Any]] = {rec["event_id"]: rec for _, rec in found.events}
        self.live = sum(1 for r in self.events.values() if _live(r))
        self.compactions = 0

    @property
    def closed(self) -> bool:
        return getattr(self, "_fd", -1) < 0

    def append(self, rec: dict[str, Any]) -> None:
        """Write one event record and return once it is on disk."""
        line = crc_line(rec)
        try:
            n = os.write(self._fd, line)
            if n != len(line):
                raise OSError(errno.EIO, f"short write ({n} of {len(line)} bytes)")
            os.fdatasync(self._fd)
        except OSError as e:
            try:
                os.ftruncate(self._fd, self.len)  # never glue the next record to a partial line
            except OSError:
                pass
            raise _io(self.path, e) from None
        self.len += len(line)
        self.records += 1
        old = self.events.get(rec["event_id"])
        self.live += _live(rec) - (old is not None and _live(old))
        self.events[rec["event_id"]] = rec
        if self.records >= self.compact_min_records and self.records > 2 * self.live:
            self.compact()

    def compact(self) -> None:
        tmp = self.path + ".compact"
        lines = [crc_line(header(int(time.time() * 1000)))]
        lines += [crc_line(r) for r in self.events.values() if _live(r)]
        data = b"".join(lines)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        _fsync_dir(self.path)
        os.close(self._fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        self.records, self.len = len(lines), len(data)
        self.compactions += 1

    def _release(self) -> None:
        if getattr(self, "_fd", -1) >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._lock:
            try:
                os.unlink(self._lock)
            except FileNotFoundError:
                pass
            self._lock = ""

    def close(self) -> None:
        """Close the file and remove the lock (a clean exit)."""
        self._release()
