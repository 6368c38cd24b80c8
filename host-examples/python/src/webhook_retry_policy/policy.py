"""The typed synchronous API over the component (WIT interface ``policy``).

Every method is one component call: arguments are type-checked host-side
(``invalid_input``), everything else (ranges, the decision itself) is the
component's. ``decide`` is the WIT ``decide``: the component reads this
policy's clock, reads the counter only when every other gate allows a
retry, and records the retry it schedules. ``decide_with`` is the pure
variant (now and counts passed in); ``fast=True`` on the constructor makes
``decide_with`` use the one-call core fast path (``fastpath.py``), which
gives the same decisions (the conformance vectors run through both).
"""

from __future__ import annotations

import json
import tomllib
from typing import Any, Optional

from . import _checks as c
from . import wit
from ._args import check_decide_args, check_decide_with_args
from .clock import Clock, SystemClock
from .counters import BudgetCounter, InMemoryBudgetCounter, budget_bucket
from .errors import ErrorCode, PolicyError
from .instance import ComponentHost
from .types import (
    Admission,
    AttemptOutcome,
    Backoff,
    Budget,
    BudgetCounts,
    Decision,
    DeliveryState,
    OutcomeClass,
    Policy,
    PolicyDocument,
    Schedule,
)


class RetryPolicy:
    """The retry policy component, with a clock and a budget counter.

    Defaults: the system clock and a process-local in-memory counter.
    Compiles the component once per process; instances are per thread.
    """

    def __init__(
        self,
        clock: Optional[Clock] = None,
        counter: Optional[BudgetCounter] = None,
        *,
        wasm_path: Optional[str] = None,
        fast: bool = False,
    ) -> None:
        self.clock: Clock = clock or SystemClock()
        self.counter: BudgetCounter = counter if counter is not None else InMemoryBudgetCounter()
        self._host = ComponentHost(self.clock, self.counter, wasm_path)
        self._fast = None
        if fast:
            from .fastpath import FastDecider

            self._fast = FastDecider(wasm_path)

    # --- plain functions ----------------------------------------------------

    def abi_version(self) -> int:
        return self._host.call("abi-version", lift=lambda v: v)

    def plan(self, backoff: Backoff, window_ms: int, hard_cap: int) -> Schedule:
        c.instance("backoff", backoff, Backoff, "a Backoff")
        c.uint("window_ms", window_ms)
        c.uint("hard_cap", hard_cap, c.U32_MAX)
        return wit.schedule(self._host.call("plan", wit.backoff(backoff), window_ms, hard_cap))

    def delay(self, backoff: Backoff, event_id: str, retry_index: int) -> int:
        """Jittered delay (ms) of retry ``retry_index`` (0-based) for an event."""
        c.instance("backoff", backoff, Backoff, "a Backoff")
        c.text("event_id", event_id)
        c.uint("retry_index", retry_index, c.U32_MAX)
        return self._host.call("delay", wit.backoff(backoff), event_id, retry_index)

    def classify_status(self, status: int) -> OutcomeClass:
        c.uint("status", status)
        if status > c.U16_MAX:  # a WIT u16; the contract's codec reports it so
            raise PolicyError(ErrorCode.INVALID_STATUS, "status", f"HTTP status {status} is outside 100..=599")
        return wit.outcome_class(self._host.call("classify-status", status))

    def classify_error(self, error_kind: str) -> OutcomeClass:
        c.text("error_kind", error_kind)
        return wit.outcome_class(self._host.call("classify-error", error_kind, lift=lambda v: v))

    def budget_allows(self, budget: Budget, now_ms: int, counts: BudgetCounts) -> bool:
        c.instance("budget", budget, Budget, "a Budget")
        c.uint("now_ms", now_ms)
        c.instance("counts", counts, BudgetCounts, "BudgetCounts")
        return self._host.call("budget-allows", wit.budget(budget), now_ms, wit.counts(counts))

    # --- policy documents ---------------------------------------------------

    def load_document(self, json_text: str) -> PolicyDocument:
        """Parse and validate a JSON policy document (in the component)."""
        c.text("json", json_text)
        return wit.document_from(self._host.call("load-document", json_text))

    def load_document_toml(self, toml_text: str) -> PolicyDocument:
        """Read TOML with ``tomllib`` and hand it to ``load_document`` as JSON
        text: the component alone decides what the document means."""
        c.text("toml", toml_text)
        try:
            value = tomllib.loads(toml_text)
        except tomllib.TOMLDecodeError as e:
            raise PolicyError(ErrorCode.INVALID_DOCUMENT, "", f"not valid TOML: {e}") from None
        try:
            json_text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise PolicyError(ErrorCode.INVALID_DOCUMENT, "", f"TOML value has no JSON equivalent: {e}") from None
        return self.load_document(json_text)

    def load_document_file(self, path: str) -> PolicyDocument:
        """A ``.toml`` file through ``load_document_toml``, anything else as JSON."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return self.load_document_toml(text) if path.endswith(".toml") else self.load_document(text)

    def admit(self, document: PolicyDocument, event_class: str, now_ms: Optional[int] = None) -> Admission:
        """The schedule a new event of ``event_class`` is admitted under (at
        ``now_ms``, default the clock). Persist it with the event."""
        c.instance("document", document, PolicyDocument, "a PolicyDocument")
        c.text("class", event_class)
        now = self.clock.now_ms() if now_ms is None else now_ms
        c.uint("now_ms", now)
        return wit.admission(self._host.call("admit", wit.document(document), event_class, now))

    # --- decisions ----------------------------------------------------------

    def decide(self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome) -> Decision:
        """The WIT ``decide``: reads the clock and (only if needed) the
        counter, and records (reserves) the retry it schedules."""
        check_decide_args(policy, state, outcome)
        return self._host.call(
            "decide", wit.policy(policy), wit.state(state), wit.outcome(outcome), lift=_lift_decision
        )

    def decide_with(
        self,
        policy: Policy,
        state: DeliveryState,
        outcome: AttemptOutcome,
        now_ms: int,
        budget_counts: Optional[BudgetCounts],
    ) -> Decision:
        """The pure decision; ``budget_counts=None`` means the store could not
        be read (the decision is then ``budget_unavailable``)."""
        if self._fast is not None:
            return self._fast.decide_with(policy, state, outcome, now_ms, budget_counts)
        check_decide_with_args(policy, state, outcome, now_ms, budget_counts)
        counts = None if budget_counts is None else wit.counts(budget_counts)
        return self._host.call(
            "decide-with",
            wit.policy(policy),
            wit.state(state),
            wit.outcome(outcome),
            now_ms,
            counts,
            lift=_lift_decision,
        )

    def record_first_attempt(self, endpoint_id: str, budget: Budget, now_ms: Optional[int] = None) -> None:
        """Count a first attempt in the counter (the WIT leaves first attempts
        to the host; ``decide`` records the retries it schedules)."""
        c.text("endpoint_id", endpoint_id)
        c.instance("budget", budget, Budget, "a Budget")
        now = self.clock.now_ms() if now_ms is None else now_ms
        self.counter.record_attempt(endpoint_id, budget.window_ms, budget_bucket(budget.window_ms, now), False)


def _lift_decision(v: Any) -> Decision:
    return wit.decision(wit.unwrap(v))
