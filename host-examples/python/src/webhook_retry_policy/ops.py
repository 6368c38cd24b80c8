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
from .errors import PolicyError, PolicyTrap
from .instance import current
from .types import (
    Admission,
    Applied,
    AttemptOutcome,
    Backoff,
    Budget,
    BudgetCounts,
    CallApplied,
    Decision,
    DeliveryState,
    Finished,
    Health,
    HealthDocument,
    HealthOutcome,
    HeldBuckets,
    HeldHealth,
    OutcomeClass,
    Paced,
    Pacer,
    Policy,
    PolicyDocument,
    Release,
    Resumption,
    Retry,
    Schedule,
    Settlement,
    Step,
    Stop,
    StoreCall,
    StoreReply,
    StoreRequest,
)

if TYPE_CHECKING:
    import logging

    from .compiled import CompiledPolicy

_LOG_EVERY_S = 10.0
COMPILED_CACHE = 1024
"""policies a step keeps compiled (by value; the oldest is dropped past it)"""
ADMIT_DOCUMENTS = 64
"""documents ``admit`` keeps their classes' compiled policies for (by identity)"""
_U64_MAX = 2**64 - 1


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
        self._compiled: dict[Policy, CompiledPolicy] = {}
        self._by_id: dict[int, tuple[Policy, CompiledPolicy]] = {}
        self._admit_docs: dict[int, tuple[PolicyDocument, dict[str, CompiledPolicy] | None]] = {}

    @staticmethod
    def artifact_info() -> ArtifactInfo:
        """The artifact this process's calls run on now (docs/artifact.md)."""
        return current_artifact().info

    def abi_version(self) -> int:
        return cast(int, current().run("abi-version"))

    def plan(self, backoff: Backoff, window_ms: int, hard_cap: int) -> Schedule:
        return cast(Schedule, current().run("plan", backoff, window_ms, hard_cap))

    def delay(self, backoff: Backoff, event_id: str, retry_index: int) -> int:
        """Jittered delay (ms) of retry ``retry_index`` (0-based, <= 99)."""
        return cast(int, current().run("delay", backoff, event_id, retry_index))

    def classify_status(self, status: int) -> OutcomeClass:
        return cast(OutcomeClass, current().run("classify-status", status))

    def classify_error(self, error_kind: str) -> OutcomeClass:
        return cast(OutcomeClass, current().run("classify-error", error_kind))

    def budget_allows(self, budget: Budget, now_ms: int, counts: BudgetCounts) -> bool:
        return cast(bool, current().run("budget-allows", budget, now_ms, counts))

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
        """The schedule a new event is admitted under (persist it with the event).

        Through the compiled handle (``admit-compiled``): the class's policy
        is compiled once (the step's cache, :meth:`compiled`) and the
        component copies the schedule and hash derived then, instead of
        lowering the whole document each event. The admission is 0.2's
        ``admit``'s; what that call refuses (an unknown class, a class whose
        policy does not compile, an argument of the wrong type) goes to it,
        so the error is exactly the one it always was."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        classes = self._admit_classes(document)
        cp = classes.get(event_class) if classes is not None and event_class.__class__ is str else None
        if cp is None or now.__class__ is not int or not 0 <= now <= _U64_MAX:
            return cast(Admission, current().run("admit", document, event_class, now))
        return cp.admit(event_class, document.version, now)

    def _admit_classes(self, document: PolicyDocument) -> dict[str, CompiledPolicy] | None:
        """Each class's compiled policy by name (the first of a name), or
        None if a class does not compile; kept per document (by identity:
        a ``PolicyDocument`` is frozen) for the last ``ADMIT_DOCUMENTS``."""
        hit = self._admit_docs.get(id(document))
        if hit is not None and hit[0] is document:
            return hit[1]
        classes = self._compile_classes(document) if document.__class__ is PolicyDocument else None
        if len(self._admit_docs) >= ADMIT_DOCUMENTS:
            self._admit_docs.clear()
        self._admit_docs[id(document)] = (document, classes)  # holds the document: its id is not reused meanwhile
        return classes

    def evaluate(self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int) -> Step:
        """Gates 1-5 and the one store request this attempt needs."""
        return cast(Step, current().run("evaluate", policy, state, outcome, now_ms))

    def settle(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int, reply: StoreReply
    ) -> Settlement:
        """The decision once the store answered (its verdict stands)."""
        return cast(Settlement, current().run("settle", policy, state, outcome, now_ms, reply))

    def resume(self, policy: Policy, state: DeliveryState, now_ms: int | None = None) -> Resumption:
        """An event reloaded from storage: ``Due()`` or a ``Stop``."""
        now = self.clock.now_ms() if now_ms is None else now_ms
        return cast(Resumption, current().run("resume", policy, state, now))

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

    def decide_with(
        self, policy: Policy, state: DeliveryState, outcome: AttemptOutcome, now_ms: int,
        budget_counts: BudgetCounts | None,
    ) -> Decision:
        """The format-1 pure decision (counts None = store unreadable). Records nothing."""
        return cast(Decision, current().run("decide-with", policy, state, outcome, now_ms, budget_counts))

    # ---- 0.3: format 3 (docs/health.md); compiled policies are compiled.py ----

    def load_health_document(self, json_text: str) -> HealthDocument:
        """Parse and validate a format-3 document (format 2 with optional ``health`` sections, <= 1 MiB)."""
        return cast(HealthDocument, current().run("load-health-document", json_text))

    def apply_call(self, call: StoreCall, now_ms: int, held: HeldHealth) -> CallApplied:
        """An in-memory store's answer to ``call`` on what it holds for the call's key (the Redis script's rule)."""
        return cast(CallApplied, current().run("apply-call", call, now_ms, held))

    def pace(self, release: Release, pacer: Pacer, now_ms: int) -> Paced:
        """Release pacing alone: ``Send()`` or ``Wait(until_ms)``, and the pacer to keep."""
        return cast(Paced, current().run("pace", release, pacer, now_ms))

    def normal_per_s(self, budget: Budget, now_ms: int, current_count: int, previous_count: int) -> float:
        """A replica's admission rate to an endpoint from its two newest buckets of admissions."""
        return cast(float, current().run("normal-per-s", budget, now_ms, current_count, previous_count))

    def health_outcome_of(self, outcome: AttemptOutcome) -> HealthOutcome:
        """The health class of an outcome (success, failure or none)."""
        return cast(HealthOutcome, current().run("health-outcome-of", outcome))

    def pause_until(self, health: Health, outcome: AttemptOutcome, now_ms: int) -> int:
        """When the pause an outcome asks for ends (0: none)."""
        return cast(int, current().run("pause-until", health, outcome, now_ms))

    @staticmethod
    def class_policy(document: PolicyDocument, event_class: str) -> Policy:
        """The policy of ``event_class`` in ``document`` (``unknown_event_class`` if absent)."""
        for ec in document.classes:
            if ec.name == event_class:
                return ec.policy
        names = ", ".join(ec.name for ec in document.classes)
        raise PolicyError("unknown_event_class", "class", f"no event class `{event_class}` (defined: {names})")

    def compiled(self, policy: Policy) -> CompiledPolicy:
        """The step's compiled form of ``policy``: compiled once per policy
        value (and per thread's instance, lazily), kept for the last
        ``COMPILED_CACHE`` policies. A dropped one's handles are discarded
        once no step holds it (its finalizer); an artifact swap compiles anew
        on the new instance."""
        hit = self._by_id.get(id(policy))  # the same object again: no hashing of the value
        if hit is not None and hit[0] is policy:
            return hit[1]
        from .compiled import CompiledPolicy

        try:
            cp = self._compiled.get(policy)
        except TypeError:  # unhashable, so not a WIT value: compiling refuses it (invalid_input)
            return CompiledPolicy(policy)
        if cp is None:
            if len(self._compiled) >= COMPILED_CACHE:
                self._compiled.pop(next(iter(self._compiled)), None)
            cp = self._compiled[policy] = CompiledPolicy(policy)
        if len(self._by_id) >= COMPILED_CACHE:
            self._by_id.clear()
        self._by_id[id(policy)] = (policy, cp)  # holds the policy: its id is not reused meanwhile
        return cp

    def _compile_classes(self, document: PolicyDocument) -> dict[str, CompiledPolicy] | None:
        classes: dict[str, CompiledPolicy] = {}
        try:
            for ec in document.classes:
                classes.setdefault(ec.name, self.compiled(ec.policy))
        except PolicyError:
            return None
        return classes

    def _finished(self, finished: Finished, state: DeliveryState) -> Decision:
        """A format-2 step's verdict as its decision (a hold needs a ``health`` section)."""
        v = finished.verdict
        if v.__class__ is not Retry and v.__class__ is not Stop:
            raise PolicyTrap(f"`finish` held a format-2 step: {v!r}")
        if finished.budget_disagreement:
            self._disagreed(state)
        return v

    def _settled(self, settlement: Settlement, state: DeliveryState) -> Decision:
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
