"""The replica's ``--artifact-from-redis`` (docs/replica.md, docs/rollout.md
"What a replica does"; its flags and their rules are the component's
``replica-args``, ``command_line.py``): the
follower (:class:`~webhook_retry_policy.rollout.Follower`) on the replica's
own store options (``--redis`` or ``--redis-cluster``, ``--ca-file``,
``--store-timeout-ms`` per command; the artifact's ``HMGET`` gets at least 5 s).

:func:`first_tick` runs one tick before the first admission (a swap there
happens before any engine is opened, so the first event already runs the
rollout's artifact); :func:`follow` then ticks every ``--rollout-poll-ms``
on the follower's own thread, and its swaps and refusals go through the
replica's one swap path (:class:`.swaps.SwapPath`). The status record
counts the driver's finished events and dead letters.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import suppress
from types import SimpleNamespace
from typing import Any

from ..artifact import current_artifact
from ..redact import redact
from ..redis_store import sync_client
from ..rollout import Follower, FollowEvent, RolloutError, read_trust_file
from .swaps import SwapPath
from .tally import HOST, Tally

artifact_log = logging.getLogger("webhook_retry_policy.artifact")
FETCH_TIMEOUT_S = 5.0
"""The artifact's fetch (``HMGET``, up to 4 MiB) is bounded by max(``--store-timeout-ms``, 5 s); the tick and
``HSTRLEN`` by ``--store-timeout-ms``."""


class ReplicaFollower:
    """The follower of one replica run: made (``rollout-open``) once the local artifact is loaded, before
    the first event, following until :meth:`stop`. A trust file that cannot be read (not a regular file of at
    most 1 MiB) or whose text the component refuses is a ValueError naming ``--trust-key`` (the replica's
    exit 2)."""

    def __init__(self, args: SimpleNamespace) -> None:
        url, cluster = (args.redis, False) if args.redis is not None else (args.redis_cluster, True)
        timeout_s = args.store_timeout_ms / 1000
        self.tally: Tally | None = None
        self.swaps: SwapPath | None = None
        self._clients: list[Any] = []

        def connect(timeout: float = timeout_s) -> Any:
            client = sync_client(url, cluster=cluster, timeout_s=timeout, ca_pem=args.ca_pem)
            self._clients.append(client)
            return client

        fetch_timeout_s = max(timeout_s, FETCH_TIMEOUT_S)  # the artifact's HMGET: up to 4 MiB
        try:  # the replica id: --replica-id, else the default the replica gave replica-args
            self.follower = Follower(read_trust_file(args.trust_key), args.replica_id, connect=connect,
                                     fetch_connect=lambda: connect(fetch_timeout_s), language=HOST, counts=self._counts,
                                     document_version=self._document_version, on_event=self._on_event)
        except RolloutError as e:
            raise ValueError(f"--trust-key {args.trust_key}: {e}") from None
        self.poll_ms = args.rollout_poll_ms

    def _counts(self) -> tuple[int, int]:
        if self.tally is None:
            return 0, 0
        reasons = dict(self.tally.stop_reasons)  # a copy: the loop's thread updates it
        finished = sum(reasons.values())
        return finished, finished - reasons.get("delivered", 0)

    def _document_version(self) -> str:
        return self.swaps.version if self.swaps is not None else current_artifact().info.document_version

    def _on_event(self, e: FollowEvent) -> None:  # on the follower's thread (or the first tick's)
        for line in e.lines:
            artifact_log.warning("%s", redact(line))
        if self.swaps is None:
            return  # the first tick: no engine, no /metrics yet; the `policy artifact loaded ... source=redis` line says it
        if e.refusal is not None:
            self.swaps.refused()
        if e.old is not None and e.new is not None:
            self.swaps.swapped(e.old, e.new)

    async def first_tick(self) -> None:
        """The tick before the first admission (off the loop: the fetch and the load block)."""
        await asyncio.to_thread(self.follower.tick)

    def follow(self, tally: Tally, swaps: SwapPath) -> None:
        """From now on: count ``tally``'s events, swap through ``swaps``, tick every ``--rollout-poll-ms``."""
        self.tally, self.swaps = tally, swaps
        self.follower.start(self.poll_ms)

    def stop(self) -> None:
        self.follower.stop()
        for client in self._clients:
            with suppress(Exception):
                client.close()
