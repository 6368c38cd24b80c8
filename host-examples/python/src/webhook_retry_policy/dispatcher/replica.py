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
At the end it prints exactly one JSON line on stdout (everything else goes
to stderr). Exit 0, or 2 for bad arguments (a refused artifact included).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import sys
import time
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from ..artifact import ARTIFACT_ENV, ArtifactInfo, current_artifact, describe, swap_artifact
from ..artifact_watch import ArtifactWatch, WatchEvent
from ..delivery_engine import DeliveryEngine, EngineError
from ..errors import ArtifactError, PolicyError, PolicyTrap
from ..ops import PolicyOps
from ..redact import redact
from ..redis_store import AsyncRedisBudgetStore
from ..transport_kinds import TransportKind
from .admissions import Admissions
from .driver import Driver
from .journal_file import JournalError, JournalFile, read_bytes
from .metrics import DispatcherMetrics, metrics_addr_arg
from .replay import Parser, UsageError, whole
from .replay import main as replay_main
from .rollout_follow import ReplicaFollower, add_flags, check_flags
from .signals import drain_on_signals, signals_caught
from .swaps import SwapPath
from .tally import HOST
from .tls import CaFileError, read_ca_file
from .transport import DEFAULT_ATTEMPT_DEADLINE_MS, make_client

EVENT_CLASS = "storm"
# Connections opened (TLS, AUTH, PING) before the first event: at most this
# many, whatever --concurrency says. One per in-flight attempt (1,024 in the
# release bench) opened at once on one event loop took longer than the store
# bound on 2 cores, and the replica spent its start logging timeouts; the
# pool opens more as attempts need them.
WARM_CONNECTIONS = 16
log = logging.getLogger("webhook_retry_policy.replica")
artifact_log = logging.getLogger("webhook_retry_policy.artifact")


def _rate(text: str) -> float:
    """``--rate N``: admissions per second, a finite number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"--rate must be a finite number of events per second above 0, not {text!r}")
    return value


def _package_version() -> str:
    """The installed distribution's version, else the source tree's pyproject.toml's, else "unknown"."""
    from importlib import metadata

    with suppress(metadata.PackageNotFoundError):
        return metadata.version("webhook-retry-policy")
    import tomllib
    from pathlib import Path

    try:
        pyproject = Path(__file__).resolve().parents[3] / "pyproject.toml"
        return str(tomllib.loads(pyproject.read_text("utf-8"))["project"]["version"])
    except (OSError, KeyError, ValueError):
        return "unknown"


