"""The Python replica for the fleet tests (the REPLICA contract of the
helper brief): ``host-examples/python/replica`` runs
``python -m webhook_retry_policy.dispatcher.replica``.

It delivers ``--events`` events (ids ``python-<pid>-<i>``) to ``--target``
with httpx, ``--concurrency`` at a time, each through the policy of class
``storm`` of ``--policy`` (default: the document embedded in the
artifact) until the policy stops it, sleeping the decided
delay between attempts. Every decision is the component's step
(:class:`AsyncRetryPolicy`): ``evaluate`` names the one store request the
attempt needs (``record`` for a decided first attempt, ``record_reserve`` /
``reserve`` when only the budget remains), the store answers it with ONE
command running ``fleet/budget.lua`` (``EVALSHA``; ``EVAL`` until Redis has
the script; 250 ms timeout, no client retries), and ``settle`` decides. A Redis error or timeout is ``budget_unavailable`` for a
pending retry (fail closed) and never stops a first attempt from being
sent; the client reconnects on the next call once Redis is back.

The policy artifact is ``--artifact FILE`` (else ``RETRY_POLICY_ARTIFACT``,
else the package's copy), checked before the first event; its load is
logged (``policy artifact loaded sha256=...``). ``--watch-artifact-ms N``
polls that file every N ms and swaps when its sha256 changes (logged
``swapped`` / ``refused``; events in flight keep going; the run keeps the
document it started with: a swapped-in artifact embedding another one is
logged as not applied, format 2 or 3 alike). ``--metrics-addr
HOST:PORT`` serves ``/metrics`` there (an empty HOST is 127.0.0.1, port 0
any free port; ``webhook_policy_info{artifact_sha256,abi,document_version} 1``
and the dispatcher counters; the URL is logged).

A class with a ``health`` section (format 3; every ``--policy``, and the
artifact's embedded document when there is no ``--policy``, is read with
``load-health-document``) runs the send loop of
docs/health-dispatch.md (``replica_health``); ``replica replay --store FILE
--policy FILE ...`` replays dead letters (``replay.py``).
At the end it prints exactly one JSON line on stdout (everything else goes
to stderr). Exit 0, or 2 for bad arguments (a refused artifact included).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from ..artifact import ARTIFACT_ENV, current_artifact, swap_artifact
from ..artifact_watch import ArtifactWatch, WatchEvent
from ..async_policy import AsyncRetryPolicy
from ..clock import OffsetClock, SystemClock
from ..errors import ArtifactError, PolicyError
from ..redact import redact
from ..redis_store import AsyncRedisBudgetStore
from ..reload import DocumentHolder
from ..stores import AsyncInMemoryBudgetStore
from ..types import EventClass, HealthDocument, PolicyDocument
from .metered import MeteredStore
from .metrics import DispatcherMetrics, described, parse_metrics_addr
from .replica_run import EVENT_CLASS, Replica, run_draining, signals_caught
from .tls import CaFileError, read_ca_file
from .transport import DEFAULT_ATTEMPT_DEADLINE_MS, make_client

log = logging.getLogger("webhook_retry_policy.replica")
artifact_log = logging.getLogger("webhook_retry_policy.artifact")


class UsageError(Exception):
    """Bad arguments: reported on stderr, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _whole(name: str, minimum: int):  # type: ignore[no-untyped-def]
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{name} must be at least {minimum}, not {value}")
        return value

    return parse


