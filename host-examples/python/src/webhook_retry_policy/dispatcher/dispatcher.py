"""An asyncio + httpx webhook dispatcher driven by the policy component.

* ``submit`` admits an event under its class's policy (the component's
  ``admit``) and persists it with the admitted schedule and first-attempt
  instant.
* ``run_until_idle`` sends due events (httpx POST) and asks
  :class:`AsyncRetryPolicy` for the decision (the step on the compiled policy:
  advance -> at most ONE budget-store call, ``record_reserve`` for a first
  attempt that needs a retry -> finish); it reschedules, delivers, or dead-letters (record +
  reason persisted, ``webhook_deadletter_total{stop_reason}`` incremented,
  endpoint disabled on 410). Store/policy disagreements are counted in
  ``webhook_budget_disagreements_total``; ``webhook_policy_info`` names the
  artifact and document every round runs on (a swap shows on the next round). Endpoints that were disabled get
  no more requests: their pending events are held for an operator.
* Every event carries the class policy it was admitted under, its target
  and its body (journal format 1 records them): each attempt is decided
  under that policy, never under a document loaded since. Events reloaded
  from a file store (its own, or a replica's journal) go through the
  component's ``resume`` before their next attempt (a stop is
  dead-lettered without sending).
* ``drain()`` (SIGTERM/SIGINT in the demo): no event is taken and no
  attempt starts after it; attempts in progress finish and are journaled.
  One cancelled at the drain's deadline is journaled as made
  (``read_timeout``): a resume never sends that attempt number again.

Time is injectable (``clock`` and ``sleep``): with a :class:`ManualClock`
and its ``sleep`` a 24-hour window passes in milliseconds, while the HTTP
requests stay real.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx

from ..artifact import current_artifact
from ..async_policy import AsyncRetryPolicy
from ..clock import Clock
from ..reload import DocumentHolder
from ..signing import SignatureError
from ..transport_kinds import TransportKind
from ..types import (
    AttemptOutcome,
    DeadLetter,
    DeliveryState,
    HealthDocument,
    HttpResponse,
    PolicyDocument,
    Retry,
    Stop,
    StopReason,
    TransportError,
)
from .credentials import EndpointSecrets
from .dispatcher_health import DispatcherHealth
from .journal_event import event_body
from .metered import MeteredStore, metered_attempt
from .metrics import DispatcherMetrics, described
from .replay import ReplayFilter
from .send_window import WindowElapsed, send_before
from .store import DEAD, DELIVERED, HELD, PENDING, EventRecord, InMemoryEventStore
from .transport import DEFAULT_ATTEMPT_DEADLINE_MS, make_client

Sleep = Callable[[float], Awaitable[None]]


class Draining(RuntimeError):
    """``submit`` after ``drain()``: the dispatcher takes no more events."""


@dataclass(frozen=True)
class DispatcherConfig:
    """How attempts are sent: ``attempt_deadline_ms`` bounds one attempt
    end to end; targets on loopback/private/link-local addresses are
    refused unless ``allow_private_targets`` (local development, tests)."""

    attempt_deadline_ms: int = DEFAULT_ATTEMPT_DEADLINE_MS
    allow_private_targets: bool = False
    concurrency: int = 16


class Dispatcher:
    def __init__(
        self,
        document: PolicyDocument | DocumentHolder,
        endpoints: dict[str, str],
        policy: AsyncRetryPolicy,
        *,
        client: httpx.AsyncClient | None = None,
        store: InMemoryEventStore | None = None,
        metrics: DispatcherMetrics | None = None,
        sleep: Sleep | None = None,
        concurrency: int | None = None,
        refresh_credentials: Callable[[str], Awaitable[None]] | None = None,
        config: DispatcherConfig | None = None,
        secrets: EndpointSecrets | None = None,
        health_document: HealthDocument | None = None,
    ) -> None:
        """``client``: by default :func:`make_client` from ``config`` (the
        destination check, no redirects, head cap); a client passed in is
        used as it is. ``secrets``: sign every delivery (Standard Webhooks)
        with the endpoint's secrets, reloaded before a retry the policy
        marks ``refresh_credentials``. The policy's budget store is wrapped
        in :class:`MeteredStore` (once) so its calls show in the metrics.
        ``health_document`` (``load-health-document``'s, format 3): its
        classes with a ``health`` section are admitted with it and sent
        through the gate (``dispatcher_health``); the store must answer
        whole store calls (``store_call``: the package's in-memory and
        Redis stores do)."""
        # a holder reloads documents without a restart; a plain document is held too
        self.documents = document if isinstance(document, DocumentHolder) else DocumentHolder(policy, document)
        self.endpoints = endpoints
        self.policy = policy
        self.clock: Clock = policy.clock
        self.config = config or DispatcherConfig()
        self.client = client if client is not None else make_client(
            concurrency=self.config.concurrency, attempt_deadline_ms=self.config.attempt_deadline_ms,
            allow_private_targets=self.config.allow_private_targets)
        self.store = store if store is not None else InMemoryEventStore()
        self.metrics = metrics or DispatcherMetrics()
        if not isinstance(policy.store, MeteredStore):  # store latency, errors and refusals (docs/metrics.md)
            policy.store = MeteredStore(policy.store, self.metrics)
        self.sleep: Sleep = sleep or asyncio.sleep
        self.concurrency = concurrency if concurrency is not None else self.config.concurrency
        self.refresh_credentials = refresh_credentials
        self.secrets = secrets
        self._artifact_sha256 = ""
        self._reloads_seen, self._refusals_seen = self.documents.reloads, self.documents.refusals
        self.draining = asyncio.Event()  # set by drain(): no new event, no new attempt
        self._pinned_health = health_document
        self.health: DispatcherHealth | None = None
        self._follow_health()
        if self.health is not None:
            for r in self.store.events.values():
                if r.hold_reason is not None and r.status == PENDING:
                    self.health.loop.count_resumed_hold()
        self.policy_info()

    def drain(self) -> None:
        """Take no more events and start no more attempts; ``run_until``
        returns once the attempts in progress are settled and journaled."""
        self.draining.set()

    def _follow_health(self) -> None:
        """The format-3 document: ``health_document``, else the holder's last
        JSON reload (``load-health-document``); its sections gate new events."""
        doc = self._pinned_health if self._pinned_health is not None else self.documents.health
        if doc is None:
            return
        if self.health is None:
            self.health = DispatcherHealth(doc, self.clock, self.policy.store, self.metrics, self._send,
                                           store_timeout_s=self.policy.store_timeout_s or 1.0)
        self.health.document = doc

    def policy_info(self) -> None:
        """Point ``webhook_policy_info`` at the artifact and document running
        now; log the artifact when it is new to this dispatcher (a load, then
        each swap it sees)."""
        info = current_artifact().info
        version = self.documents.current.version
        if info.sha256 != self._artifact_sha256:
            log = logging.getLogger("webhook_retry_policy.artifact")
            if self._artifact_sha256:
                log.info("policy artifact swapped sha256=%s -> %s %s", self._artifact_sha256, info.sha256,
                         described(info, version))
            else:
                log.info("policy artifact loaded sha256=%s %s", info.sha256, described(info, version))
            self._artifact_sha256 = info.sha256
        self.metrics.set_policy_info(info.sha256, info.abi, version)
        self._follow_health()
        # documents reloaded or refused since the last round: webhook_policy_reloads_total{result}
        reloads, refusals = self.documents.reloads, self.documents.refusals
        if reloads > self._reloads_seen:
            self.metrics.policy_reloads.labels("applied").inc(reloads - self._reloads_seen)
        if refusals > self._refusals_seen:
            self.metrics.policy_reloads.labels("refused").inc(refusals - self._refusals_seen)
        self._reloads_seen, self._refusals_seen = reloads, refusals

    @property
    def document(self) -> PolicyDocument:
        """The current document (new events are admitted under it)."""
        return self.documents.current

    async def submit(self, event_id: str, endpoint_id: str, event_class: str, payload: dict[str, Any]) -> EventRecord:
        """Admit and persist a new event with its target, body and class
        policy; its first attempt is due now. :class:`Draining` after ``drain()``."""
        if self.draining.is_set():
            raise Draining(f"event {event_id} refused: the dispatcher is draining")
        if endpoint_id not in self.endpoints:
            raise KeyError(f"unknown endpoint {endpoint_id}")
        self._follow_health()  # a document reloaded since the last round
        health = self.health.health_of(event_class) if self.health is not None else None
        if self.health is not None and health is not None:  # admit-compiled: the hash covers the section
            policy = next(c.policy for c in self.health.document.classes if c.name == event_class)
            admission = self.health.compiled(policy, health).admit(event_class, self.health.document.version,
                                                                   self.clock.now_ms())
        else:
            admission = self.documents.admit(event_class)
            policy = self.documents.policy_for(admission)
        body = event_body(event_id, event_class, payload)
        record = EventRecord(
            event_id=event_id,
            endpoint_id=endpoint_id,
            event_class=event_class,
            payload=payload,
            admission=admission,
            next_attempt_at_ms=admission.first_attempted_at_ms,
            target=self.endpoints[endpoint_id],
            policy=policy,
            body_b64=base64.b64encode(body).decode("ascii"),
            health=health,
        )
        await self.store.add(record)
        if self.health is not None and health is not None:
            self.health.admitted(record)
        return record

    async def replay(self, f: ReplayFilter | None = None) -> dict[str, Any]:
        """Replay dead letters as new events (docs/health-dispatch.md section 4;
        ``dispatcher_replay``): ``{"replayed", "already_replayed", "skipped_no_class", "ids"}``."""
        from .dispatcher_replay import replay

        return await replay(self, f or ReplayFilter())

    async def run_until_idle(self, max_rounds: int = 1_000_000) -> None:
        """Send every due event, sleep until the next one is due, repeat
        until no event is pending."""
        await self.run_until(None, max_rounds)

    async def run_until(self, deadline_ms: int | None, max_rounds: int = 1_000_000) -> None:
        """As ``run_until_idle``, but stop once the clock reaches
        ``deadline_ms`` (None: only when idle), or at once when draining
        (the attempts of the round in progress are settled first)."""
        for _ in range(max_rounds):
            if self.draining.is_set():
                return
            self.policy_info()
            now = self.clock.now_ms()
            due = await self.store.due(now, self.concurrency)
            if due:
                await asyncio.gather(*(self._attempt(r) for r in due))
                continue
            next_at = await self.store.next_due_at_ms()
            if deadline_ms is not None and (next_at is None or next_at > deadline_ms):
                if deadline_ms > now:
                    await self._pause((deadline_ms - now) / 1000)
                return
            if next_at is None:
                return
            await self._pause(max(0, next_at - now) / 1000)
        raise RuntimeError("dispatcher did not become idle")

    async def _pause(self, seconds: float) -> None:
        """``sleep``, cut short by ``drain()``."""
        if self.draining.is_set():
            return
        sleeping = asyncio.ensure_future(self.sleep(seconds))
        drained = asyncio.ensure_future(self.draining.wait())
        try:
            await asyncio.wait([sleeping, drained], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (sleeping, drained):
                task.cancel()

    async def _attempt(self, record: EventRecord) -> None:
        if record.endpoint_id in self.store.disabled_endpoints:
            record.status = HELD
            await self.store.update(record)
            return
        # the policy it was admitted under (journaled with it; an older record: the holder's memory)
        policy = record.policy if record.policy is not None else self.documents.policy_for(record.admission)
        if record.event_id in self.store.reloaded:
            self.store.reloaded.discard(record.event_id)
            resumed = self.policy.resume(policy, self._state(record, record.attempt))
            if isinstance(resumed, Stop):
                if record.hold_reason is not None:  # held_ms counts the span up to now
                    record.held_ms += max(0, self.clock.now_ms() - record.held_since_ms)
                    record.hold_reason, record.held_until_ms, record.held_since_ms = None, 0, 0
                    if self.health is not None:
                        self.health.loop.hold_ended()
                await self._stop(record, resumed)
                await self.store.update(record)
                return
        if record.health is not None and self.health is not None:  # format 3: the send loop's step
            await self._attempt_health(record)
            return
        n = record.attempt + 1
        sent = await self._send(record, n)
        if isinstance(sent, StopReason):  # the window closed before the request's first byte: nothing sent
            elapsed_ms = max(0, self.clock.now_ms() - record.admission.first_attempted_at_ms)
            await self._stop(record, Stop(sent, dead_letter=DeadLetter(record.event_id, record.endpoint_id,
                                                                       record.attempt, elapsed_ms, sent)))
            await self.store.update(record)
            return
        outcome = sent
        before = self.policy.budget_disagreements
        decision = await self.policy.step(policy, self._state(record, n), outcome)
        if self.policy.budget_disagreements != before:
            self.metrics.budget_disagreements.inc(self.policy.budget_disagreements - before)
        record.attempt = n
        record.last_outcome = str(outcome.status) if isinstance(outcome, HttpResponse) else outcome.kind
        record.history.append({"attempt": n, "at_ms": self.clock.now_ms(), "outcome": repr(outcome),
                               "decision": repr(decision)})
        if isinstance(decision, Retry):
            if decision.refresh_credentials and self.secrets is not None:
                await self.secrets.refresh(record.endpoint_id)
            if decision.refresh_credentials and self.refresh_credentials is not None:
                await self.refresh_credentials(record.endpoint_id)
            record.credentials_refreshed = record.credentials_refreshed or decision.refresh_credentials
            record.next_attempt_at_ms = self.clock.now_ms() + decision.delay_ms
        else:
            await self._stop(record, decision)
        await self.store.update(record)

    async def _attempt_health(self, record: EventRecord) -> None:
        """One step of the format-3 send loop; the record stored right after
        (a hold is journaled before the round goes on)."""
        assert self.health is not None
        stop = await self.health.step(record)
        if stop is not None:
            await self._stop(record, stop)
        await self.store.update(record)

    async def _send(self, record: EventRecord, n: int) -> AttemptOutcome | StopReason:
        """Attempt ``n`` of ``record`` (signed when secrets are set), or
        ``retry_window_elapsed`` when the window closed before its first byte
        (nothing sent, not an attempt). One abandoned at a drain's deadline is
        journaled as made and re-raised."""
        policy = record.policy if record.policy is not None else self.documents.policy_for(record.admission)
        body = (base64.b64decode(record.body_b64) if record.body_b64 is not None
                else event_body(record.event_id, record.event_class, record.payload))
        target = record.target or self.endpoints[record.endpoint_id]  # as admitted
        headers = {"content-type": "application/json", "webhook-id": record.event_id, "webhook-attempt": str(n)}
        unsigned: AttemptOutcome | None = None
        if self.secrets is not None:
            try:
                headers |= await self.secrets.headers(record.endpoint_id, record.event_id, body,
                                                      self.clock.now_ms() // 1000)
            except SignatureError as e:  # never sent unsigned: the terminal kind, as in every dispatcher
                logging.getLogger(__name__).warning("event %s: not sent: %s", record.event_id, e)
                unsigned = TransportError(TransportKind.CREDENTIALS_UNAVAILABLE.value)
        first_at_ms = record.admission.first_attempted_at_ms
        try:  # the window's edge, re-checked right before the request's first byte (send_window)
            with send_before(self.clock.now_ms, first_at_ms + policy.window_ms):
                outcome = unsigned if unsigned is not None else await metered_attempt(
                    self.metrics, self.client, target, content=body, policy=self.policy,
                    now_ms=self.clock.now_ms(), deadline_ms=self.config.attempt_deadline_ms, headers=headers,
                )
        except WindowElapsed:  # nothing sent, not an attempt
            return StopReason.RETRY_WINDOW_ELAPSED
        except asyncio.CancelledError:  # abandoned at a drain's deadline: it may have reached the endpoint
            self.metrics.attempt_started(n)
            record.attempt, record.last_outcome = n, TransportKind.READ_TIMEOUT.value
            record.next_attempt_at_ms = self.clock.now_ms()
            await self.store.update(record)  # made: a resume sends attempt n + 1, never n again
            raise
        self.metrics.attempt_started(n)
        return outcome

    @staticmethod
    def _state(record: EventRecord, attempt: int) -> DeliveryState:
        return DeliveryState(record.event_id, record.endpoint_id, attempt, record.admission.schedule.max_attempts,
                             record.admission.first_attempted_at_ms, record.credentials_refreshed)

    async def _stop(self, record: EventRecord, stop: Stop) -> None:
        record.stop_reason, record.finished_at_ms = stop.reason, self.clock.now_ms()
        if stop.reason is StopReason.DELIVERED:
            record.status = DELIVERED
            self.metrics.stopped(stop.reason)
            return
        record.status = DEAD
        record.dead_letter = stop.dead_letter
        self.metrics.stopped(stop.reason)
        if stop.disable_endpoint:
            record.disable_endpoint = True  # journaled with the dead letter (the caller updates the record)
            await self.store.disable_endpoint(record.endpoint_id)
