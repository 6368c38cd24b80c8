"""Typed values of the WIT package `webhook:retry-policy@0.1.0` (types).

Frozen dataclasses and ``str`` enums, one per WIT type; field names are
the WIT names in snake_case with their units (``*_ms``). Constructing one
checks only types and WIT integer widths (``invalid_input``); whether the
values make sense (``base_ms >= 1``, ``ratio <= 1`` ...) is decided by the
component when the value is used, so every host reports the same code.

Two conversions exist because a WIT type is narrower than the contract:
an unknown jitter name cannot be an enum case, so it is refused here as
``invalid_backoff`` (field ``backoff.jitter``); an HTTP status above
65535 cannot be a ``u16``, so it is refused here as ``invalid_status``
(field ``outcome.status``), both exactly as the contract's codec does.
Error field paths follow the component's: ``backoff.base_ms``,
``budget.ratio``, ``hard_cap``, ``attempt``, ``outcome.status``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Optional, Union

from . import _checks as c
from .errors import ErrorCode, PolicyError


class Jitter(str, Enum):
    NONE = "none"
    FULL = "full"
    EQUAL = "equal"


class LimitedBy(str, Enum):
    WINDOW = "window"
    HARD_CAP = "hard_cap"


class OutcomeClass(str, Enum):
    SUCCESS = "success"
    RETRYABLE = "retryable"
    TERMINAL = "terminal"


class StopReason(str, Enum):
    DELIVERED = "delivered"
    TERMINAL_RESPONSE = "terminal_response"
    MAX_ATTEMPTS_EXHAUSTED = "max_attempts_exhausted"
    RETRY_WINDOW_ELAPSED = "retry_window_elapsed"
    RETRY_BUDGET_EXHAUSTED = "retry_budget_exhausted"
    BUDGET_UNAVAILABLE = "budget_unavailable"


def _set(obj: object, name: str, value: object) -> None:
    object.__setattr__(obj, name, value)


@dataclass(frozen=True, slots=True)
class Backoff:
    """Ceiling of retry ``i`` = ``min(cap_ms, base_ms * factor^i)``."""

    base_ms: int
    factor: float
    cap_ms: int
    jitter: Jitter = Jitter.FULL

    def __post_init__(self) -> None:
        c.uint("backoff.base_ms", self.base_ms)
        _set(self, "factor", c.number("backoff.factor", self.factor))
        c.uint("backoff.cap_ms", self.cap_ms)
        if isinstance(self.jitter, str) and not isinstance(self.jitter, Jitter):
            try:
                _set(self, "jitter", Jitter(self.jitter))
            except ValueError:
                raise PolicyError(
                    ErrorCode.INVALID_BACKOFF,
                    "backoff.jitter",
                    f"unknown jitter `{self.jitter}` (expected none, full or equal)",
                ) from None
        c.instance("backoff.jitter", self.jitter, Jitter, "a Jitter")


@dataclass(frozen=True, slots=True)
class Budget:
    """Retries may not exceed ``ratio`` of all attempts per endpoint."""

    ratio: float = 0.1
    window_ms: int = 60_000
    min_sample: int = 50
    sliding: bool = True

    def __post_init__(self) -> None:
        _set(self, "ratio", c.number("budget.ratio", self.ratio))
        c.uint("budget.window_ms", self.window_ms)
        c.uint("budget.min_sample", self.min_sample)
        c.boolean("budget.sliding", self.sliding)


@dataclass(frozen=True, slots=True)
class Policy:
    """The policy of one event class."""

    backoff: Backoff
    window_ms: int
    hard_cap: int = 16
    budget: Budget = Budget()

    def __post_init__(self) -> None:
        c.instance("backoff", self.backoff, Backoff, "a Backoff")
        c.uint("window_ms", self.window_ms)
        c.uint("hard_cap", self.hard_cap, c.U32_MAX)
        c.instance("budget", self.budget, Budget, "a Budget")


@dataclass(frozen=True, slots=True)
class Schedule:
    """A schedule derived from the window (output of ``plan``/``admit``)."""

    max_attempts: int
    expected_span_ms: int
    offsets_ms: tuple[int, ...]
    worst_case_span_ms: int
    limited_by: LimitedBy


@dataclass(frozen=True, slots=True)
class BucketCounts:
    total: int = 0
    retries: int = 0

    def __post_init__(self) -> None:
        c.uint("total", self.total)
        c.uint("retries", self.retries)


@dataclass(frozen=True, slots=True)
class BudgetCounts:
    """The current budget bucket and the one before it."""

    current: BucketCounts = BucketCounts()
    previous: BucketCounts = BucketCounts()

    def __post_init__(self) -> None:
        c.instance("budget_counts.current", self.current, BucketCounts, "BucketCounts")
        c.instance("budget_counts.previous", self.previous, BucketCounts, "BucketCounts")


@dataclass(frozen=True, slots=True)
class DeliveryState:
    """What the host persisted about an event."""

    event_id: str
    endpoint_id: str
    attempt: int
    max_attempts: int
    first_attempted_at_ms: int
    credentials_refreshed: bool = False

    def __post_init__(self) -> None:
        c.text("event_id", self.event_id)
        c.text("endpoint_id", self.endpoint_id)
        c.uint("attempt", self.attempt, c.U32_MAX)
        c.uint("max_attempts", self.max_attempts, c.U32_MAX)
        c.uint("first_attempted_at_ms", self.first_attempted_at_ms)
        c.boolean("credentials_refreshed", self.credentials_refreshed)


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A response arrived; ``retry_after_ms`` is the Retry-After header in ms."""

    status: int
    retry_after_ms: Optional[int] = None

    def __post_init__(self) -> None:
        c.uint("outcome.status", self.status)
        if self.status > c.U16_MAX:
            raise PolicyError(ErrorCode.INVALID_STATUS, "outcome.status", f"HTTP status {self.status} is outside 100..=599")
        if self.retry_after_ms is not None:
            c.uint("outcome.retry_after_ms", self.retry_after_ms)


