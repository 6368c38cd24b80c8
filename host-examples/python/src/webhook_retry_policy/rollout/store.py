"""The follower's three store calls (docs/rollout.md "What a replica does"),
on blocking redis-py clients (``redis_store.sync_client``: ``redis.Redis`` or
``redis.cluster.RedisCluster``; every key carries the hash tag ``{rollout}``,
so the tick's pipeline reaches one slot):

* :meth:`RedisRolloutStore.tick`: ``HSET retry-policy:{rollout}:replicas <id>
  <status>`` then ``GETRANGE retry-policy:{rollout}:state 0 4096``, ONE
  pipelined round trip (at most 4,097 bytes of the record, whatever is stored);
* :meth:`RedisRolloutStore.artifact_len`: ``HSTRLEN <key> bytes``;
* :meth:`RedisRolloutStore.artifact`: ``HMGET <key> bytes signature key_id``,
  on ``fetch_connect``'s client when given (the replica bounds it by
  max(store timeout, 5 s)).

A failure (down, a timeout, an error reply) raises: the follower reports it
to the component as the call's ``error``. Any object with these three methods
is a store for :class:`~.follower.Follower` (the tests' fake store is one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["RECORD_LAST_BYTE", "REPLICAS_KEY", "STATE_KEY", "RedisRolloutStore", "RolloutStore"]

STATE_KEY = "retry-policy:{rollout}:state"
REPLICAS_KEY = "retry-policy:{rollout}:replicas"
RECORD_LAST_BYTE = 4096
"""``GETRANGE 0 4096``: a 4,097-byte answer is a record too long (the component says so)."""


class RolloutStore(Protocol):
    def tick(self, replica_id: str, status: str) -> bytes | str | None: ...

    def artifact_len(self, key: str) -> int: ...

    def artifact(self, key: str) -> tuple[bytes | None, bytes | str | None, bytes | str | None]: ...


class RedisRolloutStore:
    """``client``: a blocking redis-py client, or ``connect``: a callable making one (called again while it
    fails: a cluster client contacts its seed when made). ``fetch_connect``: makes the client of ``HMGET``
    (default: the same client)."""

    def __init__(self, client: Any = None, connect: Callable[[], Any] | None = None,
                 fetch_connect: Callable[[], Any] | None = None) -> None:
        if (client is None) == (connect is None):
            raise ValueError("give exactly one of client and connect")
        self._client, self._connect = client, connect
        self._fetch_client: Any = None
        self._fetch_connect = fetch_connect

    def _now(self) -> Any:
        if self._client is None:
            assert self._connect is not None
            self._client = self._connect()
        return self._client

    def tick(self, replica_id: str, status: str) -> bytes | str | None:
        pipe = self._now().pipeline(transaction=False)
        pipe.hset(REPLICAS_KEY, replica_id, status)
        pipe.getrange(STATE_KEY, 0, RECORD_LAST_BYTE)
        reply: bytes | str | None = pipe.execute()[1]
        return reply

    def artifact_len(self, key: str) -> int:
        return int(self._now().hstrlen(key, "bytes"))

    def artifact(self, key: str) -> tuple[bytes | None, bytes | str | None, bytes | str | None]:
        if self._fetch_connect is None:
            client = self._now()
        else:
            if self._fetch_client is None:
                self._fetch_client = self._fetch_connect()
            client = self._fetch_client
        data, signature, key_id = client.hmget(key, ["bytes", "signature", "key_id"])
        return data, signature, key_id
