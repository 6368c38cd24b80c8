"""The send loop of a class with ``health`` (docs/health-dispatch.md
section 2), on one event's journal record (format 2's shape): at each due
instant ``gate`` (probe, hold or stop), a budget-held event's wake
``reserve`` and ``settle-wake``, the attempt, then ``advance`` (and
``finish`` after its store call). Every rule is the component's; this
module moves values, keeps the per-endpoint table (``health_table``) and
writes each hold before waiting on it (section 3).

The host (the replica) supplies the clock, the waits (cut short by a
drain), the attempt itself, the journal write and the dead-letter write
(:class:`LoopHost`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..compiled import CompiledPolicy
from ..ops import PolicyOps
from ..policy import UNAVAILABLE
from ..redact import redact
from ..stores import AsyncCallStore
from ..types import (
    AttemptOutcome,
    BudgetHold,
    CallOp,
    CallReply,
    DeadLetter,
    Decided,
    DeliveryState,
    GateAnswer,
    GateEvent,
    HealthView,
    HeldStop,
    Hold,
    HoldReason,
    HttpResponse,
    Pacer,
    Probe,
    Retry,
    SendProbe,
    Stop,
    StopReason,
    StoreCall,
    StoreReply,
    Wake,
    WakeHold,
)
from .health_table import EndpointHealth, EndpointTable
from .metrics import DispatcherMetrics

log = logging.getLogger("webhook_retry_policy.health")
NO_VIEW = HealthView(0, 0, 0, 0, 0)


class LoopHost(Protocol):
    def now_ms(self) -> int: ...
    async def wait_until(self, at_ms: int) -> bool: ...  # False: a drain started
    async def send_attempt(self, rec: dict[str, Any], n: int) -> AttemptOutcome | StopReason | None: ...
    def persist(self, rec: dict[str, Any]) -> None: ...
    def finish(self, rec: dict[str, Any], stop: Stop) -> StopReason: ...


@dataclass
class HealthCounts:
    """The replica summary's format-3 fields (docs/replica.md)."""

    holds: dict[str, int] = field(default_factory=lambda: {r.value: 0 for r in HoldReason})
    held: int = 0  # events held now
    probe_calls: int = 0
    wake_calls: int = 0
    budget_disagreements: int = 0  # store replies whose verdict differs from the policy's (finish's flag)


