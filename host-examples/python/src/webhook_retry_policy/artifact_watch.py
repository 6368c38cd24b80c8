"""Swap the artifact when a file changes (docs/artifact.md "Swapping").

Polling, not inotify: deploys replace files by rename or symlink swap,
which an inotify watch on the old inode misses. Each poll reads the path
and compares its sha256 with the running artifact's; a different file goes
through :func:`swap_artifact` (every check before anything changes). A
refused file is reported once per distinct sha256, not at every poll; an
unreadable path (mid-deploy) is reported once until it changes.

:func:`watch_artifact` runs :meth:`ArtifactWatch.poll` on a daemon thread
every ``interval_ms``; swaps are atomic for every thread, so the watcher
serves sync and asyncio programs alike. ``on_event`` receives one line per
swap or refusal (the replica's log lines).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from .artifact import ArtifactInfo, current_artifact, describe, swap_artifact
from .artifact_file import read_artifact_file
from .errors import ArtifactError
from .periodic import Periodic


@dataclass(frozen=True)
class WatchEvent:
    """``kind`` ``swapped`` (``old``/``new`` set) or ``refused`` (``error`` set)."""

    kind: str
    line: str
    old: ArtifactInfo | None = None
    new: ArtifactInfo | None = None
    error: ArtifactError | None = None


class ArtifactWatch:
    """Polls ``path``; :meth:`poll` runs one check (tests call it directly)."""

    def __init__(self, path: str | os.PathLike[str], expected_sha256: str | None = None,
                 on_event: Callable[[WatchEvent], None] | None = None) -> None:
        self.path = os.fspath(path)
        self.expected_sha256 = expected_sha256
        self.on_event = on_event
        self._reported: str | None = None  # the sha256 (or error text) last reported as refused
        self._ticks = Periodic("artifact-watch", self.poll, lambda e: self._emit(
            WatchEvent("refused", f"policy artifact watch error path={self.path}: {e!r}")))

    def poll(self) -> WatchEvent | None:
        old = current_artifact().info
        try:
            data = read_artifact_file(self.path)
        except ArtifactError as e:
            return self._refused(f"unreadable:{e}", e, old)
        digest = hashlib.sha256(data).hexdigest()
        if digest == old.sha256:
            self._reported = None
            return None
        if digest == self._reported:
            return None
        try:
            new = swap_artifact(self.path, self.expected_sha256)  # read again: the info names the path
        except ArtifactError as e:
            return self._refused(digest, e, old)
        self._reported = None
        event = WatchEvent("swapped", f"policy artifact swapped sha256={old.sha256} -> {new.sha256} {describe(new)}",
                           old, new)
        self._emit(event)
        return event

    def _refused(self, key: str, e: ArtifactError, old: ArtifactInfo) -> WatchEvent | None:
        if key == self._reported:
            return None
        self._reported = key
        event = WatchEvent("refused", f"policy artifact refused path={self.path} code={e.code}: {e.message}; "
                           f"keeping sha256={old.sha256}", old, None, e)
        self._emit(event)
        return event

    def _emit(self, event: WatchEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def start(self, interval_ms: int = 1000) -> ArtifactWatch:
        self._ticks.start(interval_ms)
        return self

    def stop(self) -> None:
        self._ticks.stop()


def watch_artifact(path: str | os.PathLike[str], interval_ms: int = 1000, *, expected_sha256: str | None = None,
                   on_event: Callable[[WatchEvent], None] | None = None) -> ArtifactWatch:
    """Poll ``path`` every ``interval_ms`` on a daemon thread; ``.stop()`` ends it."""
    return ArtifactWatch(path, expected_sha256, on_event).start(interval_ms)
