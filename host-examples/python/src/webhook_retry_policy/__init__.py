"""webhook-retry-policy: the webhook retry policy component for Python.

One WebAssembly component (the artifact, ``retry_policy.wasm``) makes every
decision. This package reads the component file at run time (the caller's
path or bytes, else ``RETRY_POLICY_ARTIFACT``, else the copy it ships),
checks it (pin, ABI, self-test), and runs its main core module through
wasmtime's core API with generated canonical-ABI glue (``_generated/``),
one raw call per operation:

* :class:`RetryPolicy` — the ABI 1.0 operations (plan, classification,
  Retry-After, documents, admission); ``step`` (evaluate -> at most one
  budget-store call -> settle) and ``decide`` (the same in ONE call: the
  component asks the clock and the store through the WIT imports).
* :class:`AsyncRetryPolicy` — ``step`` with an async store (Redis).
* :func:`load_artifact`, :func:`swap_artifact`, :func:`watch_artifact`,
  :func:`current_artifact` — the artifact (docs/artifact.md).
* :class:`DeliveryEngine` — the component's delivery engine (docs/engine.md),
  driven by JSON batches; its refusals are :class:`EngineError`.
* :mod:`webhook_retry_policy.rollout` — follow a policy published to the
  fleet's Redis (docs/rollout.md): a driver of the component's follower
  (``rollout-open`` / ``rollout-step``) doing the store calls, the load and
  the swap.
"""

from typing import TYPE_CHECKING, Any

from .artifact import Artifact, ArtifactInfo, current_artifact, load_artifact, swap_artifact
from .clock import Clock, ManualClock, SystemClock
from .errors import ArtifactError, ErrorCode, PolicyError, PolicyTrap
from .policy import RetryPolicy
from .stores import (
    AsyncBudgetStore,
    AsyncInMemoryBudgetStore,
    BudgetStore,
    InMemoryBudgetStore,
    UnavailableBudgetStore,
)
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
    Reservation,
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
    from .artifact_watch import ArtifactWatch, watch_artifact
    from .async_policy import AsyncRetryPolicy
    from .delivery_engine import DeliveryEngine, EngineAnswer, EngineError
    from .metrics_schema import MetricFamily, MetricLabel


def __getattr__(name: str) -> Any:
    """Imported on first use, not needed by a first decision: ``AsyncRetryPolicy``
    (asyncio costs ~20 ms at cold start), ``ArtifactWatch`` and ``watch_artifact``,
    ``DeliveryEngine``, ``EngineAnswer`` and ``EngineError``, ``MetricFamily`` and ``MetricLabel``
    (``Artifact.metrics_schema()``'s values)."""
    if name == "AsyncRetryPolicy":
        from .async_policy import AsyncRetryPolicy

        return AsyncRetryPolicy
    if name in ("ArtifactWatch", "watch_artifact"):
        from . import artifact_watch

        return getattr(artifact_watch, name)
    if name in ("DeliveryEngine", "EngineAnswer", "EngineError"):
        from . import delivery_engine

        return getattr(delivery_engine, name)
    if name in ("MetricFamily", "MetricLabel"):
        from . import metrics_schema

        return getattr(metrics_schema, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Artifact", "ArtifactError", "ArtifactInfo", "ArtifactWatch", "current_artifact", "load_artifact",
    "swap_artifact", "watch_artifact",
    "Admission", "AsyncBudgetStore", "AsyncInMemoryBudgetStore", "AsyncRetryPolicy", "AttemptOutcome", "Backoff",
    "BucketCounts", "Budget", "BudgetCounts", "BudgetStore", "Clock", "DeadLetter", "Decision", "DeliveryState",
    "ErrorCode", "EventClass", "HttpResponse", "InMemoryBudgetStore", "Jitter", "LimitedBy", "ManualClock",
    "OutcomeClass", "Policy", "PolicyDocument", "PolicyError", "PolicyTrap", "Reservation", "Retry",
    "RetryPolicy", "Schedule", "Settlement", "Step", "Stop", "StopReason", "StoreOp", "StoreReply", "StoreRequest",
    "SystemClock", "TransportError", "Unavailable", "UnavailableBudgetStore", "store_key",
    "DeliveryEngine", "EngineAnswer", "EngineError", "MetricFamily", "MetricLabel",
]
