"""Typed values of the WIT package ``webhook:retry-policy@0.3.0``.

All generated from ``wit/`` (``_generated/types.py``): ``str`` enums with
the SPEC's snake_case values, frozen slotted classes (checked on
construction: types and WIT widths, ``invalid_input``), and each WIT
variant as a ``Union`` of them:

* ``AttemptOutcome = HttpResponse | TransportError``
* ``Decision = Retry | Stop``
* ``StoreReply = Unavailable | Reservation``
* ``Resumption = Due | Stop``

0.3 (compiled policies and format 3, docs/health.md):

* ``AdvanceResult = Decided | StoreCall`` (``needs-store`` is the call itself)
* ``Verdict = Retry | BudgetHold | Stop``
* ``GateVerdict = Send | SendProbe | Probe | Hold | HeldStop``
* ``WakeVerdict = Send | WakeHold | DeadLetter``
* ``PaceVerdict = Send | Wait``
"""

from __future__ import annotations

from ._generated.types import (
    Admission,
    AdvanceResult,
    Applied,
    AttemptOutcome,
    Backoff,
    BucketCounts,
    Budget,
    BudgetCounts,
    BudgetHold,
    CallApplied,
    CallOp,
    CallReply,
    Circuit,
    DeadLetter,
    Decided,
    Decision,
    DeliveryState,
    Due,
    ErrorCode,
    EventClass,
    FailureBuckets,
    Finished,
    GateAnswer,
    GateEvent,
    GateVerdict,
    Health,
    HealthCall,
    HealthClass,
    HealthDocument,
    HealthOutcome,
    HealthState,
    HealthView,
    HeldBuckets,
    HeldHealth,
    HeldStop,
    Hold,
    HoldReason,
    HttpResponse,
    Jitter,
    LimitedBy,
    OutcomeClass,
    Paced,
    Pacer,
    PaceVerdict,
    Policy,
    PolicyDocument,
    Probe,
    Release,
    Reservation,
    Resumption,
    Retry,
    Schedule,
    Send,
    SendProbe,
    Settlement,
    Step,
    Stop,
    StopReason,
    StoreCall,
    StoreOp,
    StoreReply,
    StoreRequest,
    TransportError,
    Unavailable,
    Verdict,
    Wait,
    Wake,
    WakeHold,
    WakeVerdict,
)

__all__ = [
    "Admission", "AdvanceResult", "Applied", "AttemptOutcome", "Backoff", "BucketCounts", "Budget", "BudgetCounts",
    "BudgetHold", "CallApplied", "CallOp", "CallReply", "Circuit", "DeadLetter", "Decided", "Decision",
    "DeliveryState", "Due", "ErrorCode", "EventClass", "FailureBuckets", "Finished", "GateAnswer", "GateEvent",
    "GateVerdict", "Health", "HealthCall", "HealthClass", "HealthDocument", "HealthOutcome", "HealthState",
    "HealthView", "HeldBuckets", "HeldHealth", "HeldStop", "Hold", "HoldReason", "HttpResponse", "Jitter",
    "LimitedBy", "OutcomeClass", "PaceVerdict", "Paced", "Pacer", "Policy", "PolicyDocument", "Probe", "Release",
    "Reservation", "Resumption", "Retry", "Schedule", "Send", "SendProbe", "Settlement", "Step", "Stop",
    "StopReason", "StoreCall", "StoreOp", "StoreReply", "StoreRequest", "TransportError", "Unavailable", "Verdict",
    "Wait", "Wake", "WakeHold", "WakeVerdict",
]
