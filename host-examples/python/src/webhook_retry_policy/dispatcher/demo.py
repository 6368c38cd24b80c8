"""The dispatcher end to end, in a few seconds:
``python -m webhook_retry_policy.dispatcher.demo [--rounds N] [--burst B] [--metrics-addr HOST:PORT]
[--attempt-deadline-ms N] [--refuse-private-targets] [--store FILE] [--drain-ms N] [--slow-ms N]``

Starts three real loopback endpoints (204, always 503, 410), loads
``policy.example.toml``, admits events of every class to every endpoint
into the delivery engine and runs the same driver as the replica
(``driver.py``) on a simulated clock (24 h of retry windows pass
instantly; the HTTP requests are real), then prints the dead letters and
scrapes ``/metrics``. Its endpoints are on loopback, so the demo allows
private targets unless ``--refuse-private-targets`` shows what a
production default does to them.

``--store FILE`` journals the events (docs/journal.md; a journal left by an
earlier run is resumed by the engine). SIGTERM or Ctrl-C drains: no event
is admitted and no attempt starts after it, attempts in flight get
``--drain-ms`` to finish (then they are abandoned: their attempt was
journaled before it was sent, so a resume never sends that number again),
pending events stay in the journal and the demo exits 0; a second signal
is ignored. ``--slow-ms`` makes every endpoint answer late. The last line
is ``summary {json}``: events, delivered, dead_lettered, pending, drained,
the requests the endpoints received and ``sent_twice`` (attempts that
arrived more than once).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tomllib
from typing import Any

import httpx

from ..clock import ManualClock
from ..delivery_engine import DeliveryEngine
from ..loader import package_data
from .driver import Driver
from .endpoints import LocalEndpoints
from .journal_file import JournalError, JournalFile
from .metrics import DEFAULT_METRICS_HOST, DispatcherMetrics, metrics_addr_arg
from .signals import drain_on_signals, signals_caught
from .transport import make_client

DEFAULT_DRAIN_MS = 2_000
ROUND_MS = 20_000
log = logging.getLogger("webhook_retry_policy.demo")


def example_document() -> dict[str, Any]:
    """``policy.example.toml`` as the engine takes it (an object: the engine reads JSON, not TOML)."""
    return tomllib.loads(package_data("dispatcher", "policy.example.toml").decode("utf-8"))


class Rounds:
    """``burst`` events per endpoint every 20 simulated seconds, classes in turn."""

    def __init__(self, urls: dict[str, str], classes: list[str], rounds: int, burst: int, start_ms: int) -> None:
        self.urls, self.classes, self.rounds, self.burst, self.start_ms = urls, classes, rounds, burst, start_ms
        self.round = 0

    def wake_at(self, now_ms: int) -> int | None:
        return None if self.round >= self.rounds else self.start_ms + self.round * ROUND_MS

    def done(self, now_ms: int) -> bool:
        return self.round >= self.rounds

    def take_now(self, now_ms: int) -> bool:
        return not self.done(now_ms) and now_ms >= self.start_ms + self.round * ROUND_MS

    def give_back(self, refused: list[dict[str, Any]]) -> None:  # the demo's engine has no max_open: none refused
        assert not refused, refused

    def take(self, room: int, now_ms: int) -> list[dict[str, Any]]:
        out = []
        while not self.done(now_ms) and now_ms >= self.start_ms + self.round * ROUND_MS:
            for endpoint_id, url in self.urls.items():
                for j in range(self.burst):
                    n = self.round * self.burst + j
                    out.append({"op": "admit", "event_id": f"evt_{endpoint_id}_{n}", "endpoint_id": endpoint_id,
                                "target": url, "class": self.classes[n % len(self.classes)]})
            self.round += 1
        return out


async def run(rounds: int, burst: int, metrics_addr: tuple[str, int] = (DEFAULT_METRICS_HOST, 0), *,
              allow_private_targets: bool = True, attempt_deadline_ms: int = 30_000, store_path: str | None = None,
              drain_ms: int = DEFAULT_DRAIN_MS, slow_ms: int = 0) -> str:
    clock = ManualClock()
    document = example_document()
    journal = JournalFile(store_path) if store_path is not None else None
    metrics = DispatcherMetrics()
    metrics.serve(metrics_addr[1], addr=metrics_addr[0])
    engine = DeliveryEngine({"document": document, "memory_store": True, "max_in_flight": 64,
                             "journal": store_path is not None})
    try:
        with LocalEndpoints(slow_ms) as eps:
            async with make_client(concurrency=64, attempt_deadline_ms=attempt_deadline_ms,
                                   allow_private_targets=allow_private_targets) as client:
                driver = Driver(engine, client=client, metrics=metrics, journal=journal, concurrency=1 << 30,
                                attempt_deadline_ms=attempt_deadline_ms, now_ms=clock.now_ms, advance=clock.set)
                start = clock.now_ms()
                with drain_on_signals(driver.drain, drain_ms):
                    if journal is not None and journal.data:
                        driver.resume(journal.data)
                    await driver.run(Rounds(eps.urls(), list(document["classes"]), rounds, burst, start), drain_ms)
            print(f"simulated {(clock.now_ms() - start) / 3_600_000:.1f} h; requests: "
                  f"healthy={eps.healthy.requests} unavailable={eps.unavailable.requests} gone={eps.gone.requests}")
            for o in driver.dead_letters[:10]:
                dl = o["dead_letter"]
                print(f"dead letter {dl['event_id']}: {dl['stop_reason']}, attempts={dl['attempts']}, "
                      f"elapsed={dl['elapsed_ms'] / 1000:.0f} s{' (endpoint disabled)' if o['disable_endpoint'] else ''}")
            async with httpx.AsyncClient(timeout=5.0, trust_env=False) as scraper:
                scrape = (await scraper.get(metrics.url())).text
            t = driver.tally
            dead = sum(t.stop_reasons.values()) - t.stop_reasons["delivered"]
            summary = {"events": t.events, "delivered": t.stop_reasons["delivered"], "dead_lettered": dead,
                       "pending": t.events - sum(t.stop_reasons.values()), "drained": t.drained,
                       "requests": eps.requests(), "sent_twice": eps.sent_twice()}
    finally:
        engine.close()
        if journal is not None:
            journal.close()  # the journal's lock goes with a clean exit (and after a drain)
        metrics.close()
    lines = [line for line in scrape.splitlines() if line.startswith("webhook_deadletter_total")]
    print("\n".join(sorted(lines)))
    if summary["drained"]:
        where = f" in {store_path}" if store_path is not None else " (in memory: --store FILE keeps them)"
        print(f"drained: {summary['pending']} events pending{where}")
    print("summary " + json.dumps(summary, separators=(",", ":")), flush=True)
    return scrape


def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="demo: %(message)s")
    with signals_caught():  # a signal during the setup drains at once instead of killing it
        _main()


def _main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=12, help="rounds of submissions, 20 simulated seconds apart")
    ap.add_argument("--burst", type=int, default=6, help="events per endpoint per round")
    ap.add_argument("--metrics-addr", type=metrics_addr_arg, default=(DEFAULT_METRICS_HOST, 0), metavar="HOST:PORT",
                    help="where /metrics listens (default 127.0.0.1:0; empty HOST: 127.0.0.1; port 0: any free port)")
    ap.add_argument("--attempt-deadline-ms", type=int, default=30_000, help="total deadline of one attempt")
    ap.add_argument("--refuse-private-targets", action="store_true",
                    help="refuse loopback targets as production does (every event ends destination_refused)")
    ap.add_argument("--store", metavar="FILE", help="journal the events (journal format 2); default: in memory")
    ap.add_argument("--drain-ms", type=int, default=DEFAULT_DRAIN_MS,
                    help="on SIGTERM/SIGINT, how long attempts in flight get to finish (default 2000)")
    ap.add_argument("--slow-ms", type=int, default=0, help="every endpoint answers after this long (default 0)")
    args = ap.parse_args()
    try:
        asyncio.run(run(args.rounds, args.burst, args.metrics_addr, allow_private_targets=not args.refuse_private_targets,
                        attempt_deadline_ms=args.attempt_deadline_ms, store_path=args.store, drain_ms=args.drain_ms,
                        slow_ms=args.slow_ms))
    except JournalError as e:
        print(f"demo: --store {args.store}: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
