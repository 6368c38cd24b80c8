"""The dispatcher end to end, in a few seconds:
``python -m webhook_retry_policy.dispatcher.demo [--rounds N] [--burst B] [--metrics-addr HOST:PORT]
[--attempt-deadline-ms N] [--refuse-private-targets]``

Starts three real loopback endpoints (204, always 503, 410), loads
``policy.example.toml``, submits events of every class to every endpoint,
runs the dispatcher on a manual clock (24 h of retry windows pass
instantly; the HTTP requests are real), then prints the dead letters and
scrapes ``/metrics``. Its endpoints are on loopback, so the demo allows
private targets (``DispatcherConfig(allow_private_targets=True)``) unless
``--refuse-private-targets`` shows what a production default does to them.
"""

from __future__ import annotations

import argparse
import asyncio
from importlib import resources

import httpx

from .. import AsyncRetryPolicy, ManualClock
from . import Dispatcher, DispatcherConfig, DispatcherMetrics, LocalEndpoints
from .metrics import DEFAULT_METRICS_HOST, parse_metrics_addr


def example_document_toml() -> str:
    return resources.files(__package__).joinpath("policy.example.toml").read_text("utf-8")


async def run(events: int, burst: int, metrics_addr: tuple[str, int] = (DEFAULT_METRICS_HOST, 0),
              config: DispatcherConfig | None = None) -> str:
    clock = ManualClock()
    policy = AsyncRetryPolicy(clock=clock)
    document = policy.load_document_toml(example_document_toml())
    metrics = DispatcherMetrics()
    metrics.serve(metrics_addr[1], addr=metrics_addr[0])
    with LocalEndpoints() as eps:
        config = config or DispatcherConfig(allow_private_targets=True)
        async with httpx.AsyncClient(timeout=5.0, trust_env=False) as scraper:
            d = Dispatcher(document, eps.urls(), policy, metrics=metrics, sleep=clock.sleep, config=config)
            classes = tuple(ec.name for ec in document.classes)
            start = clock.now_ms()
            for i in range(events):  # `burst` events per endpoint every 20 simulated seconds
                for endpoint_id in eps.urls():
                    for j in range(burst):
                        n = i * burst + j
                        await d.submit(f"evt_{endpoint_id}_{n}", endpoint_id, classes[n % len(classes)], {"n": n})
                await d.run_until(clock.now_ms() + 20_000)
            await d.run_until_idle()
            print(f"simulated {(clock.now_ms() - start) / 3_600_000:.1f} h; requests: healthy={eps.healthy.requests} "
                  f"unavailable={eps.unavailable.requests} gone={eps.gone.requests}")
            for r in (await d.store.dead_letters())[:10]:
                dl = r.dead_letter
                if dl is None:
                    continue
                print(f"dead letter {dl.event_id} ({r.event_class}): {dl.stop_reason.value}, attempts={dl.attempts}, "
                      f"elapsed={dl.elapsed_ms / 1000:.0f} s")
            scrape = (await scraper.get(metrics.url())).text
            await d.client.aclose()
    metrics.close()
    lines = [line for line in scrape.splitlines() if line.startswith("webhook_deadletter_total")]
    print("\n".join(sorted(lines)))
    return scrape


def _metrics_addr(text: str) -> tuple[str, int]:
    try:
        return parse_metrics_addr(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=12, help="rounds of submissions, 20 simulated seconds apart")
    ap.add_argument("--burst", type=int, default=6, help="events per endpoint per round")
    ap.add_argument("--metrics-addr", type=_metrics_addr, default=(DEFAULT_METRICS_HOST, 0), metavar="HOST:PORT",
                    help="where /metrics listens (default 127.0.0.1:0; empty HOST: 127.0.0.1; port 0: any free port)")
    ap.add_argument("--attempt-deadline-ms", type=int, default=30_000, help="total deadline of one attempt")
    ap.add_argument("--refuse-private-targets", action="store_true",
                    help="refuse loopback targets as production does (every event ends destination_refused)")
    args = ap.parse_args()
    config = DispatcherConfig(attempt_deadline_ms=args.attempt_deadline_ms,
                              allow_private_targets=not args.refuse_private_targets)
    asyncio.run(run(args.rounds, args.burst, args.metrics_addr, config))


if __name__ == "__main__":
    main()