def _refuse_repeats(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """A flag given twice is a usage error (docs/replica.md), not "the last one wins"."""
    takes_value = {o: a.nargs != 0 for a in parser._actions for o in a.option_strings}
    seen: set[str] = set()
    tokens = iter(argv)
    for token in tokens:
        flag, has_value, _ = token.partition("=")
        if flag not in takes_value:
            continue
        if flag in seen:
            raise UsageError(f"{flag} given more than once")
        seen.add(flag)
        if takes_value[flag] and not has_value:
            next(tokens, None)  # its value, whatever it looks like


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    # exact spellings only (the same as the other hosts' replicas): no abbreviations
    p = Parser(prog="replica", description="One Python dispatcher replica for the fleet tests (REPLICA contract).",
                allow_abbrev=False)
    p.add_argument("--target", required=True, metavar="URL", help="deliver every event to this URL (POST)")
    p.add_argument("--endpoint-id", required=True, metavar="ID", help="the budget key (endpoint id) for that URL")
    p.add_argument("--events", required=True, type=whole("--events", 0), metavar="N", help="first attempts to make")
    p.add_argument("--concurrency", type=whole("--concurrency", 1), default=8, metavar="C",
                   help="in-flight deliveries (default 8)")
    p.add_argument("--policy", metavar="FILE", help=f"JSON policy document (class {EVENT_CLASS!r}); default: the "
                   "document embedded in the artifact (an error when it embeds none)")
    p.add_argument("--redis", metavar="URL", help="redis://[USER[:PASSWORD]@]HOST:PORT[/DB], rediss://... for TLS "
                   "(absent: in-memory counter)")
    p.add_argument("--redis-cluster", metavar="URL", help="redis://host:port of one Redis Cluster node (cluster mode)")
    p.add_argument("--clock-offset-ms", type=int, default=0, metavar="N",
                   help="shift this replica's clock by N ms (clock-skew tests; default 0)")
    p.add_argument("--store-timeout-ms", type=whole("--store-timeout-ms", 1), default=250, metavar="N",
                   help="timeout of every Redis call (default 250)")
    p.add_argument("--deadline-ms", type=whole("--deadline-ms", 0), metavar="N",
                   help="stop starting new events after N ms (default: none)")
    p.add_argument("--rate", type=_rate, metavar="N",
                   help="admit at most N events per second: the k-th (from 0) no earlier than k*1000/N ms after the "
                        "start (default: as fast as --concurrency allows)")
    p.add_argument("--attempt-deadline-ms", type=whole("--attempt-deadline-ms", 1),
                   default=DEFAULT_ATTEMPT_DEADLINE_MS, metavar="N",
                   help="total deadline of one attempt: connect, send, response head, body prefix (default 30000)")
    p.add_argument("--allow-private-targets", action="store_true",
                   help="allow targets on loopback, private or link-local addresses (local development, tests)")
    p.add_argument("--artifact", metavar="FILE",
                   help=f"the policy artifact (default: ${ARTIFACT_ENV}, else the package's copy)")
    p.add_argument("--watch-artifact-ms", type=whole("--watch-artifact-ms", 1), metavar="N",
                   help=f"poll the artifact file (--artifact or ${ARTIFACT_ENV}) every N ms; swap when it changes")
    add_flags(p)
    p.add_argument("--drain-ms", type=whole("--drain-ms", 0), default=5000, metavar="N",
                   help="on SIGTERM/SIGINT, how long attempts in progress may take to finish (default 5000)")
    p.add_argument("--ca-file", metavar="PATH",
                   help="PEM CA certificates trusted in addition to the platform's, for https:// targets and rediss:// stores")
    p.add_argument("--metrics-addr", type=metrics_addr_arg, metavar="HOST:PORT",
                   help="serve /metrics on HOST:PORT (empty HOST: 127.0.0.1; port 0: a free port; the URL is logged)")
    p.add_argument("--store", metavar="FILE",
                   help="journal every event to FILE (journal format 2, fsynced, one writer); its pending and held events "
                        "are continued first (a restart after a crash)")
    p.add_argument("--resume", metavar="FILE",
                   help="first continue the pending events of another replica's journal (any language), each "
                        "under the policy it was admitted with")
    p.add_argument("--version", action="version", version=f"replica (python) {_package_version()}",
                   help="print the replica's version and exit (the artifact is not loaded)")
    _refuse_repeats(p, argv)
    a = p.parse_args(list(argv))
    if a.watch_artifact_ms is not None and not (a.artifact or os.environ.get(ARTIFACT_ENV)):
        raise UsageError(f"--watch-artifact-ms needs a file to watch: --artifact FILE or ${ARTIFACT_ENV}")
    if not a.target.startswith(("http://", "https://")):
        raise UsageError(f"--target must be an http:// or https:// URL, not {redact(a.target)!r}")
    if not a.endpoint_id:
        raise UsageError("--endpoint-id must not be empty")
    if a.redis is not None and not a.redis.startswith(("redis://", "rediss://", "unix://")):
        raise UsageError(f"--redis must be a redis://host:port/db URL, not {redact(a.redis)!r}")
    if a.redis_cluster is not None and not a.redis_cluster.startswith(("redis://", "rediss://")):
        raise UsageError(f"--redis-cluster must be a redis://host:port URL, not {redact(a.redis_cluster)!r}")
    if a.redis is not None and a.redis_cluster is not None:
        raise UsageError("--redis and --redis-cluster are exclusive")
    try:
        a.ca_pem = read_ca_file(a.ca_file) if a.ca_file is not None else None
        check_flags(a)
    except (CaFileError, ValueError) as e:
        raise UsageError(str(e)) from None
    return a


def _document(args: argparse.Namespace) -> tuple[str, str]:
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


def _watch(args: argparse.Namespace, swaps: SwapPath) -> ArtifactWatch | None:
    """Poll the artifact file (``--watch-artifact-ms``); a swap or a refusal takes the replica's one swap
    path (``swaps.py``)."""
    if args.watch_artifact_ms is None:
        return None

    def on_event(e: WatchEvent) -> None:  # on the watch's thread
        if e.kind == "swapped" and e.old is not None and e.new is not None:
            swaps.swapped(e.old, e.new)
        else:  # refused (a file, or the watch's own error)
            swaps.refused(e.line)

    return ArtifactWatch(args.artifact or os.environ[ARTIFACT_ENV], on_event=on_event).start(args.watch_artifact_ms)


def _open_engine(document: str, args: argparse.Namespace) -> DeliveryEngine:
    """An engine of the active artifact (this thread's instance of it)."""
    memory = args.redis is None and args.redis_cluster is None
    return DeliveryEngine({"document": document, "max_in_flight": args.concurrency, "max_open": args.concurrency,
                           "memory_store": memory, "journal": args.store is not None})


def _resume(args: argparse.Namespace, driver: Driver, journal: JournalFile | None) -> None:
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


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
    try:
        if args.artifact is not None:
            swap_artifact(args.artifact)
        current_artifact()
    except ArtifactError as e:
        raise UsageError(f"policy artifact refused: {e}") from None
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


async def _run(args: argparse.Namespace, started: float, redis_store: AsyncRedisBudgetStore | None,
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
    try:
        args = parse_args(argv)
        summary = asyncio.run(_main(args))
    except UsageError as e:
        # one line naming the flag (docs/replica.md); the flags are in `replica --help`
        print(f"replica: {redact(str(e))} (replica --help lists the flags)", file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(summary, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
