"""The follower (docs/rollout.md "What a replica does"), a thin driver of the
component's ``rollout-open`` / ``rollout-step`` (:mod:`.component`): the
component decides everything (the record, the canary rule, the trusted keys,
the signature, which call comes next, what settles an epoch, what is said
once, the status record); this class does only the I/O it names:

* ``tick`` (the running artifact's sha256, the document version, the counts,
  the wall clock) -> the call ``tick``: :meth:`RolloutStore.tick` (HSET +
  GETRANGE, pipelined) -> ``tick_reply``;
* ``artifact_len``: ``HSTRLEN`` -> ``artifact_len``;
* ``artifact``: ``HMGET`` -> ``artifact`` with sha256 and length of the bytes
  (kept here for the load);
* ``load``: :func:`~webhook_retry_policy.artifact.swap_artifact` (the host's
  one loader and swap: parse, ABI, self-test, document) -> ``loaded``, with
  the refusal's code and message when it refused.

A store failure is the call's ``error`` (one line). Each answer's ``log``
lines, its ``refused`` refusal and its ``swapped`` sha256 reach
``on_event`` as one :class:`FollowEvent`. The state text lives here between
steps, so a swap of the artifact the steps run on loses nothing.
:meth:`Follower.start` ticks on a daemon thread: a tick (fetch, compile,
self-test) never blocks an event loop, and swaps are atomic for every thread.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..artifact import ArtifactInfo, current_artifact, swap_artifact
from ..clock import SystemClock
from ..errors import ArtifactError, PolicyTrap
from ..periodic import Periodic
from . import component
from .store import RedisRolloutStore, RolloutStore

__all__ = ["FollowEvent", "Follower", "Refusal"]

SOURCE = "redis"
_ANSWERS = {"tick": "tick_reply", "artifact_len": "artifact_len", "artifact": "artifact"}  # a call -> its answer's op
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Refusal:
    """A refused record or artifact, as the status record carries it: ``sha256`` is the desired artifact
    (None for an invalid record)."""

    sha256: str | None
    code: str
    message: str
    at_ms: int


@dataclass(frozen=True)
class FollowEvent:
    """What one step said: ``lines`` for the log (in order; a refusal's line among them), ``refusal`` to
    count as refused, ``old`` -> ``new`` to count as applied (the host's swap line is the caller's)."""

    lines: tuple[str, ...]
    refusal: Refusal | None = None
    old: ArtifactInfo | None = None
    new: ArtifactInfo | None = None


class Follower:
    """Follows the rollout record for replica ``replica_id``, trusting the keys of ``trust_pem`` (a trust
    file's text, :func:`~.trust_file.read_trust_file`; the component reads it: ``rollout_trust_invalid``).

    The store: ``client`` (a blocking redis-py client) or ``connect`` (makes one), with ``fetch_connect``
    for the artifact's ``HMGET`` (:class:`.store.RedisRolloutStore`); or ``store``, any
    :class:`.store.RolloutStore`. ``counts``: events stopped and dead-lettered since the replica started;
    ``document_version``: the version new events are admitted under (default: the running artifact's
    embedded document's). ``now_ms``: the wall clock (no skew: other processes read it)."""

    def __init__(self, trust_pem: str, replica_id: str, *, client: Any = None,
                 connect: Callable[[], Any] | None = None, fetch_connect: Callable[[], Any] | None = None,
                 store: RolloutStore | None = None, language: str = "python",
                 counts: Callable[[], tuple[int, int]] | None = None,
                 document_version: Callable[[], str] | None = None,
                 on_event: Callable[[FollowEvent], None] | None = None,
                 now_ms: Callable[[], int] = SystemClock.now_ms) -> None:
        if store is not None and (client is not None or connect is not None):
            raise ValueError("give a store, or a client or connect, not both")
        self.store: RolloutStore = store or RedisRolloutStore(client, connect, fetch_connect)
        self.replica_id = replica_id
        self._counts = counts or (lambda: (0, 0))
        self._document_version = document_version or (lambda: current_artifact().info.document_version)
        self.on_event, self._now_ms = on_event, now_ms
        self.refusal: Refusal | None = None  # the latest since start
        self._state, self.key_ids = component.open_follower({
            "replica_id": replica_id, "language": language, "host": socket.gethostname(), "pid": os.getpid(),
            "trust_pem": trust_pem, "since_ms": now_ms()})
        self._lock = threading.Lock()  # one tick at a time: the state text is one
        self._fetched: bytes | None = None
        self._swap: tuple[ArtifactInfo, ArtifactInfo] | None = None
        # a follower never dies silently: report and keep ticking
        self._ticks = Periodic("rollout-follower", self.tick, lambda e: log.warning("rollout follower error: %r", e))

    def _running(self, op: str) -> dict[str, Any]:
        """A ``tick`` or ``swapped`` input: the running artifact and the counts now."""
        finished, dead = self._counts()
        return {"op": op, "now_ms": self._now_ms(), "sha256": current_artifact().info.sha256,
                "document_version": self._document_version(), "events": finished, "dead_letters": dead}

    def artifact_swapped(self) -> None:
        """Say that the artifact was swapped another way (``swap_artifact``, a file watch): the status
        record's ``since_ms`` and counts start again now, as after the follower's own swaps."""
        with self._lock:
            self._state = component.step(self._state, self._running("swapped"))["state"]

    def tick(self) -> list[FollowEvent]:
        """One tick: every call the component names, until it names none. Returns what its steps said."""
        with self._lock:
            given = self._running("tick")
            events: list[FollowEvent] = []
            self._fetched = self._swap = None
            while True:
                answer = component.step(self._state, given)
                self._state = answer["state"]
                event = self._said(answer)
                if event is not None:
                    events.append(event)
                    if self.on_event is not None:
                        self.on_event(event)
                if answer["call"] is None:
                    self._fetched = None
                    return events
                given = self._make(answer["call"])

    def _make(self, call: dict[str, Any]) -> dict[str, Any]:
        """Make ``call``; its answer is the next input."""
        op = call.get("op")
        if op == "load":
            return self._load(call["sha256"])
        try:
            if op == "tick":
                return {"op": "tick_reply", "text": _text(self.store.tick(call["replica_id"], call["status"]))}
            if op == "artifact_len":
                return {"op": "artifact_len", "len": self.store.artifact_len(call["key"])}
            if op == "artifact":
                data, signature, key_id = self.store.artifact(call["key"])
                self._fetched = None if data is None else data.encode() if isinstance(data, str) else bytes(data)
                digest = None if self._fetched is None else hashlib.sha256(self._fetched).hexdigest()
                return {"op": "artifact", "sha256": digest, "len": None if self._fetched is None else len(self._fetched),
                        "signature": _text(signature), "key_id": _text(key_id)}
        except Exception as e:  # down, a timeout, an error reply: the component decides what it changes
            return {"op": _ANSWERS[str(op)], "error": f"{type(e).__name__}: {e}"}
        raise PolicyTrap(f"rollout-step asked for an unknown call {str(op)[:40]!r}")

    def _load(self, sha256: str) -> dict[str, Any]:
        """The host's load checks and swap of the bytes just fetched (the pin: the desired sha256)."""
        data, self._fetched = self._fetched, None
        if data is None:
            raise PolicyTrap("rollout-step asked to load an artifact that was not fetched")
        old = current_artifact().info
        try:
            new = swap_artifact(data, sha256, bytes_source=SOURCE)
        except ArtifactError as e:
            return {"op": "loaded", "code": e.code, "message": e.message}
        self._swap = (old, new)
        return {"op": "loaded"}

    def _said(self, answer: dict[str, Any]) -> FollowEvent | None:
        refused, swapped = answer["refused"], answer["swapped"]
        if refused is not None:
            self.refusal = Refusal(refused["sha256"], refused["code"], refused["message"], refused["at_ms"])
        old = new = None
        if swapped is not None:
            if self._swap is None or self._swap[1].sha256 != swapped:
                raise PolicyTrap(f"rollout-step says {str(swapped)[:64]} was swapped in, which this host did not swap")
            (old, new), self._swap = self._swap, None
        if not answer["log"] and refused is None and new is None:
            return None
        return FollowEvent(tuple(answer["log"]), self.refusal if refused is not None else None, old, new)

    # ---- the background ticks ----

    def start(self, interval_ms: int = 500) -> Follower:
        """Tick every ``interval_ms`` on a daemon thread until :meth:`stop`."""
        self._ticks.start(interval_ms)
        return self

    def stop(self) -> None:
        self._ticks.stop()


def _text(value: bytes | str | None) -> str | None:
    """A reply as UTF-8 text, invalid bytes replaced (docs/rollout.md); None stays None (a nil)."""
    return value.decode("utf-8", errors="replace") if isinstance(value, (bytes, bytearray)) else value
