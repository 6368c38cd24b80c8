"""The dispatcher end to end, in a few seconds:
``python -m webhook_retry_policy.dispatcher.demo [--rounds N] [--burst B] [--metrics-addr HOST:PORT]
[--attempt-deadline-ms N] [--refuse-private-targets] [--store FILE] [--drain-ms N] [--slow-ms N]``

Starts three real loopback endpoints (204, always 503, 410), loads
``policy.example.toml``, submits events of every class to every endpoint,
runs the dispatcher on a manual clock (24 h of retry windows pass
instantly; the HTTP requests are real), then prints the dead letters and
scrapes ``/metrics``. Its endpoints are on loopback, so the demo allows
private targets (``DispatcherConfig(allow_private_targets=True)``) unless
``--refuse-private-targets`` shows what a production default does to them.

``--store FILE`` journals the events (journal format 2, docs/journal.md;
a journal left by an earlier run is continued: its pending events are
resumed, to the targets they were admitted with). SIGTERM or Ctrl-C
drains: no event is taken and no attempt starts after it, attempts in
flight get ``--drain-ms`` to finish (then they are abandoned, journaled as
made), pending events stay in the journal, the tables are still printed
and the demo exits 0; a second signal is ignored. ``--slow-ms`` makes
every endpoint answer late, to watch a drain wait. The last line is
``summary {json}``: events, delivered, dead_lettered, pending, held (their
endpoint answered 410; journaled as pending), drained, the requests the
endpoints received and ``sent_twice`` (attempts that arrived more than
once).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from importlib import resources
from typing import Any

import httpx

from .. import AsyncRetryPolicy, ManualClock
from . import Dispatcher, DispatcherConfig, DispatcherMetrics
from .demo_endpoints import DemoEndpoints
from .dispatcher import Draining
from .journal import JournalError, JournalEventStore
from .metrics import DEFAULT_METRICS_HOST, parse_metrics_addr
from .replica_run import EARLY_SIGNALS, signals_caught
from .store import DEAD, DELIVERED, HELD, InMemoryEventStore

DEFAULT_DRAIN_MS = 2_000
log = logging.getLogger("webhook_retry_policy.demo")


def example_document_toml() -> str:
    return resources.files(__package__).joinpath("policy.example.toml").read_text("utf-8")


async def _feed(d: Dispatcher, urls: dict[str, str], events: int, burst: int) -> None:
    """``burst`` events per endpoint every 20 simulated seconds, then until idle (or a drain)."""
    clock = d.clock
    classes = tuple(ec.name for ec in d.document.classes)
    for i in range(events):
        for endpoint_id in urls:
            for j in range(burst):
                n = i * burst + j
                event_id = f"evt_{endpoint_id}_{n}"
                if event_id in d.store.events:  # journaled by an earlier run
                    continue
                try:
                    await d.submit(event_id, endpoint_id, classes[n % len(classes)], {"n": n})
                except Draining:
                    return
        await d.run_until(clock.now_ms() + 20_000)
        if d.draining.is_set():
            return
    await d.run_until_idle()


async def _run_draining(d: Dispatcher, work: Any, drain_ms: int) -> bool:
    """Run ``work`` to its end, or from the first SIGTERM/SIGINT drain: the
    attempts in flight get ``drain_ms``, then the rest is cancelled. True when drained."""
    loop = asyncio.get_running_loop()

    def on_signal(name: str) -> None:
        if not d.draining.is_set():
            log.warning("%s: draining (attempts in flight get up to %d ms; no new event or attempt)", name, drain_ms)
            d.drain()

    if EARLY_SIGNALS:  # a signal during the setup
        on_signal(EARLY_SIGNALS[0])
    installed: dict[signal.Signals, Any] = {}
    for sig in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(sig)
        try:
            loop.add_signal_handler(sig, on_signal, sig.name)
            installed[sig] = previous
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread: not ours to handle
            pass
    task = asyncio.ensure_future(work)
    signalled = asyncio.ensure_future(d.draining.wait())
    try:
        await asyncio.wait([task, signalled], return_when=asyncio.FIRST_COMPLETED)
        if d.draining.is_set():
            done, _ = await asyncio.wait([task], timeout=drain_ms / 1000)
            if not done:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                return True
        await task
        return d.draining.is_set()
    finally:
        signalled.cancel()
        for sig, previous in installed.items():  # main's catcher again: a later signal never kills mid-print
            loop.remove_signal_handler(sig)
            signal.signal(sig, previous)


async def run(events: int, burst: int, metrics_addr: tuple[str, int] = (DEFAULT_METRICS_HOST, 0),
              config: DispatcherConfig | None = None, *, store_path: str | None = None,
              drain_ms: int = DEFAULT_DRAIN_MS, slow_ms: int = 0) -> str:
    clock = ManualClock()
    policy = AsyncRetryPolicy(clock=clock)
    document = policy.load_document_toml(example_document_toml())
    store = JournalEventStore(store_path, policy) if store_path is not None else InMemoryEventStore()
    metrics = DispatcherMetrics()
    metrics.serve(metrics_addr[1], addr=metrics_addr[0])
    try:
        with DemoEndpoints(slow_ms) as eps:
            config = config or DispatcherConfig(allow_private_targets=True)
            async with httpx.AsyncClient(timeout=5.0, trust_env=False) as scraper:
                d = Dispatcher(document, eps.urls(), policy, store=store, metrics=metrics, sleep=clock.sleep,
                               config=config)
                start = clock.now_ms()
                drained = await _run_draining(d, _feed(d, eps.urls(), events, burst), drain_ms)
                print(f"simulated {(clock.now_ms() - start) / 3_600_000:.1f} h; requests: "
                      f"healthy={eps.healthy.requests} unavailable={eps.unavailable.requests} gone={eps.gone.requests}")
                for r in (await d.store.dead_letters())[:10]:
                    dl = r.dead_letter
                    if dl is None:
                        continue
                    print(f"dead letter {dl.event_id} ({r.event_class}): {dl.stop_reason.value}, "
                          f"attempts={dl.attempts}, elapsed={dl.elapsed_ms / 1000:.0f} s")
                scrape = (await scraper.get(metrics.url())).text
                await d.client.aclose()
            summary = _summary(store, drained, eps)
    finally:
        store.close()  # the journal's lock goes with a clean exit (and after a drain)
        metrics.close()
    lines = [line for line in scrape.splitlines() if line.startswith("webhook_deadletter_total")]
    print("\n".join(sorted(lines)))
    if drained:
        where = f" in {store_path}" if store_path is not None else " (in memory: --store FILE keeps them)"
        print(f"drained: {summary['pending'] + summary['held']} events pending{where}")
    print("summary " + json.dumps(summary, separators=(",", ":")), flush=True)
    return scrape


def _summary(store: InMemoryEventStore, drained: bool, eps: DemoEndpoints) -> dict[str, Any]:
    statuses = [r.status for r in store.events.values()]
    delivered, dead, held = statuses.count(DELIVERED), statuses.count(DEAD), statuses.count(HELD)
    return {"events": len(statuses), "delivered": delivered, "dead_lettered": dead,
            "pending": len(statuses) - delivered - dead - held, "held": held, "drained": drained,
            "requests": eps.requests(), "sent_twice": eps.sent_twice()}


def _metrics_addr(text: str) -> tuple[str, int]:
    try:
        return parse_metrics_addr(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="demo: %(message)s")
    with signals_caught():  # a signal during the setup drains at once instead of killing it
        _main()


def _main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=12, help="rounds of submissions, 20 simulated seconds apart")
    ap.add_argument("--burst", type=int, default=6, help="events per endpoint per round")
    ap.add_argument("--metrics-addr", type=_metrics_addr, default=(DEFAULT_METRICS_HOST, 0), metavar="HOST:PORT",
                    help="where /metrics listens (default 127.0.0.1:0; empty HOST: 127.0.0.1; port 0: any free port)")
    ap.add_argument("--attempt-deadline-ms", type=int, default=30_000, help="total deadline of one attempt")
    ap.add_argument("--refuse-private-targets", action="store_true",
                    help="refuse loopback targets as production does (every event ends destination_refused)")
    ap.add_argument("--store", metavar="FILE", help="journal the events (journal format 2); default: in memory")
    ap.add_argument("--drain-ms", type=int, default=DEFAULT_DRAIN_MS,
                    help="on SIGTERM/SIGINT, how long attempts in flight get to finish (default 2000)")
    ap.add_argument("--slow-ms", type=int, default=0, help="every endpoint answers after this long (default 0)")
    args = ap.parse_args()
    config = DispatcherConfig(attempt_deadline_ms=args.attempt_deadline_ms,
                              allow_private_targets=not args.refuse_private_targets)
    try:
        asyncio.run(run(args.rounds, args.burst, args.metrics_addr, config, store_path=args.store,
                        drain_ms=args.drain_ms, slow_ms=args.slow_ms))
    except JournalError as e:
        print(f"demo: --store {args.store}: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