@dataclass(frozen=True, slots=True)
class TransportError:
    """No response; ``kind`` such as ``connect_timeout``."""

    kind: str

    def __post_init__(self) -> None:
        c.text("outcome.error_kind", self.kind)


AttemptOutcome = Union[HttpResponse, TransportError]


@dataclass(frozen=True, slots=True)
class DeadLetter:
    """What an operator reads about an event that was not delivered."""

    event_id: str
    endpoint_id: str
    attempts: int
    elapsed_ms: int
    stop_reason: StopReason


@dataclass(frozen=True, slots=True)
class Retry:
    """Try again after ``delay_ms`` (refresh signing material first if asked)."""

    delay_ms: int
    refresh_credentials: bool = False


@dataclass(frozen=True, slots=True)
class Stop:
    """End the chain; ``dead_letter`` is present for every reason but delivered."""

    reason: StopReason
    disable_endpoint: bool = False
    dead_letter: Optional[DeadLetter] = None


Decision = Union[Retry, Stop]


@dataclass(frozen=True, slots=True)
class EventClass:
    name: str
    policy: Policy

    def __post_init__(self) -> None:
        c.text("name", self.name)
        c.instance("policy", self.policy, Policy, "a Policy")


@dataclass(frozen=True, slots=True)
class PolicyDocument:
    """A validated policy document (from ``load_document``): named classes."""

    version: str
    classes: tuple[EventClass, ...]

    def __post_init__(self) -> None:
        c.text("version", self.version)
        _set(self, "classes", tuple(self.classes))
        for i, ec in enumerate(self.classes):
            c.instance(f"classes[{i}]", ec, EventClass, "an EventClass")

    def class_names(self) -> tuple[str, ...]:
        return tuple(ec.name for ec in self.classes)

    def policy(self, name: str) -> Policy:
        """The policy of class ``name`` (a lookup; ``admit`` refuses unknown
        classes itself with ``unknown_event_class``)."""
        for ec in self.classes:
            if ec.name == name:
                return ec.policy
        raise PolicyError(
            ErrorCode.UNKNOWN_EVENT_CLASS, "class", f"no event class `{name}` (defined: {', '.join(self.class_names())})"
        )


@dataclass(frozen=True, slots=True)
class Admission:
    """The schedule an event is admitted under: persist it with the event."""

    event_class: str
    policy_version: str
    policy_hash: str
    first_attempted_at_ms: int
    deadline_ms: int
    schedule: Schedule
