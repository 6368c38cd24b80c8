"""Typed values of the WIT package ``webhook:retry-policy@1.0.0``.

All generated from ``wit/`` (``_generated/types.py``): ``str`` enums with
the SPEC's snake_case values, frozen slotted classes (checked on
construction: types and WIT widths, ``invalid_input``), and each WIT
variant as a ``Union`` of them:

* ``AttemptOutcome = HttpResponse | TransportError``
* ``Decision = Retry | Stop``
* ``StoreReply = Unavailable | Reservation``

:class:`HoldReason` is not a WIT type: it names the reasons the delivery
engine holds an event for (docs/engine.md, ``held`` actions), which the
dispatcher counts.
"""

from __future__ import annotations

from enum import Enum

from ._generated.types import *  # noqa: F403


class HoldReason(str, Enum):
    """Why the delivery engine holds an event (docs/engine.md)."""

    PAUSED = "paused"
    CIRCUIT_OPEN = "circuit_open"
    PROBE_REFUSED = "probe_refused"
    RELEASE_PACING = "release_pacing"
    BUDGET_REFUSED = "budget_refused"


__all__ = [
    "Admission", "Applied", "AttemptOutcome", "Backoff", "BucketCounts", "Budget", "BudgetCounts", "Circuit",
    "DeadLetter", "Decision", "DeliveryState", "ErrorCode", "EventClass", "Health", "HealthClass", "HealthDocument",
    "HeldBuckets", "HoldReason", "HttpResponse", "Jitter", "LimitedBy", "OutcomeClass", "Policy", "PolicyDocument",
    "Release", "Reservation", "Retry", "Schedule", "Settlement", "Step", "Stop", "StopReason", "StoreOp",
    "StoreReply", "StoreRequest", "Target", "TransportError", "Unavailable",
]
