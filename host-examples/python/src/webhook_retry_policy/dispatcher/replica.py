"""The Python dispatcher (docs/replica.md, the REPLICA contract):
``host-examples/python/replica`` runs
``python -m webhook_retry_policy.dispatcher.replica``.

It admits ``--events`` events (ids ``python-<pid>-<i>``, class ``storm``
of ``--policy``, default the artifact's embedded document) into the
delivery engine (docs/engine.md) and performs what the engine asks
(``driver.py``): HTTP attempts with httpx, ``fleet/budget.lua`` calls
through the Redis client (``--redis`` / ``--redis-cluster``; without one
the engine's in-memory store), the journal's lines (``--store``), metrics.
At most ``--concurrency`` events are open at once; ``--rate N`` paces
admissions (the k-th no earlier than k*1000/N ms after the start). ``--store`` /
``--resume`` journals are resumed by the engine; SIGTERM/SIGINT drain.

The policy artifact is ``--artifact FILE`` (else ``RETRY_POLICY_ARTIFACT``,
else the package's copy), checked before the first event; its load is
logged (``policy artifact loaded sha256=...``). ``--watch-artifact-ms N``
polls that file every N ms and swaps when its sha256 changes (logged
``swapped`` / ``refused``); without ``--policy`` the swapped-in artifact's
embedded document becomes current for events admitted from then on.
``--artifact-from-redis`` follows the fleet's rollout instead (docs/rollout.md,
``rollout_follow.py``): one tick before the first event, then every
``--rollout-poll-ms``; its swaps take the same path (``swaps.py``).
``--metrics-addr HOST:PORT`` serves ``/metrics`` (the URL is logged).
``replica replay --store FILE ...`` replays dead letters (``replay.py``).
The flags are judged by the artifact's ``replica-args`` (``command_line.py``:
``--help``, ``--version`` and an unknown flag before the artifact loads).
At the end it prints exactly one JSON line on stdout (everything else goes
to stderr). Exit 0, or 2 for bad arguments (a refused artifact included).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Sequence
from contextlib import suppress
from types import SimpleNamespace
from typing import Any

from ..artifact import ArtifactInfo, current_artifact, describe
from ..artifact_watch import ArtifactWatch, WatchEvent
from ..delivery_engine import DeliveryEngine, EngineError
from ..errors import PolicyError, PolicyTrap
from ..ops import PolicyOps
from ..redact import redact
from ..redis_store import AsyncRedisBudgetStore
from ..transport_kinds import TransportKind
from .admissions import Admissions
from .command_line import UsageError, run
from .driver import Driver
from .journal_file import JournalError, JournalFile, read_bytes
from .metrics import DispatcherMetrics
from .replay import main as replay_main
from .rollout_follow import ReplicaFollower
from .signals import drain_on_signals, signals_caught
from .swaps import SwapPath
from .tally import HOST
from .tls import CaFileError, read_ca_file
from .transport import make_client

EVENT_CLASS = "storm"
# Connections opened (TLS, AUTH, PING) before the first event: at most this
# many, whatever --concurrency says. One per in-flight attempt (1,024 in the
# release bench) opened at once on one event loop took longer than the store
# bound on 2 cores, and the replica spent its start logging timeouts; the
# pool opens more as attempts need them.
WARM_CONNECTIONS = 16
log = logging.getLogger("webhook_retry_policy.replica")
artifact_log = logging.getLogger("webhook_retry_policy.artifact")


def _document(args: SimpleNamespace) -> tuple[str, str]:
    """The document the run admits under (``--policy``'s text, else the
    artifact's embedded one) and its version; UsageError when unreadable or refused."""
    source = f"--policy {args.policy}" if args.policy is not None else "the artifact's embedded document"
    try:
        if args.policy is not None:
            with open(args.policy, encoding="utf-8") as f:
                text = f.read()
        else:
            embedded = current_artifact().document_text
            if embedded is None:
                raise UsageError("the running artifact embeds no policy document: pass --policy FILE")
            text = embedded
        return text, PolicyOps().load_health_document(text).version
    except (OSError, UnicodeDecodeError, PolicyError) as e:
        raise UsageError(f"{source}: {e}") from None


def _watch(args: SimpleNamespace, swaps: SwapPath) -> ArtifactWatch | None:
    """Poll the artifact file (``--watch-artifact-ms``); a swap or a refusal takes the replica's one swap
    path (``swaps.py``)."""
    if args.watch_artifact_ms is None:
        return None

    def on_event(e: WatchEvent) -> None:  # on the watch's thread
        if e.kind == "swapped" and e.old is not None and e.new is not None:
            swaps.swapped(e.old, e.new)
        else:  # refused (a file, or the watch's own error)
            swaps.refused(e.line)

    return ArtifactWatch(args.artifact, on_event=on_event).start(args.watch_artifact_ms)  # --artifact, else the env's


def _open_engine(document: str, args: SimpleNamespace) -> DeliveryEngine:
    """An engine of the active artifact (this thread's instance of it)."""
    memory = args.redis is None and args.redis_cluster is None
    return DeliveryEngine({"document": document, "max_in_flight": args.concurrency, "max_open": args.concurrency,
                           "memory_store": memory, "journal": args.store is not None})


def _resume(args: SimpleNamespace, driver: Driver, journal: JournalFile | None) -> None:
    """``--store``'s own bytes first, then ``--resume``'s (any language's
    journal; its open events are journaled into ``--store``: ``copy``)."""
    path = args.store
    try:
        if journal is not None and journal.data:
            driver.resume(journal.data)
        if args.resume is not None and args.resume != args.store:
            path = args.resume
            driver.resume(read_bytes(args.resume), copy=True)
    except (JournalError, EngineError) as e:
        raise UsageError(f"--store/--resume {path}: {e}") from None


async def _main(args: SimpleNamespace) -> dict[str, Any]:
    started = time.monotonic()  # the artifact is loaded (command_line.settings): the files the flags name next
    try:
        args.ca_pem = read_ca_file(args.ca_file) if args.ca_file is not None else None
    except CaFileError as e:
        raise UsageError(str(e)) from None
    try:  # rollout-open on the trust file's text: a refused one exits 2 before any store is contacted
        follower = ReplicaFollower(args) if args.artifact_from_redis else None
    except ValueError as e:
        raise UsageError(str(e)) from None
    redis_store: AsyncRedisBudgetStore | None = None
    timeout_s = args.store_timeout_ms / 1000
    try:
        if args.redis is not None:
            redis_store = AsyncRedisBudgetStore.from_url(args.redis, timeout_s=timeout_s, ca_pem=args.ca_pem)
        elif args.redis_cluster is not None:
            redis_store = AsyncRedisBudgetStore.from_cluster_url(args.redis_cluster, timeout_s=timeout_s,
                                                                 ca_pem=args.ca_pem)
    except (ValueError, ImportError) as e:
        raise UsageError(f"--redis: {redact(str(e))}") from None
    if redis_store is not None:
        await redis_store.check_eviction()  # logs a warning unless maxmemory-policy is noeviction
        if args.redis is not None:  # connect (TLS, AUTH) before the first event, not inside its store timeout
            await redis_store.warm_up(min(args.concurrency, WARM_CONNECTIONS))
    try:
        if follower is not None:  # the rollout's artifact before the first event; else the local one runs
            await follower.first_tick()
        info = current_artifact().info
        return await _run(args, started, redis_store, info, follower)
    finally:
        if follower is not None:
            follower.stop()


async def _run(args: SimpleNamespace, started: float, redis_store: AsyncRedisBudgetStore | None,
               info: ArtifactInfo, follower: ReplicaFollower | None) -> dict[str, Any]:
    document, version = _document(args)
    try:
        engine = _open_engine(document, args)
    except EngineError as e:
        raise UsageError(f"the policy document: {e}") from None
    try:  # its families from the schema of the artifact this run loaded (current_artifact)
        metrics = DispatcherMetrics()
    except PolicyTrap as e:
        raise UsageError(f"the artifact's metrics schema: {e}") from None
    artifact_log.info("policy artifact loaded %s", describe(info, version))
    metrics.set_policy_info(info.sha256, info.abi, version)
    if args.metrics_addr is not None:
        host, port = args.metrics_addr
        try:
            metrics.serve(port, addr=host)
        except OSError as e:  # cannot bind there (in use, not an address of this host, unresolvable)
            raise UsageError(f"--metrics-addr {host}:{port}: {e}") from None
        artifact_log.info("metrics on %s", metrics.url())
    try:
        journal = JournalFile(args.store) if args.store is not None else None
    except JournalError as e:
        raise UsageError(f"--store: {e}") from None
    client = make_client(concurrency=args.concurrency, attempt_deadline_ms=args.attempt_deadline_ms,
                         allow_private_targets=args.allow_private_targets, ca_pem=args.ca_pem)
    driver = Driver(engine, client=client, metrics=metrics, journal=journal, redis=redis_store,
                    concurrency=args.concurrency, attempt_deadline_ms=args.attempt_deadline_ms, engine_max_open=True,
                    now_ms=lambda: max(0, time.time_ns() // 1_000_000 + args.clock_offset_ms))  # --clock-offset-ms
    watch = None
    try:
        async with client:
            with drain_on_signals(driver.drain, args.drain_ms):
                _resume(args, driver, journal)
                swaps = SwapPath(args, metrics, driver, document, version, lambda doc: _open_engine(doc, args))
                watch = _watch(args, swaps)
                if follower is not None:
                    follower.follow(driver.tally, swaps)
                start = driver.now_ms()
                admissions = Admissions(f"{HOST}-{os.getpid()}", args.events, args.endpoint_id, args.target,
                                        EVENT_CLASS, None if args.deadline_ms is None else start + args.deadline_ms,
                                        rate_per_s=args.rate, start_ms=start)
                try:
                    await driver.run(admissions, args.drain_ms)
                except EngineError as e:
                    raise UsageError(f"the policy document: {e}") from None
    finally:
        if watch is not None:
            watch.stop()
        if journal is not None:
            journal.close()
        metrics.close()
        driver.engine.close()
        if redis_store is not None:
            with suppress(Exception):
                await redis_store.aclose()
    elapsed_ms = int((time.monotonic() - started) * 1000)
    refused = driver.tally.transport_errors.get(TransportKind.DESTINATION_REFUSED, 0)
    if refused:  # the summary has a fixed key set: the explanation goes to stderr
        log.warning("destination_refused: %d attempts not sent (the target resolves to a refused address; "
                    "--allow-private-targets allows it)", refused)
    return driver.tally.summary(redis_store.commands if redis_store is not None else 0, elapsed_ms)


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="replica: %(message)s")
    artifact_log.setLevel(logging.INFO)  # every load and swap is logged (docs/artifact.md)
    with signals_caught():
        return _run_main(argv)


def _run_main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["replay"]:  # `replica replay ...`: docs/health-dispatch.md section 4
        return replay_main(argv[1:])
    return run("replica", argv, lambda args: asyncio.run(_main(args)))


if __name__ == "__main__":
    sys.exit(main())