class HealthLoop:
    def __init__(self, host: LoopHost, store: AsyncCallStore, metrics: DispatcherMetrics, *,
                 table: EndpointTable | None = None, store_timeout_s: float = 1.0) -> None:
        self.host, self.store, self.metrics = host, store, metrics
        self.table = table if table is not None else EndpointTable()
        self.store_timeout_s = store_timeout_s
        self.counts = HealthCounts()
        self._owed: set[asyncio.Future[Any]] = set()  # decided calls not waited on
        self.ops = PolicyOps()

    # ---- store calls ----

    async def _call(self, call: StoreCall, entry: EndpointHealth) -> CallReply | None:
        """One store call; its view kept; None when it failed or timed out."""
        try:
            reply = await asyncio.wait_for(self.store.store_call(call, self.host.now_ms()), self.store_timeout_s)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.debug("store call %s failed: %s", call.op.value, redact(repr(e)))
            return None
        entry.keep_view(reply.view)
        return reply

    @staticmethod
    def _reply(reply: CallReply | None) -> StoreReply:
        return reply.reservation if reply is not None and reply.reservation is not None else UNAVAILABLE

    def _owe(self, call: StoreCall, entry: EndpointHealth) -> None:
        task = asyncio.ensure_future(self._call(call, entry))
        self._owed.add(task)
        task.add_done_callback(self._owed.discard)

    async def settle(self) -> None:
        """Wait for the decided calls still owed (the end of a run)."""
        if self._owed:
            await asyncio.gather(*self._owed, return_exceptions=True)

    # ---- the gate ----

    def _paced(self, c: CompiledPolicy, entry: EndpointHealth, now: int) -> None:
        """``pacer.normal_per_s`` from this replica's admissions (rolled to ``now`` first)."""
        b = c.policy.budget
        entry.roll(now, b.window_ms)
        rate = self.ops.normal_per_s(b, now, entry.current, entry.previous)
        p = entry.pacer
        entry.pacer = Pacer(p.tokens, p.updated_ms, rate)

    def _gate_once(self, c: CompiledPolicy, ev: GateEvent, entry: EndpointHealth, now: int) -> GateAnswer:
        """``gate`` on the endpoint's kept view and pacer (its pacer kept); no probe call."""
        self._paced(c, entry, now)
        answer = c.gate(ev, entry.view, entry.pacer, now)
        entry.pacer = answer.pacer
        return answer

    async def _gate(self, c: CompiledPolicy, rec: dict[str, Any], ev: GateEvent, entry: EndpointHealth,
                    now: int) -> GateAnswer:
        given = entry.view
        answer = self._gate_once(c, ev, entry, now)
        if not isinstance(answer.verdict, Probe):
            return answer
        v = given if given is not None else NO_VIEW
        if entry.probe_in_flight or now < entry.probe_busy_until_ms:  # one probe call per endpoint and window
            self._paced(c, entry, now)
            answer = c.after_probe(ev, False, v, entry.pacer, now)
        else:
            entry.probe_in_flight = True
            try:
                reply = await self._call(c.call_for(CallOp.PROBE, ev.endpoint_id, now), entry)
            finally:
                entry.probe_in_flight = False
            self.counts.probe_calls += 1
            granted = reply is not None and reply.granted is True
            self.metrics.probe_calls.labels("error" if reply is None else str(granted).lower()).inc()
            if reply is not None and reply.view is not None:
                v = reply.view
                busy = c.after_probe(ev, False, v, entry.pacer, now).verdict
                entry.probe_busy_until_ms = busy.until_ms if isinstance(busy, Hold) else 0
            self._paced(c, entry, now)
            answer = c.after_probe(ev, granted, v, entry.pacer, now)
        entry.pacer = answer.pacer
        if isinstance(answer.verdict, Probe):  # cannot happen: read as refused, capped by the deadline
            circuit = c.health.circuit if c.health is not None else None
            until = min(now + (circuit.probe_interval_ms if circuit else 1000), rec["deadline_ms"])
            return GateAnswer(Hold(until, HoldReason.PROBE_REFUSED), answer.pacer)
        return answer

    # ---- holds ----

    def _hold(self, rec: dict[str, Any], until_ms: int, reason: HoldReason, now: int) -> None:
        """Written before the event is acknowledged as held (section 3)."""
        rec.update(status="held", held_until_ms=until_ms, hold_reason=reason.value, held_since_ms=now,
                   next_attempt_at_ms=until_ms)
        self.host.persist(dict(rec))
        self.counts.holds[reason.value] += 1
        self.counts.held += 1
        self.metrics.holds.labels(reason.value).inc()
        self.metrics.held_events.inc()

    def _leave_hold(self, rec: dict[str, Any], now: int) -> None:
        if rec["status"] != "held":
            return
        rec["held_ms"] += max(0, now - rec["held_since_ms"])
        rec.update(status="pending", held_until_ms=0, hold_reason=None, held_since_ms=0)
        self.hold_ended()

    def hold_ended(self) -> None:
        """One event fewer held now."""
        self.counts.held -= 1
        self.metrics.held_events.dec()

    def count_resumed_hold(self) -> None:
        """A held record read back from the journal is held now."""
        self.counts.held += 1
        self.metrics.held_events.inc()

    # ---- the loop ----

    async def run(self, rec: dict[str, Any], c: CompiledPolicy) -> StopReason | None:
        """Deliver ``rec`` (due now) until it stops (a StopReason) or a drain
        leaves it pending or held on disk (None)."""
        while True:
            r = await self.step(rec, c)
            if not isinstance(r, int) or isinstance(r, StopReason):
                return r
            if not await self.host.wait_until(max(r, self.host.now_ms() + 1)):
                return None

    async def step(self, rec: dict[str, Any], c: CompiledPolicy) -> StopReason | int | None:
        """One due instant of ``rec``: a StopReason (finished), the instant it
        is due next (an int: its record, held or pending, is written), or
        None (a drain stopped the attempt: nothing changed)."""
        host = self.host
        now = host.now_ms()
        leaving = rec["status"] == "held"
        self._leave_hold(rec, now)
        held = leaving or (rec["replay_of"] is not None and rec["attempts"] == 0)
        entry = self.table.get(rec["endpoint_id"])
        ev = GateEvent(rec["event_id"], rec["endpoint_id"], rec["attempts"], rec["first_attempted_at_ms"],
                       held, rec["held_ms"])
        v = (await self._gate(c, rec, ev, entry, now)).verdict
        if isinstance(v, HeldStop):
            rec["held_ms"] = v.held_ms
            return host.finish(rec, Stop(StopReason.RETRY_WINDOW_ELAPSED, dead_letter=v.dead_letter))
        if isinstance(v, Hold):
            self._hold(rec, v.until_ms, v.reason, now)
            return int(v.until_ms)
        if rec["needs_reserve"]:  # a budget-held event makes its wake call first
            reply = await self._call(c.call_for(CallOp.RESERVE, rec["endpoint_id"], now), entry)
            self.counts.wake_calls += 1
            self.metrics.wake_calls.inc()
            wake = Wake(rec["event_id"], rec["endpoint_id"], rec["attempts"], rec["first_attempted_at_ms"],
                        rec["wake_refusals"])
            w = c.settle_wake(wake, self._reply(reply), now)
            if isinstance(w, WakeHold):
                rec["wake_refusals"] = w.refusals
                self._hold(rec, w.until_ms, HoldReason.BUDGET_REFUSED, now)
                return int(w.until_ms)
            if isinstance(w, DeadLetter):
                return host.finish(rec, Stop(StopReason.BUDGET_UNAVAILABLE, dead_letter=w))
            rec.update(needs_reserve=False, wake_refusals=0)
            # The reserve's own reply gates the send once more (step 3, draft 3 item 2): a
            # pause or an opening it shows holds the event, keeping the reservation (no second
            # reserve at the next wake). Not for the granted probe; ``held`` false: the
            # release token was spent at step 2.
            if not isinstance(v, SendProbe):
                again = self._gate_once(c, GateEvent(ev.event_id, ev.endpoint_id, ev.attempts, ev.first_attempted_at_ms,
                                                      False, ev.held_ms), entry, now).verdict
                if isinstance(again, Hold):
                    self._hold(rec, again.until_ms, again.reason, now)
                    return int(again.until_ms)
        return await self._attempt(rec, c, entry, isinstance(v, SendProbe))

    async def _attempt(self, rec: dict[str, Any], c: CompiledPolicy, entry: EndpointHealth,
                       probe: bool) -> StopReason | int | None:
        """Send attempt ``attempts + 1`` and act on ``advance``."""
        host = self.host
        n = rec["attempts"] + 1
        sent = await host.send_attempt(rec, n)
        if sent is None:
            return None
        if isinstance(sent, StopReason):  # the window closed before the first byte: nothing sent
            elapsed_ms = max(0, host.now_ms() - rec["first_attempted_at_ms"])
            return host.finish(rec, Stop(sent, dead_letter=DeadLetter(rec["event_id"], rec["endpoint_id"], n - 1,
                                                                        elapsed_ms, sent)))
        rec["attempts"] = n
        rec["last_outcome"] = str(sent.status) if isinstance(sent, HttpResponse) else sent.kind
        now = host.now_ms()
        state = DeliveryState(rec["event_id"], rec["endpoint_id"], n, rec["max_attempts"],
                              rec["first_attempted_at_ms"], rec["credentials_refreshed"])
        advanced = c.advance(state, sent, now, probe)
        if isinstance(advanced, Decided):
            if advanced.call is not None:
                self._owe(advanced.call, entry)
            verdict: Any = advanced.decision
        else:
            reply = await self._call(advanced, entry)
            finished = c.finish(state, sent, now, self._reply(reply))
            if finished.budget_disagreement:
                self.counts.budget_disagreements += 1
                self.metrics.budget_disagreements.inc()
            verdict = finished.verdict
        if isinstance(verdict, Stop):
            return host.finish(rec, verdict)
        rec["credentials_refreshed"] = rec["credentials_refreshed"] or verdict.refresh_credentials
        if isinstance(verdict, BudgetHold):
            rec.update(needs_reserve=True, wake_refusals=0)
            self._hold(rec, verdict.until_ms, HoldReason.BUDGET_REFUSED, now)
            return int(verdict.until_ms)
        assert isinstance(verdict, Retry)
        rec["next_attempt_at_ms"] = now + verdict.delay_ms
        host.persist(dict(rec))
        return int(rec["next_attempt_at_ms"])
