"""webhook-retry-policy: the webhook retry policy component for Python.

One WebAssembly component makes every decision; this package runs its main
core module (``retry_policy.core.wasm``) through wasmtime's core API with
generated canonical-ABI glue (``_generated/``), one raw call per operation:

* :class:`RetryPolicy` — every WIT export, plus ``decide`` (evaluate ->
  at most one budget-store call -> settle) on a sync :class:`BudgetStore`.
* :class:`AsyncRetryPolicy` — the same step with an async store (Redis).
"""

from typing import TYPE_CHECKING, Any

from .clock import Clock, ManualClock, SystemClock
from .errors import ErrorCode, PolicyError, PolicyTrap
from .policy import RetryPolicy
from .stores import AsyncBudgetStore, AsyncInMemoryBudgetStore, BudgetStore, InMemoryBudgetStore, UnavailableBudgetStore
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
    Due,
    EventClass,
    HttpResponse,
    Jitter,
    LimitedBy,
    OutcomeClass,
    Policy,
    PolicyDocument,
    Reservation,
    Resumption,
    Retry,
    Schedule,
    Settlement,
    Step,
    Stop,
    StopReason,
    StoreOp,
    StoreReply,
    StoreRequest,
    TransportError,
    Unavailable,
)


def store_key(endpoint_id: str, window_ms: int) -> str:
    """The Redis key the fleet files ``endpoint_id``'s counts of bucket width
    ``window_ms`` under (the component's ``store-key``)."""
    return RetryPolicy().store_key(StoreRequest(StoreOp.RECORD, endpoint_id, window_ms, 0))


if TYPE_CHECKING:
    from .async_policy import AsyncRetryPolicy


def __getattr__(name: str) -> Any:
    """``AsyncRetryPolicy`` is imported on first use (asyncio costs ~20 ms at cold start)."""
    if name == "AsyncRetryPolicy":
        from .async_policy import AsyncRetryPolicy

        return AsyncRetryPolicy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Admission", "AsyncBudgetStore", "AsyncInMemoryBudgetStore", "AsyncRetryPolicy", "AttemptOutcome", "Backoff",
    "BucketCounts", "Budget", "BudgetCounts", "BudgetStore", "Clock", "DeadLetter", "Decision", "DeliveryState",
    "Due", "ErrorCode", "EventClass", "HttpResponse", "InMemoryBudgetStore", "Jitter", "LimitedBy", "ManualClock",
    "OutcomeClass", "Policy", "PolicyDocument", "PolicyError", "PolicyTrap", "Reservation", "Resumption", "Retry",
    "RetryPolicy", "Schedule", "Settlement", "Step", "Stop", "StopReason", "StoreOp", "StoreReply", "StoreRequest",
    "SystemClock", "TransportError", "Unavailable", "UnavailableBudgetStore", "store_key",
]
