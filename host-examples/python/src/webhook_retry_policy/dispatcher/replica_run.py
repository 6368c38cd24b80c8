"""The running part of the Python replica (docs/replica.md): :class:`Replica`
delivers the events (attempt, step, wait, attempt again) and keeps the
:class:`Tally` its summary is printed from; :func:`run_draining` runs it to
its end or drains it on SIGTERM/SIGINT. The command line is ``replica.py``.

* Every attempt goes through :meth:`Replica.send`: none once a drain started
  (the event stays pending), none at or after the event's window end (the
  bound is re-checked immediately before the request's first byte:
  ``send_window``), counted and measured otherwise.
* :meth:`Replica.decide` is the policy's step; a decision that cannot be
  made fails closed (``budget_unavailable``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..async_policy import AsyncRetryPolicy
from ..redact import redact
from ..transport_kinds import TransportKind, zero_counts
from ..types import (
    AttemptOutcome,
    Decision,
    DeliveryState,
    HoldReason,
    Policy,
    Retry,
    Stop,
    StopReason,
    TransportError,
)
from .metered import metered_attempt
from .metrics import DispatcherMetrics
from .send_window import WindowElapsed, send_before

HOST = "python"
EVENT_CLASS = "storm"
log = logging.getLogger("webhook_retry_policy.replica")


@dataclass
class Tally:
    events: int = 0
    first_attempts: int = 0
    retries: int = 0
    destinations_refused: int = 0
    stop_reasons: dict[str, int] = field(default_factory=lambda: {r.value: 0 for r in StopReason})
    transport_errors: dict[str, int] = field(default_factory=zero_counts)
    store_errors: int = 0
    budget_disagreements: int = 0
    drained: bool = False

    def summary(self, round_trips: int, elapsed_ms: int) -> dict[str, Any]:
        """The REPLICA summary (docs/replica.md); an event neither delivered
        nor dead-lettered (a drain left it waiting) is pending."""
        return {
            "host": HOST,
            "events": self.events,
            "attempts": self.first_attempts + self.retries,
            "first_attempts": self.first_attempts,
            "retries": self.retries,
            "stop_reasons": dict(self.stop_reasons),
            "pending": self.events - sum(self.stop_reasons.values()),
            "drained": self.drained,
            "transport_errors": dict(self.transport_errors),
            "redis_round_trips": round_trips,
            "store_errors": self.store_errors,
            "budget_disagreements": self.budget_disagreements,
            "elapsed_ms": elapsed_ms,
            # format 3 (docs/replica.md): zeros unless the class has health (replica_health fills them)
            "holds": {r.value: 0 for r in HoldReason}, "held": 0, "probe_calls": 0, "wake_calls": 0,
        }


class Replica:
    def __init__(self, args: argparse.Namespace, policy: AsyncRetryPolicy, storm: Policy, max_attempts: int,
                 client: httpx.AsyncClient, metrics: DispatcherMetrics | None = None) -> None:
        self.args = args
        self.policy = policy
        self.storm = storm
        self.max_attempts = max_attempts
        self.client = client
        self.metrics = metrics if metrics is not None else DispatcherMetrics()
        self.tally = Tally()
        self.prefix = f"{HOST}-{os.getpid()}"
        self._next = 0
        # set on the first SIGTERM/SIGINT: no event admitted, no attempt started after it
        self.draining = asyncio.Event()

    def _take(self, deadline_at_ms: int | None) -> int | None:
        """The index of the next event to start, or None (all started, the
        deadline passed, or draining)."""
        if self._next >= self.args.events or self.draining.is_set():
            return None
        if deadline_at_ms is not None and self.policy.clock.now_ms() >= deadline_at_ms:
            return None
        i = self._next
        self._next += 1
        self.tally.events += 1
        return i

    def _stopped(self, reason: StopReason) -> None:
        self.tally.stop_reasons[reason.value] += 1
        self.metrics.stopped(reason)

    async def run(self) -> None:
        start = self.policy.clock.now_ms()
        deadline_at = None if self.args.deadline_ms is None else start + self.args.deadline_ms

        async def worker() -> None:
            while (i := self._take(deadline_at)) is not None:
                reason = await self.deliver(f"{self.prefix}-{i}")
                if reason is not None:
                    self._stopped(reason)

        await asyncio.gather(*(worker() for _ in range(self.args.concurrency)))

    def _count_attempt(self, n: int) -> None:
        if n == 1:
            self.tally.first_attempts += 1
        else:
            self.tally.retries += 1
        self.metrics.attempt_started(n)

    async def _wait(self, delay_ms: int) -> bool:
        """Sleep until a retry's time; False when a drain started meanwhile."""
        try:
            await asyncio.wait_for(self.draining.wait(), delay_ms / 1000)
        except TimeoutError:
            return True
        return False

    async def send(self, event_id: str, n: int, target: str, body: bytes, first_at_ms: int,
                   window_end_ms: int) -> AttemptOutcome | StopReason | None:
        """Attempt ``n`` of an event, or why it was not made: None when a
        drain started (the event stays pending), ``retry_window_elapsed`` when
        the window closed before the request's first byte (nothing sent,
        not counted as an attempt). An attempt abandoned at the drain's
        deadline (cancelled) is counted as made."""
        if self.draining.is_set():
            return None
        clock = self.policy.clock
        headers = {"content-type": "application/json", "X-Event-Id": event_id, "X-Attempt": str(n),
                   "X-First-Attempted-At-Ms": str(first_at_ms)}
        try:
            with send_before(clock.now_ms, window_end_ms):
                outcome = await metered_attempt(self.metrics, self.client, target, content=body, policy=self.policy,
                                                now_ms=clock.now_ms(), headers=headers,
                                                deadline_ms=self.args.attempt_deadline_ms)
        except WindowElapsed:
            return StopReason.RETRY_WINDOW_ELAPSED
        except asyncio.CancelledError:
            self._count_attempt(n)
            raise
        self._count_attempt(n)
        if isinstance(outcome, TransportError):
            self.tally.transport_errors[outcome.kind] = self.tally.transport_errors.get(outcome.kind, 0) + 1
            if outcome.kind == TransportKind.DESTINATION_REFUSED:
                self.tally.destinations_refused += 1
        return outcome

    async def decide(self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome) -> Decision:
        """The policy's step; a decision that cannot be made stops the event
        ``budget_unavailable`` (fail closed, never lost)."""
        before = self.policy.budget_disagreements
        try:
            decision = await self.policy.step(policy, state, outcome)
        except Exception as e:
            log.error("%s: no decision (%s); stopping it budget_unavailable", state.event_id, redact(repr(e)))
            return Stop(StopReason.BUDGET_UNAVAILABLE)
        finally:
            if self.policy.budget_disagreements != before:
                self.metrics.budget_disagreements.inc(self.policy.budget_disagreements - before)
        return decision

    async def deliver(self, event_id: str) -> StopReason | None:
        """One event, attempt after attempt, until the policy stops it (a
        StopReason) or a drain leaves it pending (None)."""
        endpoint_id = self.args.endpoint_id
        first_at_ms = self.policy.clock.now_ms()
        window_end_ms = first_at_ms + self.storm.window_ms
        n, refreshed = 1, False
        while True:
            body = json.dumps({"event_id": event_id, "class": EVENT_CLASS, "attempt": n}).encode()
            sent = await self.send(event_id, n, self.args.target, body, first_at_ms, window_end_ms)
            if sent is None or isinstance(sent, StopReason):
                return sent
            state = DeliveryState(event_id, endpoint_id, n, self.max_attempts, first_at_ms, refreshed)
            decision = await self.decide(self.storm, state, sent)
            if isinstance(decision, Stop):
                return decision.reason
            assert isinstance(decision, Retry)
            refreshed = refreshed or decision.refresh_credentials
            if not await self._wait(decision.delay_ms):
                return None
            n += 1


