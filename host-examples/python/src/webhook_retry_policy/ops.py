"""Every operation of the WIT interface ``policy``, each ONE raw call into
this thread's instance (``instance.py``) through the generated ABI.

Arguments are type-checked host-side (``invalid_input``); every other
judgement (ranges, gates, buckets, what a store reply means) is the
component's. :class:`PolicyOps` is the base of :class:`RetryPolicy` and
:class:`AsyncRetryPolicy`; it keeps the clock and counts
``budget_disagreement`` (a store whose rule drifted from the policy's).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, cast

from .artifact import ArtifactInfo, current_artifact
from .clock import Clock, SystemClock
from .errors import PolicyError
from .instance import current
from .types import (
    Admission,
    Applied,
    AttemptOutcome,
    Backoff,
    Budget,
    Decision,
    DeliveryState,
    HealthDocument,
    HeldBuckets,
    OutcomeClass,
    Policy,
    PolicyDocument,
    Schedule,
    Settlement,
    Step,
    StoreReply,
    StoreRequest,
    Unavailable,
)

if TYPE_CHECKING:
    import logging

_LOG_EVERY_S = 10.0
UNAVAILABLE = Unavailable()


def logger() -> logging.Logger:
    """The package's logger (``logging`` is imported on first use: cold start)."""
    import logging

    return logging.getLogger("webhook_retry_policy")


class PolicyOps:
    """The component's pure operations, with a clock for the defaults."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.clock: Clock = clock or SystemClock()
        self.budget_disagreements = 0
        self._logged_at = 0.0

    @staticmethod
    def artifact_info() -> ArtifactInfo:
        """The artifact this process's calls run on now (docs/artifact.md)."""
        return current_artifact().info

    def abi_version(self) -> int:
        return cast(int, current().run("abi-version"))

    def plan(self, backoff: Backoff, window_ms: int, hard_cap: int) -> Schedule:
        return cast(Schedule, current().run("plan", backoff, window_ms, hard_cap))

    def classify_status(self, status: int) -> OutcomeClass:
        return cast(OutcomeClass, current().run("classify-status", status))

    def classify_error(self, error_kind: str) -> OutcomeClass:
        return cast(OutcomeClass, current().run("classify-error", error_kind))

    def load_document(self, json_text: str) -> PolicyDocument:
        """Parse and validate a JSON policy document (in the component, <= 1 MiB)."""
        return cast(PolicyDocument, current().run("load-document", json_text))

    def load_document_toml(self, toml_text: str) -> PolicyDocument:
        """TOML read by ``tomllib``, handed to ``load_document`` as JSON text."""
        import json
        import tomllib

        try:
            value = tomllib.loads(toml_text)
            json_text = json.dumps(value, allow_nan=False)
        except tomllib.TOMLDecodeError as e:
            raise PolicyError("invalid_document", "", f"not valid TOML: {e}") from None
        except (TypeError, ValueError) as e:
            raise PolicyError("invalid_document", "", f"TOML value has no JSON equivalent: {e}") from None
        return self.load_document(json_text)

    def load_document_file(self, path: str) -> PolicyDocument:
        """A ``.toml`` file through ``load_document_toml``, anything else as JSON."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return self.load_document_toml(text) if path.endswith(".toml") else self.load_document(text)

    def admit(self, document: PolicyDocument, event_class: str, now_ms: int | None = None) -> Admission:
        """The schedule a new event is admitted under (persist it with the event)."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        return cast(Admission, current().run("admit", document, event_class, now))

    def evaluate(self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int) -> Step:
        """Gates 1-5 and the one store request this attempt needs."""
        return cast(Step, current().run("evaluate", policy, state, outcome, now_ms))

    def settle(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int, reply: StoreReply
    ) -> Settlement:
        """The decision once the store answered (its verdict stands)."""
        return cast(Settlement, current().run("settle", policy, state, outcome, now_ms, reply))

    def parse_retry_after(self, header: str, now_ms: int | None = None) -> int | None:
        """A Retry-After header value in ms from now, or None (not usable)."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        return cast(int | None, current().run("parse-retry-after", header, now))

    def store_key(self, request: StoreRequest) -> str:
        """The key a shared store files this request's endpoint and width under."""
        return cast(str, current().run("store-key", request))

    def store_apply(self, request: StoreRequest, budget: Budget, now_ms: int, held: HeldBuckets) -> Applied:
        """An in-memory store's answer to ``request`` and what it holds afterwards."""
        return cast(Applied, current().run("store-apply", request, budget, now_ms, held))

    def load_health_document(self, json_text: str) -> HealthDocument:
        """Parse and validate a format-3 document (format 2 with optional ``health`` sections, <= 1 MiB)."""
        return cast(HealthDocument, current().run("load-health-document", json_text))

    @staticmethod
    def class_policy(document: PolicyDocument, event_class: str) -> Policy:
        """The policy of ``event_class`` in ``document`` (``unknown_event_class`` if absent)."""
        for ec in document.classes:
            if ec.name == event_class:
                return ec.policy
        names = ", ".join(ec.name for ec in document.classes)
        raise PolicyError("unknown_event_class", "class", f"no event class `{event_class}` (defined: {names})")

    def _settled(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int, step: Step, reply: StoreReply
    ) -> Decision:
        """A step's decision once its store call answered ``reply`` (``Unavailable()`` also when ``step``
        named no call and no decision, which a conforming artifact never answers: fails closed)."""
        if step.decision is not None:
            return step.decision  # a decided first attempt: recorded (or not), decided anyway; a decided retry
        settlement = self.settle(policy, state, outcome, now_ms, reply)
        if settlement.budget_disagreement:
            self._disagreed(state)
        return settlement.decision

    def _disagreed(self, state: DeliveryState) -> None:
        self.budget_disagreements += 1
        now = time.monotonic()
        if now - self._logged_at >= _LOG_EVERY_S:
            self._logged_at = now
            logger().warning("budget store and policy disagree on endpoint %r (%d so far); the store's verdict stands",
                             state.endpoint_id, self.budget_disagreements)
