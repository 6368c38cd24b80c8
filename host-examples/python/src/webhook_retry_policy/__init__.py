"""webhook-retry-policy: the webhook retry policy component for Python.

One WebAssembly component (``retry_policy.wasm``, shipped in this package)
makes every decision; this package is a thin typed host around it:

* :class:`RetryPolicy` — sync API over every WIT export (``decide`` calls
  the host clock and budget counter through the WIT imports).
* :class:`AsyncRetryPolicy` — for asyncio dispatchers with async stores:
  reads counts first, then calls the pure ``decide-with`` (never blocks).
* :class:`FastDecider` — ``decide-with`` in one core-wasm call (same
  decisions, a fraction of the cost).
"""

from .async_policy import AsyncRetryPolicy
from .clock import Clock, ManualClock, SystemClock
from .counters import (
    AsyncBudgetCounter,
    AsyncInMemoryBudgetCounter,
    BudgetCounter,
    InMemoryBudgetCounter,
    UnavailableBudgetCounter,
    budget_bucket,
)
from .errors import ErrorCode, PolicyError, PolicyTrap
from .fastpath import FastDecider
from .policy import RetryPolicy
from .types import (
    Admission,
    AttemptOutcome,
    Backoff,
    BucketCounts,
    Budget,
    BudgetCounts,
    DeadLetter,
    Decision,
    DeliveryState,
    EventClass,
    HttpResponse,
    Jitter,
    LimitedBy,
    OutcomeClass,
    Policy,
    PolicyDocument,
    Retry,
    Schedule,
    Stop,
    StopReason,
    TransportError,
)

__all__ = [
    "Admission", "AsyncBudgetCounter", "AsyncInMemoryBudgetCounter", "AsyncRetryPolicy", "AttemptOutcome",
    "Backoff", "BucketCounts", "Budget", "BudgetCounter", "BudgetCounts", "Clock", "DeadLetter", "Decision",
    "DeliveryState", "ErrorCode", "EventClass", "FastDecider", "HttpResponse", "InMemoryBudgetCounter", "Jitter",
    "LimitedBy", "ManualClock", "OutcomeClass", "Policy", "PolicyDocument", "PolicyError", "PolicyTrap", "Retry",
    "RetryPolicy", "Schedule", "Stop", "StopReason", "SystemClock", "TransportError", "UnavailableBudgetCounter",
    "budget_bucket",
]
