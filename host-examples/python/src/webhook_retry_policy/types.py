"""Typed values of the WIT package ``webhook:retry-policy@0.3.0``.

All generated from ``wit/`` (``_generated/types.py``): ``str`` enums with
the SPEC's snake_case values, frozen slots dataclasses (checked on
construction: types and WIT widths, ``invalid_input``), and each WIT
variant as a ``Union`` of dataclasses:

* ``AttemptOutcome = HttpResponse | TransportError``
* ``Decision = Retry | Stop``
* ``StoreReply = Unavailable | Reservation``
* ``Resumption = Due | Stop``
"""

from __future__ import annotations

from ._generated.types import (
    Admission,
    Applied,
    AttemptOutcome,
    Backoff,
    BucketCounts,
    Budget,
    BudgetCounts,
    DeadLetter,
    Decision,
    DeliveryState,
    Due,
    ErrorCode,
    EventClass,
    HeldBuckets,
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

__all__ = [
    "Admission", "Applied", "AttemptOutcome", "Backoff", "BucketCounts", "Budget", "BudgetCounts", "DeadLetter",
    "Decision", "DeliveryState", "Due", "ErrorCode", "EventClass", "HeldBuckets", "HttpResponse", "Jitter",
    "LimitedBy", "OutcomeClass", "Policy", "PolicyDocument", "Reservation", "Resumption", "Retry", "Schedule",
    "Settlement", "Step", "Stop", "StopReason", "StoreOp", "StoreReply", "StoreRequest", "TransportError",
    "Unavailable",
]
