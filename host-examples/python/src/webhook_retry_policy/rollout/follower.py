"""The follower (docs/rollout.md "What a replica does"): each tick is ONE
pipelined round trip, ``HSET retry-policy:{rollout}:replicas <id> <status>``
then ``GETRANGE retry-policy:{rollout}:state 0 4096`` (at most 4,097 bytes: a
longer record is ``rollout_record_invalid``; an empty answer is no record); when the record's epoch differs
from the last one settled, the replica's desired artifact is fetched,
verified, loaded and swapped in:

1. the desired sha256 is the running one: settled;
2. ``HSTRLEN <artifact key> bytes``: 0 is ``rollout_artifact_missing``, more
   than the artifact cap ``artifact_too_large`` (the bytes are never fetched);
3. ``HMGET <artifact key> bytes signature key_id`` (a nil: ``rollout_artifact_missing``; on
   ``fetch_connect``'s client when given: the replica bounds it by max(store timeout, 5 s));
4. ``key_id`` not trusted: ``rollout_key_unknown``;
5. the signature does not verify over sha256(bytes): ``rollout_signature_invalid``;
6. sha256(bytes) is not the desired one: ``artifact_sha256_mismatch``;
7. :func:`~webhook_retry_policy.artifact.swap_artifact` (the host's one loader
   and swap: parse, ABI, self-test, document; its codes).

A store failure (down, timeout, an error reply) changes nothing and leaves
the epoch unsettled: it is reported once per run of failures and retried
next tick. A refusal at 1-7 settles the epoch, keeps the running artifact
and is reported once per (epoch, sha256) with the doc's log line. A record
that is not valid (``rollout_record_invalid``) is reported once per text;
the last settled epoch stays.

The client is a blocking redis-py client (``redis_store.sync_client``:
``redis.Redis`` or ``redis.cluster.RedisCluster``; every key carries the hash
tag ``{rollout}``, so the pipeline reaches one slot). :meth:`Follower.start`
ticks on a daemon thread: swaps are atomic for every thread, and a tick
(fetch, compile, self-test) never blocks an event loop.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ..artifact import MAX_ARTIFACT_BYTES, ArtifactInfo, current_artifact, describe, swap_artifact
from ..errors import ArtifactError
from ..periodic import Periodic
from .errors import RolloutError
from .record import MAX_RECORD_BYTES, RolloutRecord, desired, read_record
from .trust import verify

__all__ = ["REPLICAS_KEY", "STATE_KEY", "FollowEvent", "Follower", "Refusal", "artifact_key"]

STATE_KEY = "retry-policy:{rollout}:state"
REPLICAS_KEY = "retry-policy:{rollout}:replicas"
SOURCE = "redis"
log = logging.getLogger(__name__)


def artifact_key(sha256: str) -> str:
    """The hash of one published artifact."""
    return f"retry-policy:{{rollout}}:artifact:{sha256}"


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class Refusal:
    """A refused record or artifact: ``sha256`` is the desired artifact (None for an invalid record)."""

    sha256: str | None
    code: str
    message: str
    at_ms: int


@dataclass(frozen=True)
class FollowEvent:
    """``kind``: ``swapped`` (``old``, ``new``), ``refused`` (``refusal``), ``store_failed`` (the first of a
    run of failures) or ``store_recovered``; ``line`` is the log line."""

    kind: str
    line: str
    old: ArtifactInfo | None = None
    new: ArtifactInfo | None = None
    refusal: Refusal | None = None


class _StoreFailed(Exception):
    pass


class Follower:
    """Follows the rollout record for replica ``replica_id``, trusting ``trusted`` (:func:`read_trust`).

    ``client``: a blocking redis-py client, or ``connect``: a callable that
    makes one (called again at the next tick while it fails: a cluster client
    contacts its seed when made). ``fetch_connect``: makes the client of the
    artifact's ``HMGET`` (up to 4 MiB: a longer timeout than the tick's; default the
    same client). ``counts``: the running totals (events
    finished, dead letters) the status record reports since the running
    artifact was loaded or swapped in. ``document_version``: the version the
    status names (default: the running artifact's embedded document's)."""

    def __init__(self, trusted: Mapping[str, Any], replica_id: str, *, client: Any = None,
                 connect: Callable[[], Any] | None = None, fetch_connect: Callable[[], Any] | None = None,
                 language: str = "python",
                 counts: Callable[[], tuple[int, int]] | None = None,
                 document_version: Callable[[], str] | None = None,
                 on_event: Callable[[FollowEvent], None] | None = None,
                 now_ms: Callable[[], int] = _wall_ms) -> None:
        if (client is None) == (connect is None):
            raise ValueError("give exactly one of client and connect")
        self.trusted, self.replica_id, self.language = trusted, replica_id, language
        self._client, self._connect = client, connect
        self._fetch_client: Any = None
        self._fetch_connect = fetch_connect
        self._counts = counts or (lambda: (0, 0))
        self._document_version = document_version or (lambda: current_artifact().info.document_version)
        self.on_event, self._now_ms = on_event, now_ms
        self.host, self.pid = socket.gethostname(), os.getpid()
        self.epoch = 0  # the last settled epoch
        self.refusal: Refusal | None = None  # the latest since start
        self.since_ms = now_ms()
        self._base = self._counts()
        self._failing = False
        self._reported: set[tuple[int, str]] = set()
        self._bad_record: str | None = None  # the sha256 of the invalid record text last reported
        # a follower never dies silently: report and keep ticking
        self._ticks = Periodic("rollout-follower", self.tick, lambda e: log.warning("rollout follower error: %r", e))

    # ---- the status record ----

    def status(self) -> dict[str, Any]:
        """This replica's status record (docs/rollout.md "The status record")."""
        finished, dead = self._counts()
        return {"replica_id": self.replica_id, "language": self.language, "host": self.host, "pid": self.pid,
                "artifact_sha256": current_artifact().info.sha256, "document_version": self._document_version(),
                "since_ms": self.since_ms, "events": finished - self._base[0], "dead_letters": dead - self._base[1],
                "seen_ms": self._now_ms(), "epoch": self.epoch,
                "refusal": None if self.refusal is None else asdict(self.refusal)}

    # ---- one tick ----

    def tick(self) -> FollowEvent | None:
        """One tick: report the status, read the record, follow it. Returns what was reported, if anything."""
        try:
            client = self._client_now()
            pipe = client.pipeline(transaction=False)
            pipe.hset(REPLICAS_KEY, self.replica_id, json.dumps(self.status(), separators=(",", ":")))
            pipe.getrange(STATE_KEY, 0, MAX_RECORD_BYTES)  # at most 4,097 bytes, never a huge value
            raw = pipe.execute()[1]
        except Exception as e:  # down, a timeout, an error reply: nothing changes
            return self._store_failed(e)
        event = self._store_ok()
        if not raw:
            return event  # nothing published (GETRANGE of no key is empty): keep what runs
        try:
            record = read_record(raw)
        except RolloutError as e:
            return self._record_invalid(raw, e) or event
        self._bad_record = None
        if record.epoch == self.epoch:
            return event
        return self._follow(record) or event

    def _client_now(self) -> Any:
        if self._client is None:
            assert self._connect is not None
            self._client = self._connect()
        return self._client

    def _fetch_client_now(self) -> Any:
        if self._fetch_connect is None:
            return self._client_now()
        if self._fetch_client is None:
            self._fetch_client = self._fetch_connect()
        return self._fetch_client

    def _follow(self, record: RolloutRecord) -> FollowEvent | None:
        want = desired(record, self.replica_id)
        running = current_artifact().info
        if want == running.sha256:
            self.epoch = record.epoch
            return None
        try:
            data, signature, key_id = self._fetch(want)
            digest = hashlib.sha256(data).hexdigest()
            verify(self.trusted, key_id, signature, digest)
            if digest != want:
                raise ArtifactError("artifact_sha256_mismatch", f"expected sha256 {want}, found {digest}")
            new = swap_artifact(data, want, bytes_source=SOURCE)
        except _StoreFailed as e:  # steps 2-3: the epoch stays unsettled, retried next tick
            return self._store_failed(e.__cause__ or e)
        except (RolloutError, ArtifactError) as e:
            self.epoch = record.epoch
            return self._refused(record.epoch, want, e.code, e.message, running)
        self.epoch = record.epoch
        self.since_ms, self._base = self._now_ms(), self._counts()
        return self._emit(FollowEvent("swapped", f"policy artifact swapped sha256={running.sha256} -> {new.sha256} "
                                      f"{describe(new)}", running, new))

    def _fetch(self, sha256: str) -> tuple[bytes, str, str]:
        """Steps 2-3: the artifact's bytes, signature and key id, never more bytes than ``HSTRLEN`` allowed."""
        key = artifact_key(sha256)
        try:
            size = int(self._client_now().hstrlen(key, "bytes"))
        except Exception as e:
            raise _StoreFailed() from e
        if size == 0:
            raise RolloutError("rollout_artifact_missing", f"{key} has no bytes field (HSTRLEN 0)")
        if size > MAX_ARTIFACT_BYTES:
            raise ArtifactError("artifact_too_large", f"{key} bytes is {size} bytes (HSTRLEN); an artifact is at "
                                f"most {MAX_ARTIFACT_BYTES} bytes (4 MiB): not fetched")
        try:
            data, signature, key_id = self._fetch_client_now().hmget(key, ["bytes", "signature", "key_id"])
        except Exception as e:
            raise _StoreFailed() from e
        if data is None or signature is None or key_id is None:
            missing = [n for n, v in (("bytes", data), ("signature", signature), ("key_id", key_id)) if v is None]
            raise RolloutError("rollout_artifact_missing", f"{key} lacks {', '.join(missing)}")
        if len(data) > MAX_ARTIFACT_BYTES:  # replaced between the two commands
            raise ArtifactError("artifact_too_large", f"{key} bytes is {len(data)} bytes; at most {MAX_ARTIFACT_BYTES}")
        return bytes(data), _text(signature), _text(key_id)

    # ---- reporting ----

    def _refused(self, epoch: int, want: str, code: str, message: str, running: ArtifactInfo) -> FollowEvent | None:
        self.refusal = Refusal(want, code, message, self._now_ms())
        if (epoch, want) in self._reported:
            return None
        self._reported.add((epoch, want))
        return self._emit(FollowEvent("refused", f"policy artifact refused source={SOURCE} sha256={want} code={code}: "
                                      f"{message}; keeping sha256={running.sha256}", refusal=self.refusal))

    def _record_invalid(self, raw: bytes | str, e: RolloutError) -> FollowEvent | None:
        text_sha = hashlib.sha256(raw if isinstance(raw, bytes) else raw.encode("utf-8")).hexdigest()
        if text_sha == self._bad_record:
            return None
        self._bad_record = text_sha
        self.refusal = Refusal(None, e.code, e.message, self._now_ms())
        return self._emit(FollowEvent("refused", f"policy artifact refused source={SOURCE} sha256=none code={e.code}: "
                                      f"{e.message}; keeping sha256={current_artifact().info.sha256}",
                                      refusal=self.refusal))

    def _store_failed(self, e: BaseException) -> FollowEvent | None:
        if self._failing:
            return None
        self._failing = True
        return self._emit(FollowEvent("store_failed", f"rollout: store unreachable, keeping sha256="
                                      f"{current_artifact().info.sha256}, retrying every tick: {type(e).__name__}: {e}"))

    def _store_ok(self) -> FollowEvent | None:
        if not self._failing:
            return None
        self._failing = False
        return self._emit(FollowEvent("store_recovered", "rollout: store reachable again"))

    def _emit(self, event: FollowEvent) -> FollowEvent:
        if self.on_event is not None:
            self.on_event(event)
        return event

    # ---- the background ticks ----

    def start(self, interval_ms: int = 500) -> Follower:
        """Tick every ``interval_ms`` on a daemon thread until :meth:`stop`."""
        self._ticks.start(interval_ms)
        return self

    def stop(self) -> None:
        self._ticks.stop()


def _text(value: bytes | str) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else value
