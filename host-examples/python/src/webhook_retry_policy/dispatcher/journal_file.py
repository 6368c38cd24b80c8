"""The journal's FILE (docs/journal.md): the host's only part of it. The
delivery engine encodes every line and reads them back on resume
(docs/engine.md section 7); this module opens and locks the file, reads
its bytes, appends the engine's lines (one ``write`` + ``fdatasync`` per
batch: group commit) and cuts a torn tail where the engine says.

* **Compaction** (:meth:`JournalFile.replace`): the engine's
  ``journal_compact`` text is written to ``<journal>.compact``, fsynced,
  renamed over the journal, the directory fsynced; a leftover
  ``.compact`` is deleted at open.
* **Lock**: ``<journal>.lock`` created with ``O_CREAT | O_EXCL`` holds
  ``{"pid", "host", "started_at_ms"}``. A lock of this host whose process
  is gone (``kill(pid, 0)``: ``ESRCH``, the writer was killed) is stale:
  removed and the create retried once; any other holder is
  ``journal_locked``, named. ``close`` removes it (a clean exit).
"""

from __future__ import annotations

import errno
import json
import os
import socket
import time
from contextlib import suppress
from typing import Any

from ..errors import CodedError


class JournalError(CodedError):
    """The journal file cannot be used: ``code`` (``journal_locked``, ``journal_io``) and a message."""


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
    lp = path + ".lock"
    body = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started_at_ms": now_ms}).encode()
    for retry in (False, True):
        try:
            fd = os.open(lp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            text, holder = "", None
            with suppress(OSError, ValueError):  # unreadable, not UTF-8, not JSON: a holder we cannot name
                with open(lp, encoding="utf-8") as f:
                    holder = json.loads(text := f.read())
            pid, host = (holder.get("pid"), holder.get("host")) if isinstance(holder, dict) else (None, None)
            if retry or host != socket.gethostname() or not _gone(pid):
                who = f"pid {pid} on {host} ({lp})" if pid is not None and host is not None else f"{lp} ({text!r})"
                raise JournalError("journal_locked", f"the journal is held by {who}") from None
            try:
                with suppress(FileNotFoundError):
                    os.unlink(lp)
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


def read_bytes(path: str) -> bytes:
    """Another process's journal, read only (no lock)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise _io(path, e) from None


class JournalFile:
    """One writer's journal file, locked and open for appending; ``data``: its bytes at open."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = acquire_lock(path, int(time.time() * 1000))
        self._fd = -1
        try:
            with suppress(FileNotFoundError):
                os.unlink(path + ".compact")
            self._fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            with os.fdopen(os.dup(self._fd), "rb") as f:
                self.data = f.read()
        except OSError as e:
            self.close()
            raise _io(path, e) from None

    def append(self, lines: list[str]) -> None:
        """Write ``lines`` (each ending in LF) and return once they are on disk;
        a failed write is cut back (the next line never glues to a partial one)."""
        data = "".join(lines).encode()
        size = os.fstat(self._fd).st_size
        try:
            n = os.write(self._fd, data)
            if n != len(data):
                raise OSError(errno.EIO, f"short write ({n} of {len(data)} bytes)")
            os.fdatasync(self._fd)
        except OSError as e:
            with suppress(OSError):
                os.ftruncate(self._fd, size)
            raise _io(self.path, e) from None

    def replace(self, text: str) -> None:
        """Make ``text`` (whole lines) the journal, atomically (a crash leaves the old file or the new one)."""
        tmp = self.path + ".compact"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, text.encode())
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, self.path)
            dir_fd = os.open(os.path.dirname(os.path.abspath(self.path)), os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
            os.close(self._fd)
            self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        except OSError as e:
            raise _io(self.path, e) from None

    def truncate(self, keep_bytes: int) -> None:
        """Cut the file to its first ``keep_bytes`` (the engine found a torn tail)."""
        try:
            os.ftruncate(self._fd, keep_bytes)
            os.fsync(self._fd)
        except OSError as e:
            raise _io(self.path, e) from None

    def close(self) -> None:
        """Close the file and remove the lock (a clean exit)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._lock:
            with suppress(FileNotFoundError):
                os.unlink(self._lock)
            self._lock = ""