EARLY_SIGNALS: list[str] = []  # SIGTERM/SIGINT received before the run started (main installs the catcher)


@contextlib.contextmanager
def signals_caught() -> Iterator[None]:
    """From the start of ``main`` until :func:`run_draining` takes over, a
    SIGTERM or SIGINT is remembered (the run then drains at once) instead of
    killing the process mid-setup; the previous handlers are back afterwards
    (``main`` may run inside another program, such as a test)."""
    def remember(signum: int, _frame: object) -> None:
        EARLY_SIGNALS.append(signal.Signals(signum).name)

    previous: dict[signal.Signals, Any] = {}
    try:
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, remember)
    except ValueError:  # not the main thread: signals are not ours to handle
        pass
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        EARLY_SIGNALS.clear()


async def run_draining(replica: Replica, drain_ms: int) -> None:
    """Run ``replica`` to its end, or, from the first SIGTERM/SIGINT, drain
    (docs/replica.md): no new event or attempt, attempts in progress get
    ``drain_ms`` to finish and be settled, then whatever still runs is
    abandoned (its event pending). A second signal is ignored."""
    loop = asyncio.get_running_loop()

    def on_signal(signame: str) -> None:
        if not replica.draining.is_set():
            log.warning("%s: draining (in-progress attempts get up to %d ms; no new attempt starts)", signame, drain_ms)
            replica.draining.set()

    if EARLY_SIGNALS:  # a signal during the setup: drain at once (nothing admitted)
        on_signal(EARLY_SIGNALS[0])
    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, on_signal, sig.name)
            installed.append(sig)
        except (NotImplementedError, RuntimeError):  # not the main thread / no signals here
            pass
    run = asyncio.ensure_future(replica.run())
    signalled = asyncio.ensure_future(replica.draining.wait())
    try:
        await asyncio.wait([run, signalled], return_when=asyncio.FIRST_COMPLETED)
        if replica.draining.is_set():  # signalled before the run ended (both may be done by now)
            replica.tally.drained = True
            done, _ = await asyncio.wait([run], timeout=drain_ms / 1000)
            if not done:
                run.cancel()
                await asyncio.gather(run, return_exceptions=True)
                return
        await run  # re-raises what the run raised
    finally:
        signalled.cancel()
        # a signal after the run ended, while the summary is written, is ignored too (never the default kill)
        for sig in installed:
            loop.remove_signal_handler(sig)
            signal.signal(sig, signal.SIG_IGN)
