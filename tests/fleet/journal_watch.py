"""Journal lines written during a real-process run (tests/fleet/bench-release),
counted exactly, compactions included.

What a journal file holds at the end is not what was written: a compaction
(docs/journal.md, "Compaction") writes the live records to
``<journal>.compact`` and renames it over the journal. So each file is
tailed every ``every_ms`` through an open descriptor: lines appended to the
old file up to the rename are still read from the descriptor held on it,
and when the path names a new file (another inode) every line of that file
is counted (the compaction's rewrite, then what was appended to it) from a
new descriptor. A line is counted when its newline is read, so a partial
last line is counted on the next read. Two compactions of one file within
one tick would lose the middle file's lines; a compaction takes more than
1,024 records, so at 25 ms that needs 40,000 records a second."""

from __future__ import annotations

import os
from pathlib import Path

from sampler import Sampler


class _Tail:
    def __init__(self, path: Path) -> None:
        self.path, self.fd, self.ino, self.lines, self.files = path, None, None, 0, 0

    def poll(self) -> None:
        if self.fd is not None:
            self._read()
        try:
            ino = os.stat(self.path).st_ino
        except FileNotFoundError:
            return
        if ino != self.ino:
            try:
                fd = os.open(self.path, os.O_RDONLY)
            except FileNotFoundError:
                return
            if os.fstat(fd).st_ino != ino:  # renamed again between stat and open: the next tick
                os.close(fd)
                return
            if self.fd is not None:
                self._read()
                os.close(self.fd)
            self.fd, self.ino = fd, ino
            self.files += 1
            self._read()

    def _read(self) -> None:
        assert self.fd is not None
        while chunk := os.read(self.fd, 1 << 16):
            self.lines += chunk.count(b"\n")

    def close(self) -> None:
        if self.fd is not None:
            self.poll()
            os.close(self.fd)
            self.fd = None


class JournalWatch(Sampler):
    """Counts lines written to each journal path (and the files it saw: 1 + compactions)."""

    def __init__(self, paths: list[Path], every_ms: int = 25) -> None:
        super().__init__(every_ms)
        self.tails = {p: _Tail(p) for p in paths}

    def sample(self) -> None:
        for t in self.tails.values():
            t.poll()

    def finish(self) -> None:
        for t in self.tails.values():
            t.close()

    def lines(self, paths: list[Path]) -> int:
        return sum(self.tails[p].lines for p in paths)

    def compactions(self, paths: list[Path]) -> int:
        return sum(max(0, self.tails[p].files - 1) for p in paths)
