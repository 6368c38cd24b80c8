"""The dispatcher: a driver of the delivery engine (docs/engine.md). The
engine decides everything; :class:`Driver` only performs its actions, in
order, and feeds back what happened:

* ``journal`` lines are appended to the journal file (``--store``) and made
  durable, one ``fdatasync`` per batch, BEFORE any later ``send`` of the
  batch starts; ``journal_truncate`` cuts a torn tail; ``journal_compact``
  replaces the file (without ``--store`` the engine is opened with
  ``journal: false`` and emits none);
* ``send``: the HTTP POST (``transport.post``) as a task, never started at
  or after its ``start_before_ms`` (re-checked when the request's first
  byte is written: ``send_window``), else ``result {not_started}``;
* ``store_call``: ``EVALSHA`` of ``fleet/budget.lua`` through the Redis
  client, answered ``store {reply}`` or ``store {failed}``;
* ``delivered`` / ``dead_letter`` / ``count`` / ``gauge``: the summary's
  tally and the metrics registry (counters move only by these deltas);
  ``warn``: one stderr line; ``drained``: the run ends.

Inputs that arrive together (results, store answers, a tick, admissions)
go in ONE ``feed`` (one crossing). ``now_ms`` is the wall clock plus
``--clock-offset-ms``, never fed smaller than before. Admission
(``admissions.py``) keeps at most ``concurrency`` events open (admitted
or resumed, until they stop; retry waits included); a refused admission
counts nothing (``duplicate_event``: an id a resumed journal holds stays
counted as resumed).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Any

import httpx

from ..clock import SystemClock
from ..delivery_engine import DeliveryEngine, EngineError
from ..redact import redact
from ..signing import SignatureError
from ..transport_kinds import TransportKind
from .admissions import AdmissionSource
from .credentials import EndpointSecrets
from .journal_file import JournalError, JournalFile
from .metrics import DispatcherMetrics
from .send_window import WindowElapsed, send_before
from .tally import Tally
from .transport import DEFAULT_ATTEMPT_DEADLINE_MS, post

log = logging.getLogger("webhook_retry_policy.replica")


class Driver:
    def __init__(self, engine: DeliveryEngine, *, client: httpx.AsyncClient, metrics: DispatcherMetrics,
                 journal: JournalFile | None = None, redis: Any = None, concurrency: int = 8,
                 attempt_deadline_ms: int = DEFAULT_ATTEMPT_DEADLINE_MS,
                 now_ms: Callable[[], int] = SystemClock.now_ms,
                 advance: Callable[[int], None] | None = None, secrets: EndpointSecrets | None = None,
                 engine_max_open: bool = False) -> None:
        """``advance``: a simulated clock (the demo): while nothing is in flight,
        time jumps to the next instant due instead of being waited for.
        ``secrets``: sign every request (Standard Webhooks), the endpoint's
        secrets reloaded before a send that says ``refresh_credentials``; an
        endpoint without a usable secret gets nothing (``credentials_unavailable``).
        ``engine_max_open``: the engine was opened with ``max_open`` =
        ``concurrency`` (docs/engine.md section 1), so the admissions a batch's
        inputs may free ride in that batch's feed (one crossing, not two); those
        it refuses ``at_capacity`` are taken again later."""
        self.engine, self.client, self.metrics, self.journal, self.redis = engine, client, metrics, journal, redis
        self.concurrency, self.attempt_deadline_ms, self._clock = concurrency, attempt_deadline_ms, now_ms
        self._advance, self.secrets, self.engine_max_open = advance, secrets, engine_max_open
        self.dead_letters: list[dict[str, Any]] = []  # the first 100, for the operator
        self.tally = Tally()
        self.open: set[str] = set()  # this run's events not stopped yet (admitted, or resumed and seen)
        self.seen: set[str] = set()
        self.timeout_ms: int | None = None
        self.drained = False
        self.draining = False
        self._swap: Callable[[], DeliveryEngine] | None = None  # a new artifact's engine, opened once drained
        self._swap_ready = False
        self._last = 0
        self._inbox: list[dict[str, Any]] = []
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._lines: list[str] = []

    def now_ms(self) -> int:
        """The clock as fed: never smaller than a value fed before."""
        self._last = max(self._last, self._clock())
        return self._last

    def post(self, inp: dict[str, Any]) -> None:
        """An input for the next feed (from a task, a signal or the artifact watch; on the loop's thread)."""
        self._inbox.append(inp)
        self._wake.set()

    def drain(self) -> None:
        if not self.draining:
            self.draining = True
            self.tally.drained = True
            if self._swap is None:  # else the engine drains already (a swap), and its drained ends the run
                self.post({"op": "drain"})

    # ---- feeding ----

    def feed(self, inputs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Feed ``inputs`` at one instant (one crossing), act on every output; returns the refusals.
        A refused admission changed nothing in the engine and counts nothing here: ``at_capacity``
        (offered with results that did not free a place) silently; ``duplicate_event`` (an id the
        engine holds, e.g. resumed from the journal: counted as resumed, if open) logged."""
        now = self.now_ms()
        answer = self.engine.feed([{**i, "now_ms": now} for i in inputs])
        self.timeout_ms = answer.timeout_ms
        refused: set[int] = set()
        for e in answer.errors:
            refused.add(e["index"])
            inp = inputs[e["index"]]
            if inp.get("op") == "admit" and e["error"] == "at_capacity":
                continue
            log.warning("engine refused %s: %s: %s", inp.get("op"), e["error"], redact(e["message"]))
            if inp.get("op") == "admit" and e["error"] != "duplicate_event":
                raise EngineError(e["error"], e["message"])  # a class the document lacks, a full engine: the end
        for k, inp in enumerate(inputs):
            if inp.get("op") == "admit" and k not in refused:
                self._admitted(inp["event_id"])
        self.act(answer.outputs)
        return answer.errors

    def resume(self, data: bytes, *, copy: bool = False) -> None:
        """A journal's bytes (docs/engine.md section 10): the host's own
        (``copy`` false), or another one it continues (``copy`` true: its open
        events are journaled into the host's; a torn tail that is not UTF-8 is
        still a torn tail)."""
        if copy:
            text = data.decode("utf-8", errors="replace")
            answer = self.engine.feed([{"op": "resume", "now_ms": self.now_ms(), "journal": text, "copy": True}])
        else:
            answer = self.engine.resume(self.now_ms(), data)
        self.timeout_ms = answer.timeout_ms
        for e in answer.errors:
            raise JournalError(e["error"], e["message"])
        self.act(answer.outputs)

    def swap(self, open_engine: Callable[[], DeliveryEngine]) -> None:
        """A new artifact (docs/engine.md section 11): the engine drains (nothing
        new starts, what is in flight ends), its snapshot is resumed by the
        engine ``open_engine`` opens, and the run goes on there."""
        if not self.draining:
            self._swap = open_engine
            self.post({"op": "drain"})

    def _swap_now(self) -> None:
        assert self._swap is not None
        answer = self.engine.feed([{"op": "snapshot", "now_ms": self.now_ms()}])
        snapshot = next(o["journal"] for o in answer.outputs if o["action"] == "snapshot")
        old, self.engine = self.engine, self._swap()
        old.close()
        self._swap, self._swap_ready = None, False
        answer = self.engine.resume(self.now_ms(), snapshot.encode())
        self.timeout_ms = answer.timeout_ms
        self.act([o for o in answer.outputs if o["action"] not in ("journal", "journal_truncate", "resumed")])
        if self.draining:  # a signal came while the old engine drained for the swap
            self.post({"op": "drain"})

    def _admitted(self, event_id: str) -> None:
        """An admission the engine took: a new event of this run (even with an id this run saw
        delivered: the engine no longer held it)."""
        self.seen.add(event_id)
        self.open.add(event_id)
        self.tally.events += 1

    def _saw(self, event_id: str) -> None:
        if event_id not in self.seen:
            self._admitted(event_id)

    def _stopped(self, event_id: str, reason: str) -> None:
        self._saw(event_id)  # a resumed event the resume judged stopped at once
        self.open.discard(event_id)
        self.tally.stopped(reason)

    def act(self, outputs: list[dict[str, Any]]) -> None:
        for o in outputs:
            a = o["action"]
            if a == "journal":
                self._lines.append(o["line"])
            elif a == "send":
                self._flush()  # durable before the request starts
                self._saw(o["event_id"])
                self._spawn(self._send(o))
            elif a == "store_call":
                self._spawn(self._store(o))
            elif a == "count":
                self.metrics.count(o["name"], o["label"], o["delta"])
                self.tally.count(o["name"], o["label"], o["delta"])
            elif a == "gauge":
                self.metrics.gauge(o["name"], o["value"])
                self.tally.held = o["value"]
            elif a == "delivered":
                self._stopped(o["event_id"], "delivered")
            elif a == "dead_letter":
                if len(self.dead_letters) < 100:
                    self.dead_letters.append(o)
                self._stopped(o["dead_letter"]["event_id"], o["dead_letter"]["stop_reason"])
            elif a == "hold":
                self._saw(o["event_id"])
            elif a == "journal_compact":  # docs/journal.md "Compaction", decided by the engine
                self._flush()
                if self.journal is not None:
                    try:
                        self.journal.replace(o["journal"])
                    except JournalError as e:  # the old file stays whole: said, and the run goes on
                        log.error("%s", redact(str(e)))
            elif a == "journal_truncate":
                self._flush()
                if self.journal is not None:
                    self.journal.truncate(o["keep_bytes"])
                    log.warning("journal %s: cut a torn last record (kept %d bytes)", self.journal.path,
                                o["keep_bytes"])
            elif a == "warn":
                log.warning("engine: %s%s", f"{o['event_id']}: " if o.get("event_id") else "", redact(o["message"]))
            elif a == "drained":
                if self._swap is not None and not self.draining:
                    self._swap_ready = True
                else:
                    self.drained = True
            elif a == "resumed":
                for event_id in o["ids"]:
                    self._saw(event_id)
        self._flush()

    def _flush(self) -> None:
        lines, self._lines = self._lines, []
        if lines and self.journal is not None:
            try:
                self.journal.append(lines)
            except JournalError as e:  # disk full: said, and the run goes on (the file stays whole)
                log.error("%s", redact(str(e)))

    def _spawn(self, coro: Any) -> None:
        self._tasks.add(task := asyncio.ensure_future(coro))
        task.add_done_callback(self._tasks.discard)

    def _busy(self) -> bool:
        return any(not t.done() for t in self._tasks)

    # ---- I/O ----

    async def _send(self, o: dict[str, Any]) -> None:
        event_id, n = o["event_id"], o["attempt"]
        body = (base64.b64decode(o["body_b64"]) if o.get("body_b64") else
                json.dumps({"event_id": event_id, "attempt": n}).encode())
        headers = {"content-type": "application/json", "X-Event-Id": event_id, "X-Attempt": str(n),
                   "X-First-Attempted-At-Ms": str(o["first_attempted_at_ms"])}
        if self.secrets is not None:
            try:
                if o["refresh_credentials"]:
                    await self.secrets.refresh(o["endpoint_id"])
                headers |= await self.secrets.headers(o["endpoint_id"], event_id, body, self._clock() // 1000)
            except SignatureError:  # never sent unsigned: the contract's terminal kind
                self.post({"op": "result", "event_id": event_id, "attempt": n,
                           "error_kind": TransportKind.CREDENTIALS_UNAVAILABLE})
                return
        started = time.perf_counter()
        try:
            with send_before(self._clock, o["start_before_ms"]):
                self.metrics.in_flight.inc()
                try:
                    result = await post(self.client, o["target"], content=body, headers=headers,
                                        deadline_ms=self.attempt_deadline_ms)
                finally:
                    self.metrics.in_flight.dec()
        except WindowElapsed:
            self.post({"op": "result", "event_id": event_id, "attempt": n, "not_started": True})
            return
        except asyncio.CancelledError:  # abandoned at the drain deadline: made, its number never reused
            self.tally.sent(n)
            raise
        self.tally.sent(n)
        if result.get("error_kind") != TransportKind.DESTINATION_REFUSED:
            self.metrics.delivery_duration.observe(time.perf_counter() - started)
        self.post({"op": "result", "event_id": event_id, "attempt": n, **result})

    async def _store(self, o: dict[str, Any]) -> None:
        answer: dict[str, Any] = {"op": "store", "call_id": o["call_id"]}
        started = time.perf_counter()
        try:
            reply = await self.redis.eval_argv(o["key"], o["argv"])
            answer["reply"] = [int(x) for x in reply]
        except asyncio.CancelledError:
            raise
        except Exception as e:  # an error, a timeout, a reply that is not integers: failed (the engine fails closed)
            log.debug("store call %s failed: %s", o["call_id"], redact(repr(e)))
            answer.pop("reply", None)
            answer["failed"] = True
        self.metrics.budget_store_duration.observe(time.perf_counter() - started)
        self.post(answer)

    # ---- the run ----

    async def run(self, admissions: AdmissionSource, drain_ms: int) -> None:
        """Admit, act and feed until every event stopped (or stays pending: a
        drain), then return; a drain ends at ``drained`` or after ``drain_ms``,
        abandoning what still runs."""
        drain_deadline: float | None = None
        while True:
            now = self.now_ms()
            inputs, self._inbox = self._inbox, []
            self._wake.clear()
            if self.draining and drain_deadline is None:
                drain_deadline = time.monotonic() + drain_ms / 1000
            if self.timeout_ms is not None and now >= self.timeout_ms:
                inputs.append({"op": "tick"})
            if not self.draining and self._swap is None:
                # With the engine's max_open, every input may stop an event: offer a place for each.
                room = self.concurrency - len(self.open) + (len(inputs) if self.engine_max_open else 0)
                inputs += admissions.take(room, now)
            at_capacity: list[dict[str, Any]] = []
            if inputs:
                at_capacity = [inputs[e["index"]] for e in self.feed(inputs) if e["error"] == "at_capacity"]
                admissions.give_back(at_capacity)
            if self._swap_ready:
                self._swap_now()
                continue
            if self.drained:
                return
            if not self.draining and self._swap is None and not self._busy() and self.timeout_ms is None and not self._inbox \
                    and admissions.done(now):
                return
            if not self.draining and self._swap is None and len(self.open) < self.concurrency \
                    and admissions.take_now(now) and not at_capacity:
                continue  # a slot freed by this batch: admit at once
            wait: float | None = None
            if drain_deadline is not None:
                wait = drain_deadline - time.monotonic()
                if wait <= 0:
                    await self.abandon()
                    return
            else:
                # a timeout already due after this feed: max_in_flight is full, only a result frees it
                timer = None if self.timeout_ms is not None and self.timeout_ms <= self._last and self._busy() \
                    else self.timeout_ms
                due = [t for t in (timer, admissions.wake_at(now)) if t is not None]
                if due and self._advance is not None and not self._busy():
                    self._advance(min(due))
                    continue
                if due:
                    wait = max(0.0, (min(due) - self._clock()) / 1000)
            if not self._inbox:
                with suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), wait)

    async def abandon(self) -> None:
        """The drain deadline: whatever still runs is cancelled (its event stays pending)."""
        tasks = list(self._tasks)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