def _metrics_addr(text: str) -> tuple[str, int]:
    try:
        return parse_metrics_addr(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _package_version() -> str:
    """The installed distribution's version, else the source tree's pyproject.toml's, else "unknown"."""
    from importlib import metadata

    try:
        return metadata.version("webhook-retry-policy")
    except metadata.PackageNotFoundError:
        pass
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
    p = _Parser(prog="replica", description="One Python dispatcher replica for the fleet tests (REPLICA contract).",
                allow_abbrev=False)
    p.add_argument("--target", required=True, metavar="URL", help="deliver every event to this URL (POST)")
    p.add_argument("--endpoint-id", required=True, metavar="ID", help="the budget key (endpoint id) for that URL")
    p.add_argument("--events", required=True, type=_whole("--events", 0), metavar="N", help="first attempts to make")
    p.add_argument("--concurrency", type=_whole("--concurrency", 1), default=8, metavar="C",
                   help="in-flight deliveries (default 8)")
    p.add_argument("--policy", metavar="FILE", help=f"JSON policy document (class {EVENT_CLASS!r}); default: the "
                   "document embedded in the artifact (an error when it embeds none)")
    p.add_argument("--redis", metavar="URL", help="redis://[USER[:PASSWORD]@]HOST:PORT[/DB], rediss://... for TLS "
                   "(absent: in-memory counter)")
    p.add_argument("--redis-cluster", metavar="URL", help="redis://host:port of one Redis Cluster node (cluster mode)")
    p.add_argument("--clock-offset-ms", type=int, default=0, metavar="N",
                   help="shift this replica's clock by N ms (clock-skew tests; default 0)")
    p.add_argument("--store-timeout-ms", type=_whole("--store-timeout-ms", 1), default=250, metavar="N",
                   help="timeout of every Redis call (default 250)")
    p.add_argument("--deadline-ms", type=_whole("--deadline-ms", 0), metavar="N",
                   help="stop starting new events after N ms (default: none)")
    p.add_argument("--attempt-deadline-ms", type=_whole("--attempt-deadline-ms", 1),
                   default=DEFAULT_ATTEMPT_DEADLINE_MS, metavar="N",
                   help="total deadline of one attempt: connect, send, response head, body prefix (default 30000)")
    p.add_argument("--allow-private-targets", action="store_true",
                   help="allow targets on loopback, private or link-local addresses (local development, tests)")
    p.add_argument("--artifact", metavar="FILE",
                   help=f"the policy artifact (default: ${ARTIFACT_ENV}, else the package's copy)")
    p.add_argument("--watch-artifact-ms", type=_whole("--watch-artifact-ms", 1), metavar="N",
                   help=f"poll the artifact file (--artifact or ${ARTIFACT_ENV}) every N ms; swap when it changes")
    p.add_argument("--drain-ms", type=_whole("--drain-ms", 0), default=5000, metavar="N",
                   help="on SIGTERM/SIGINT, how long attempts in progress may take to finish (default 5000)")
    p.add_argument("--ca-file", metavar="PATH",
                   help="PEM CA certificates trusted in addition to the platform's, for https:// targets and rediss:// stores")
    p.add_argument("--metrics-addr", type=_metrics_addr, metavar="HOST:PORT",
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
    except CaFileError as e:
        raise UsageError(str(e)) from None
    return a


def _artifact_and_metrics(args: argparse.Namespace, metrics: DispatcherMetrics, document_version: str,
                          embedded: HealthDocument | None = None) -> ArtifactWatch | None:
    """Log the artifact, serve /metrics when asked, start the file watch when
    asked. ``embedded``: the artifact's document this run took (no
    ``--policy``); a swapped-in artifact embedding another one is logged as
    NOT applied (the run keeps its document, format 2 or 3 alike)."""
    info = current_artifact().info
    artifact_log.info("policy artifact loaded sha256=%s %s", info.sha256, described(info, document_version))
    metrics.set_policy_info(info.sha256, info.abi, document_version)
    if args.metrics_addr is not None:
        host, port = args.metrics_addr
        try:
            metrics.serve(port, addr=host)
        except OSError as e:  # cannot bind there (in use, not an address of this host, unresolvable)
            raise UsageError(f"--metrics-addr {host}:{port}: {e}") from None
        artifact_log.info("metrics on %s", metrics.url())
    watch = None
    if args.watch_artifact_ms is not None:
        def on_event(e: WatchEvent) -> None:
            if e.kind == "swapped" and e.new is not None:
                metrics.set_policy_info(e.new.sha256, e.new.abi, document_version)
            if e.kind in ("swapped", "refused"):
                metrics.policy_reloads.labels("applied" if e.kind == "swapped" else "refused").inc()
            if e.kind == "swapped" and e.old is not None and e.new is not None:
                artifact_log.info("policy artifact swapped sha256=%s -> %s %s", e.old.sha256, e.new.sha256,
                                  described(e.new, document_version))
            else:
                artifact_log.warning("%s", e.line)
            now_embedded = current_artifact().health_document if e.kind == "swapped" else None
            if embedded is not None and now_embedded is not None and now_embedded != embedded:
                artifact_log.warning("the swapped-in artifact's embedded document (version %r) is not applied: "
                                     "this run keeps document version %r until a restart",
                                     now_embedded.version, document_version)

        watch = ArtifactWatch(args.artifact or os.environ[ARTIFACT_ENV], on_event=on_event).start(args.watch_artifact_ms)
    return watch


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
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
            await redis_store.warm_up(args.concurrency)
    metrics = DispatcherMetrics()
    store = MeteredStore(redis_store if redis_store is not None else AsyncInMemoryBudgetStore(), metrics)
    clock = OffsetClock(SystemClock(), args.clock_offset_ms) if args.clock_offset_ms else None
    try:
        if args.artifact is not None:
            swap_artifact(args.artifact)
        current_artifact()
    except ArtifactError as e:
        raise UsageError(f"policy artifact refused: {e}") from None
    # the store bounds each call itself; this outer bound only guards a store that never answers
    policy = AsyncRetryPolicy(store, clock, store_timeout_s=max(1.0, 2 * timeout_s))
    source = f"--policy {args.policy}" if args.policy is not None else "the artifact's embedded document"
    try:
        health_doc = None
        if args.policy is not None:
            with open(args.policy, encoding="utf-8") as f:
                # every document through load-health-document (format 2 reads as format 2)
                health_doc = policy.load_health_document(f.read())
            document = PolicyDocument(health_doc.version, tuple(EventClass(c.name, c.policy)
                                                                for c in health_doc.classes))
        else:  # the embedded document's health sections run as --policy's would (docs/artifact.md step 6)
            holder = DocumentHolder.from_artifact(policy)
            document, health_doc = holder.current, holder.health
        storm = policy.class_policy(document, EVENT_CLASS)
        # The class's schedule is the same for every event; admit once for
        # max_attempts, and each event's first-attempt instant is its own.
        max_attempts = policy.admit(document, EVENT_CLASS).schedule.max_attempts
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{source}: {e}") from None
    except PolicyError as e:
        raise UsageError(f"{source}: {e}") from None
    watch = _artifact_and_metrics(args, metrics, document.version, health_doc if args.policy is None else None)
    client = make_client(concurrency=args.concurrency, attempt_deadline_ms=args.attempt_deadline_ms,
                         allow_private_targets=args.allow_private_targets, ca_pem=args.ca_pem)
    async with client:
        replica = Replica(args, policy, storm, max_attempts, client, metrics)
        has_health = health_doc is not None and any(c.health is not None for c in health_doc.classes
                                                        if c.name == EVENT_CLASS)
        if args.store is not None or args.resume is not None or has_health:
            from .journal_record import JournalError
            from .replica_journal import JournaledReplica
            try:
                replica = JournaledReplica(args, policy, storm, max_attempts, client, document, store=store,
                                           health_doc=health_doc, metrics=metrics)
            except JournalError as e:
                raise UsageError(f"--store/--resume: {e}") from None
        try:
            replica.metrics = metrics
            await run_draining(replica, args.drain_ms)
        finally:
            close = getattr(replica, "close", None)  # a journaled run releases its journal's lock
            if close is not None:
                close()
            if watch is not None:
                watch.stop()
            metrics.close()
            if redis_store is not None:
                try:
                    await redis_store.aclose()
                except Exception:
                    pass
    elapsed_ms = int((time.monotonic() - started) * 1000)
    if replica.tally.destinations_refused:  # the REPLICA summary has a fixed key set: the count goes to stderr
        log.warning("destination_refused: %d attempts not sent (the target resolves to a refused address; "
                    "--allow-private-targets allows it)", replica.tally.destinations_refused)
    replica.tally.store_errors = store.errors
    loop = getattr(replica, "loop", None)  # format 3: finish's disagreements are the send loop's
    replica.tally.budget_disagreements = policy.budget_disagreements + (
        loop.counts.budget_disagreements if loop is not None else 0)
    # Redis commands sent; the in-memory store makes none.
    summary = replica.tally.summary(redis_store.commands if redis_store is not None else 0, elapsed_ms)
    health_summary = getattr(replica, "health_summary", None)
    if health_summary is not None:
        summary.update(health_summary())
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="replica: %(message)s")
    artifact_log.setLevel(logging.INFO)  # every load and swap is logged (docs/artifact.md)
    with signals_caught():
        return _run_main(argv)


def _run_main(argv: Sequence[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["replay"]:  # `replica replay ...`: docs/health-dispatch.md section 4
        from .replay import main as replay_main
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
